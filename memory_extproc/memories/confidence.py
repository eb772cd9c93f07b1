"""How surely a learned memory is the user's: stated, implied or uncertain. Pure.

The design's Phase-3 engine has the model give each memory a confidence (1.0 stated, 0.7
implied, 0.5 uncertain). Here it is read from the words the memory came from, which the
grounding check already holds: no model is asked (a 1.5B model's confidence is its
wording's, and each token of an extraction answer costs time).

* ``stated``: the user said it, of themselves.
* ``implied``: read from what they did rather than said: a pick among the assistant's options
  ("I'll go with the basil" → "User prefers basil over tomatoes"), an answer to what the
  assistant asked, in its words, or a preference the model read into a message that states
  none. A preference said in passing ("I usually prefer
  in-person classes, can't stand online courses") is said: stated.
* ``uncertain``: the user hedged ("maybe", "probably", "可能") what it states as sure, or it
  says "could" or "should" where the user did not, or a third of its words are the assistant's
  alone ("User's best way to promote the event is to
  approach them with a brief proposal"), or it is not of the user or of anyone the user
  named in their life ("Libraries often handle book donations …").

Below the configured bar (``memory.review``) a memory is held as pending: kept for the user to
confirm or reject, never injected, and raised a level when it is observed again.
"""

from __future__ import annotations

import re

from memory_extproc.lang import FILED, either
from memory_extproc.memories import changes
from memory_extproc.memories.changes import Change
from memory_extproc.memories.grounding import chooses, said_by
from memory_extproc.memories.notes import statement
from memory_extproc.memories.preferences import states_preference
from memory_extproc.store.model import Confidence, MemoryType, content_hash
from memory_extproc.words import sentences, terms

LEVELS = tuple(Confidence)  # lowest first
WEIGHTS = {Confidence.STATED: 1.0, Confidence.IMPLIED: 0.7, Confidence.UNCERTAIN: 0.5}
_HEDGES = re.compile(either([language.hedges for language in FILED]), re.I)
_SUGGESTS = re.compile(either([language.grounding.suggests for language in FILED]), re.I)


def of_fact(
    fact: str, kind: MemoryType, said: str, others: str, *, earlier: str = ""
) -> Confidence:
    """A model's fact, by the user's words it came from (``said``) and the assistant's around
    them (``others``), as grounding.ungrounded reads them. ``earlier``: what the user said
    before in the conversation, whose words are theirs too when the assistant repeats them
    ("Since you're using Bootstrap, …" after "I'm using Bootstrap")."""
    if chooses(said):
        return Confidence.IMPLIED
    mine, its = said_by(fact, f"{earlier}\n{said}", others)
    # the user's own words, in the model's copy: "Der Budget für die Hawaii-Reise liegt jetzt bei
    # 9.000 Euro" for "unser Budget … liegt jetzt bei 9.000 Euro", "Wir sind … nach Stuttgart
    # gezogen" (no "Nutzer": held as of no one's, they stayed out of the truth rules)
    copied = its == 0 and 2 * mine >= len(terms(fact) - {"user"})
    of_user = copied or _of_user(fact, f"{earlier}\n{said}")
    if not of_user or hedged(fact, said) or suggested(fact, said):
        return Confidence.UNCERTAIN
    if 2 * its >= mine:
        # the assistant's words: an answer to what it asked is the user's ("Have you been to a
        # food truck event yet?" / "Not yet!"), its advice or remarks are not
        asked = " ".join(s for s in sentences(others) if s.rstrip().endswith(("?", "？")))
        _, told = said_by(
            fact, f"{earlier}\n{said}", others.replace(asked, " ") if asked else others
        )
        return Confidence.IMPLIED if 2 * told < mine else Confidence.UNCERTAIN
    if kind is MemoryType.PREFERENCE and not states_preference(said):
        return Confidence.IMPLIED
    return Confidence.STATED


def _of_user(fact: str, said: str) -> bool:
    """It says it is the user's, or names someone of the user's life the user named (in the
    conversation: "Markus wird 41, nicht 40" follows "Mein Mann Markus …"): for
    "Mein Mann Markus wird nächste Woche 40" the 1.5B model wrote "Der Mann Markus wird … 40
    Jahre alt", without "des Nutzers", and the husband's age was held as a fact of no one's."""
    return "user" in terms(fact) or bool(changes.people(fact) & changes.people(said))


def of_words(said: str) -> Confidence:
    """A note of the user's own words (notes mode, a preference the model missed): what they
    said, hedge and all ("On … the user said: 'Maybe I'm allergic to shellfish'"), so stated,
    but for a pick."""
    return Confidence.IMPLIED if chooses(said) else Confidence.STATED


def hedged(fact: str, said: str) -> bool:
    """Is the fact surer, or less sure, than the user's sentence it came from (the one it
    shares most words with)? "Maybe I'm allergic to shellfish" written as "User is allergic to
    shellfish" is not what was said, nor "User probably prefers tea" for "I drink tea"; "User
    might start a reading club" for "I might start a reading club" is."""
    words = terms(fact) - {"user"}
    best = max(sentences(said), key=lambda s: len(words & terms(s)), default="")
    return bool(_HEDGES.search(best)) != bool(_HEDGES.search(fact))


def suggested(fact: str, said: str) -> bool:
    """Does the fact say what the user could or should do where they said nothing of the
    kind? "User's fundraiser could involve a bake sale" for "I'm organizing a fundraiser" is
    the assistant's suggestion, whoever's words it holds."""
    return bool(_SUGGESTS.search(fact)) and not _SUGGESTS.search(said)


def raised(confidence: Confidence) -> Confidence:
    """Observed again: one level up."""
    return LEVELS[min(LEVELS.index(confidence) + 1, len(LEVELS) - 1)]


def observed_again(held: Confidence, said: Confidence) -> Confidence:
    """A memory said again: a level surer, or as sure as the new words if surer still."""
    return max(raised(held), said, key=LEVELS.index)


def held_back(confidence: Confidence, bar: Confidence | None) -> bool:
    """Under the bar: pending review (None: nothing is held)."""
    return bar is not None and LEVELS.index(confidence) < LEVELS.index(bar)


def restates(new: str, held: str) -> bool:
    """The same fact again: the same words, or a restatement of them (memories/changes.py)."""
    if content_hash(new) == content_hash(held):
        return True
    return changes.compare(statement(new), statement(held)) is Change.RESTATED
