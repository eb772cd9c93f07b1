"""Was a fact said by the user, of the user? A model's fact is checked against the words it was
shown before anything is written. Pure.

Real models copy the known facts they were shown back as new ones, keep stale values, write what
the assistant said, advised or offered as the user's, and write facts that point at what they do
not say. ``ungrounded`` says why a fact is not the user's (None: it is); a fact that gives a
name to the wrong relative is attribution.py's to tell. A user who picks among what the assistant
offered makes it theirs (``chooses``, ``picked``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence

from memory_extproc.lang import FILED, either
from memory_extproc.memories.attribution import I_ZH, misnamed
from memory_extproc.memories.facts import Fact
from memory_extproc.store.model import MemoryType
from memory_extproc.words import numbers, sentences, speaks_of_self, terms

_PARTS = tuple(language.grounding for language in FILED)
# A fact that points at what it does not say and says little else: "User dislikes the other
# options", "User chose option 3". Injected later, it tells the assistant nothing ("User chose
# option 2, the plant-based proteins" says what it chose).
_POINTER = re.compile(either([p.pointer for p in _PARTS]), re.I)
# …or at what it leaves unnamed: "User is planning to bring this up at their next meeting" (a
# persona conversation, the 1.5B model; none of LoCoMo's 1,210 gold observations)
_DEMONSTRATIVE = re.compile(either([p.demonstrative for p in _PARTS]), re.I)
# …or at the conversation it came from: "User is talking to Jon", "User is telling Gina about
# their business" (the 1.5B model on LoCoMo; none of its 1,209 gold observations)
_CONVERSATION = re.compile(
    rf"^\s*(?:{either([p.conversation for p in _PARTS])})\s*[.!。]?\s*$", re.I
)
# …or a courtesy paid in it: "User thanks Gina for her kind words", "User congratulates
# Caroline …", "User says goodbye to Jon" (25 of the 1.5B model's 676 facts on three LoCoMo
# slices, none of which answered a question; they came first for any question naming that
# person); not one that says more
_SAYS_MORE = either([p.says_more for p in _PARTS])
_COURTESY = re.compile(
    rf"^(?!.*(?:{_SAYS_MORE}))\s*(?:{either([p.courtesy for p in _PARTS])})", re.I
)


@functools.cache
def _choice_talk() -> frozenset[str]:
    """Read on first use, not at import: reading loads the language identifier (0.7 s), which
    every CLI start paid."""
    return frozenset().union(
        *(terms(language.grounding.choice_talk, language.code) for language in FILED)
    )


# Advice is what the assistant said the user could do, not what the user is or does: "User
# could consider adding a digital cataloging system" (a persona conversation, the 1.5B model).
_ADVICE = re.compile(either([p.advice for p in _PARTS]), re.I)
# …or steps to take, as an answer lists them ("To motivate elderly patients …, consider the
# following strategies: 1. Make exercise … 2. Provide …": a persona conversation, the 1.5B
# model); none of LoCoMo dev's 16,139 turns and observations holds such a list
_STEPS = re.compile(r"(?s)(?:^|[:\n])\s*1[.)]\s.+\s2[.)]\s")
# The user picks among what the assistant offered ("I'll go with option 2, the plant-based
# proteins. The other options don't work for me."): what they chose from is theirs to name.
# A pick, and the options it was among: "I'll go with option 2", "The salad sounds perfect. The
# other options don't work for me". Either alone is not one ("I'm open to other options", "I'm
# going for a run").
_PICKS = re.compile(either([p.picks for p in _PARTS]), re.I)
_OPTIONS = re.compile(either([p.options for p in _PARTS]), re.I)


# The assistant telling of their own life: LoCoMo's other speaker does, in most turns ("I'm
# doing kickboxing and it's giving me so much energy."), and the 1.5B model wrote 18 of 230
# facts it kept from such windows as the user's ("User is doing kickboxing", after "Kickboxing
# is a perfect way to stay in shape"). An assistant's "we" plans with the user ("We could
# start in Kyoto"); what it says of itself while it answers is not its life ("I'd suggest …",
# "As I recall …", "I love spicy food too!"), nor what it says to the user ("I love your
# idea"), nor a draft it writes in the user's voice ("Dear Hiring Manager, I am …").
_WE = re.compile(either([p.we for p in _PARTS]), re.I)
_ADDRESSING = re.compile(either([p.addressing for p in _PARTS]), re.I)
_ANSWERING = re.compile(either([p.answering for p in _PARTS]), re.I)
_QUOTED = re.compile(r"[\"“”「」『』]")
# a draft begins: "Here's a draft:", "Dear Hiring Manager,"
_DRAFT = re.compile(rf"(?:[:：]|^(?:{either([p.draft for p in _PARTS])})[^.!?]*,)\s*$", re.I)


def _told_of_self(others: str) -> list[str]:
    """The assistant's sentences of their own life, up to a draft it writes for the user."""
    told = []
    for line in others.replace("\u2019", "'").splitlines():
        if _DRAFT.search(line.strip()):
            break
        told += [
            s
            for s in sentences(line)
            if (speaks_of_self(s) or I_ZH.search(s))
            and not _ADDRESSING.search(s)
            and not _ANSWERING.search(s)
            and not _QUOTED.search(s)
        ]
    return told


def _their_life(words: frozenset[str], said: str, others: str) -> bool:
    """Half of the fact's words are in a sentence the assistant said of their own life, and the
    user said none of them of their own (to the other: "I'm so impressed by your kickboxing!"
    is not)."""
    if not any(2 * len(words & terms(s)) >= len(words) for s in _told_of_self(others)):
        return False
    return not any(
        (speaks_of_self(s) or _WE.search(s)) and not _ADDRESSING.search(s) and words & terms(s)
        for s in sentences(said.replace("\u2019", "'"))
    )


def chooses(said: str) -> bool:
    """Does the user pick among options the assistant offered?"""
    said = said.replace("\u2019", "'")
    return bool(_PICKS.search(said) and _OPTIONS.search(said))


def picked(fact: Fact) -> Fact:
    """A fact of a pick among the assistant's options shows what the user prefers, however the
    model worded it ("User will go with the fresh fruit option", "User will enroll in an
    in-person course"): kept as a preference (a dated event stays one)."""
    if fact.type is not MemoryType.SEMANTIC:
        return fact
    return dataclasses.replace(fact, type=MemoryType.PREFERENCE)


def said_by(fact: str, said: str, others: str) -> tuple[int, int]:
    """How many of the fact's words the user said (with what they picked from, in a pick), and
    how many the assistant alone."""
    words = terms(fact) - {"user"}
    heard = terms(said) | (terms(others) if chooses(said) else frozenset())
    return len(words & heard), len(words & (terms(others) - heard))


def ungrounded(fact: str, said: str, known: Sequence[str], others: str = "") -> str | None:
    """Why a fact was not said by the user (None: it was). ``said``: the user's words, without
    their questions; ``known``: the known facts the model was shown; ``others``: the
    assistant's words shown around them, without what they echoed from memory. A model that
    copies a known fact back, keeps its old value, writes what the assistant said as the
    user's (a 1.5B model did: LoCoMo's other speaker's camping trip), is not heard. A fact may
    say more than the words it came from (LoCoMo's gold observations do: "found the stories
    inspiring"); requiring half of its words to be the user's refused 21% of them.

    * ``ungrounded``: none of its words were said;
    * ``assistant_said``: more than twice as many of its words were said by the assistant alone
      as by the user (3% of LoCoMo's gold observations, against the turns they cite), or, for
      a fact that does not name the user, as many ("Civics are reliable cars" after "I drive a
      Civic" is the assistant's remark, and a second car memory that kept "I sold my car" from
      ending the first);
    * ``assistant_life``: half of its words are in what the assistant told of their own life,
      and the user said none of them of their own ("User is doing kickboxing" after "I'm doing
      kickboxing" / "Kickboxing is a perfect way to stay in shape");
    * ``stale_value``: it holds a number of a known fact that was not said;
    * ``echo``: of what the user said, it holds nothing a known fact did not already say;
    * ``dangling``: it points at what it does not say ("the other options", "option 3", "bring
      this up"), or only at the conversation ("User is talking to Jon", "User thanks Gina for
      her help");
    * ``advice``: what the user could or should do ("User could consider …"), or a list of
      steps ("1. … 2. …"): an answer, not a fact;
    * ``misattributed``: it gives a name to a relative the user did not give it to
      (``misnamed``).

    A user who picks among the assistant's options ("I'll go with option 2") makes them theirs:
    "User prefers cycling over the bus or a scooter" names what they chose from.
    """
    if (
        (_POINTER.search(fact) and len(terms(fact) - _choice_talk()) < 2)
        or _DEMONSTRATIVE.search(fact)
        or _CONVERSATION.search(fact)
        or _COURTESY.search(fact)
    ):
        return "dangling"
    if _ADVICE.search(fact) or _STEPS.search(fact):
        return "advice"
    words = terms(fact) - {"user"}
    if words and not words & terms(said):  # a pick too is said in the user's own words
        return "assistant_said" if words & terms(others) else "ungrounded"
    mine, its = said_by(fact, said, others)
    if its > 2 * mine or (its and its >= mine and "user" not in terms(fact)):
        return "assistant_said"
    if others and not chooses(said) and _their_life(words, said, others):
        return "assistant_life"
    if misnamed(fact, said):
        return "misattributed"
    stale = numbers(fact) - numbers(said)
    if stale and any(stale & numbers(k) for k in known):
        return "stale_value"
    told = set().union(*(terms(k) for k in known)) - {"user"}
    heard = terms(said) | (terms(others) if chooses(said) else frozenset())
    if known and not words & (heard - told):
        return "echo"
    return None
