"""Is a memory a standing preference or constraint of its user? Pure; English, Chinese, Spanish.

"User is vegetarian", "User avoids activities involving heights", "User refuses to listen to
mainstream pop" are not the answer to one question: they shape every later request they bear on
("Suggest something for dinner", "Plan a day in Colorado"), which never names them. Such memories
are kept as ``preference`` memories, and an open request is given them (retrieval/service.py)
where ordinary memories must match the request itself.

Read from the memory's words, in every mode (a model's fact, a note of what the user said, an API
add), sentence by sentence: one whose subject is the user ("User …", "I …", "my favourite …")
and that says what they like, dislike, avoid, cannot have, fear, only or never do, keep as a
diet, or choose over something else; a condition that limits what they eat ("I'm diabetic"), a
doctor's order, a habit given up ("I quit drinking") — and not just today ("I won't go to the gym
today").
Someone else's ("User's sister loves jazz", "User's landlord refuses to fix the heating") is not
the user's preference.

Chinese and Spanish the same way ("用户是素食者", "用户对坚果过敏", "El usuario evita los
lugares altos", "No como carne roja"): without them every preference of a user writing Chinese
was stored as an ordinary memory, and open requests were given none (PrefEval's explicit items
in Chinese, eval/RESULTS.md). As in memories/change_words.py, the languages are merged, not
chosen per text: a short fact is too short for a language detector to be sure.
"""

from __future__ import annotations

import re

from memory_extproc.lang import FILED, either
from memory_extproc.store.model import MemoryType

_PARTS = tuple(language.preferences for language in FILED)


def _either(field: str) -> re.Pattern[str]:
    return re.compile(either([getattr(part, field) for part in _PARTS]), re.X | re.I)


# A preference said with its subject; or its words, read after the user as a subject
_STANDING = _either("standing")
_AFTER_SUBJECT = _either("after_subject")
_SUBJECT = re.compile(either([part.subject for part in _PARTS]), re.I)
_ONE_OFF = _either("one_off")
_SENTENCE = re.compile(rf"[.;!?]\s+|[。；！？]|{either([part.but for part in _PARTS])}", re.I)


def states_preference(text: str) -> bool:
    """ "User follows a strict vegan diet" yes; "User lives in Porto", "User's sister loves jazz"
    and "I won't go to the gym today" no."""
    for sentence in _SENTENCE.split(text.replace("\u2019", "'")):
        if _ONE_OFF.search(sentence):
            continue
        for standing in _AFTER_SUBJECT.finditer(sentence):
            if _SUBJECT.search(sentence[: standing.end()]):
                return True
        if _STANDING.search(sentence):
            return True
    return False


# Something held against: avoided, disliked, refused, feared, not tolerated. "I tend to avoid
# restaurants with loud live music" folded by the model into "User enjoys taking their students
# to historical reenactments" is a constraint lost, not a taste kept (worker/turn_notes.py).
_AVERSION = _either("aversion")


def states_aversion(text: str) -> bool:
    """ "User avoids crowded places", "I can't stand country music" yes; "User loves jazz" no."""
    return bool(_AVERSION.search(text.replace("\u2019", "'")))


def kind_said(content: str) -> MemoryType:
    """The type of what someone added without naming one: "I am vegetarian" is a preference."""
    return MemoryType.PREFERENCE if states_preference(content) else MemoryType.SEMANTIC


# What eating shapes, whoever learned the preference: the 1.5B model's kinds of request for a
# peanut allergy named recipes, not restaurants ("Thai restaurants" was given the user's
# shopping preferences instead), and notes have none (eval/RESULTS.md, "Food constraints").
_FOOD = _either("food")
FOOD_REQUESTS = (
    "restaurants", "recipes", "meal ideas", "desserts", "snacks", "dining out while travelling",
)  # fmt: skip


# Why a preference is held is not what it bears on: "User only wears clothing free of leather
# … due to their vegan lifestyle" is about clothing.
_REASON = _either("reason")


def requests_implied(content: str) -> tuple[str, ...]:
    """The kinds of request a preference bears on by what it is about, without a model. They
    replace a model's: joined with them, a small model's ("kosher travel", "kosher clothing")
    pulled a Kosher diet away from "top dining spots in Chicago"."""
    return FOOD_REQUESTS if _FOOD.search(_REASON.sub("", content)) else ()
