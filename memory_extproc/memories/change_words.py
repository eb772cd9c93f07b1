"""The words that say a statement restates, changes, corrects or ends another, as patterns built
from every filed language's (lang/): no words here, no logic (memories/changes.py applies them).

The languages are merged, not chosen per text: a short fact ("El usuario es vegano") is too
short for a language detector to be sure, and no word of one means another thing in another.
A language without spaces (Chinese) is read character by character (words.CJK), after its filler
words are dropped and its words for the user and for "is" are read as such.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memory_extproc.lang import FILED, either
from memory_extproc.lang.shape import Changes
from memory_extproc.words import Merged, unspaced_script

_EVERY = tuple(language.changes for language in FILED)
_SPACED = tuple(language.changes for language in FILED if language.spaced)
_UNSPACED = tuple(language.changes for language in FILED if not language.spaced)


@dataclass(frozen=True, slots=True)
class InTurn:
    """Patterns tried in turn, the first that matches deciding; as ``words.Merged``, a text
    without an unspaced language's script is tried with the spaced languages' only."""

    spaced: tuple[re.Pattern[str], ...]
    every: tuple[re.Pattern[str], ...]

    def for_text(self, text: str) -> tuple[re.Pattern[str], ...]:
        return self.every if unspaced_script(text) else self.spaced


def _words(field: str, changes: tuple[Changes, ...] = _SPACED) -> frozenset[str]:
    return frozenset(word for c in changes for word in getattr(c, field))


def _longest_first(field: str) -> re.Pattern[str]:
    """The unspaced languages' words as one pattern, the longest first: "完全に" (Japanese) is
    not "完全" (Chinese) and a left-over "に"."""
    words = sorted((word for c in _UNSPACED for word in getattr(c, field)), key=len, reverse=True)
    return re.compile("|".join(words))


def _pattern(field: str, changes: tuple[Changes, ...] = _EVERY) -> str:
    return either([getattr(c, field) for c in changes])


def _merged(field: str) -> Merged:
    return Merged(
        re.compile(_pattern(field, _SPACED), re.IGNORECASE),
        re.compile(_pattern(field), re.IGNORECASE),
    )


def _in_turn(patterns: Callable[[tuple[Changes, ...]], tuple[re.Pattern[str], ...]]) -> InTurn:
    return InTurn(patterns(_SPACED), patterns(_EVERY))


# the speaker, as statements and memories name them
SELF = _words("speaker")
SELF_UNSPACED = _longest_first("speaker")
BE = _words("be")
BE_UNSPACED = tuple(sorted((word for c in _UNSPACED for word in c.be), key=len, reverse=True))
# …said to be someone, at the end of a text: "User is ", "La usuaria es la ", "用户是"
USER_IS = re.compile(
    rf"(?<!\w)(?:{'|'.join(sorted(SELF, key=len, reverse=True))})\s+(?:{'|'.join(BE)})\s+"
    rf"(?:\w+\s+)?$|(?:{SELF_UNSPACED.pattern})(?:{'|'.join(BE_UNSPACED)})$",
    re.IGNORECASE,
)
BECOME = _words("become")  # "I've gone vegan", "I became vegan": I am vegan now
BECOME_UNSPACED = _longest_first("become")
EXPANSIONS = {said: meant for c in _SPACED for said, meant in c.expansions.items()}
# Words that say "this changed" without being part of the fact; dropped before comparing
FILLER = _words("filler")
FILLER_UNSPACED = _longest_first("filler")
NEGATION = _words("negation", _SPACED + _UNSPACED)
# a negation of several characters ("ない"), read as one token "not" before a run is spaced
NEGATION_UNSPACED = tuple(
    sorted((word for c in _UNSPACED for word in c.negation if len(word) > 1), key=len, reverse=True)
)
# "my budget" / "the budget", "trip to Hawaii" / "Hawaii trip", "我的预算" / "预算": not a
# different slot ("self" and "be": the speaker and "is", as read)
FRAME_NOISE = _words("frame_noise", _SPACED + _UNSPACED) | {"self", "be"}
WHEN = _words("when_words", _SPACED + _UNSPACED)

CHANGE_MARKER = _merged("marker")
# "I said Boston, I meant Austin": groups ``wrong`` and ``right``
CORRECTIONS = _in_turn(
    lambda changes: tuple(
        re.compile(pattern, re.IGNORECASE) for c in changes for pattern in c.corrections
    )
)
# "I sold my car": group ``object``; then an ending that names nothing ("I quit last month",
# "我辞职了"): what was left unnamed is the job (LEFT_JOB)
ENDINGS = _in_turn(
    lambda changes: (
        tuple(re.compile(pattern, re.IGNORECASE) for c in changes for pattern in c.endings)
        + tuple(  # the spaced languages' first, as before the split by script
            re.compile(f"(?:{c.left_job})(?P<object>)", re.I)
            for c in _SPACED + _UNSPACED
            if c in changes
        )
    )
)
# …in the language of the verb
LEFT_JOB = tuple(
    (re.compile(language.changes.left_job, re.IGNORECASE), language.changes.job_word)
    for language in FILED
)
# The user moved ("we moved to Seattle", "我们上个月搬到西雅图"): it ends where the user lived
# (RESIDENCE). Not a relative's move: the user is the subject, with only when between.
MOVED = _merged("moved")
# Where the user lives (not "User's brother lives in …")
RESIDENCE = _merged("residence")
# The place a residence statement names: a capitalised name after "in"/"en", a run of Chinese
# after 住在 / between 在 and 住 (group place)
HOME_PLACE = tuple(re.compile(p) for language in FILED for p in language.cascades.home_place)
# …said to have begun lately: with a residence, a move ("we've lived in Tucson since last month")
SETTLED = _merged("settled")
# One thing replaced another, whatever it was (not "now" or "new": "User got a new puppy"
# replaces nothing)
SWITCH = _merged("switch")
_WHEN = _pattern("when")
# what an ending names stops where a new clause starts: "my job last month and now I teach …"
# (not "my car and my bike")
OBJECT_END = _merged("object_end")
# when something ended, after what ended or alone: "my car last week", "last month"
WHEN_SUFFIX = re.compile(rf"(\s+({_WHEN}))+\s*$|^\s*({_WHEN})\s*$", re.IGNORECASE)
# what an ending names, without its determiner: "my car" → "car", "mi carro" → "carro"
DETERMINER = re.compile(
    rf"^(?:(?:{'|'.join(word for c in _SPACED for word in c.determiner)})\s+)+"
    rf"|^(?:{'|'.join(word for c in _UNSPACED for word in c.determiner)})",
    re.IGNORECASE,
)
# a statement of several clauses: "…, and my budget is now $12,000", "…，另外预算现在是…"
CLAUSE = re.compile(rf"[.;!?]\s+|[。；！？]\s*|{_pattern('clause')}", re.IGNORECASE)
# The people of a user's life: "User's brother lives in Denver" is not "User lives in Denver"
# restated, and a brother's gym is not the user's (memories/cascades.py)
PEOPLE = _merged("people")
# The user's work (not a relative's: "User's sister works as …", "用户的妹妹在医院当护士")
JOB = _merged("job")
# A second job beside the first, not one for the other: "also", "on weekends", "兼职"
BESIDE = _merged("beside")
# Where and when the user was born: a fact of the past that changes nothing said of the present
# ("I was born in Austin, actually" does not replace "User lives in Austin")
BORN = _merged("born")
# Each weekday said as a routine's, in every filed language (Monday first)
ROUTINE = tuple(
    re.compile(either([c.routine[day] for c in _EVERY]), re.IGNORECASE) for day in range(7)
)
