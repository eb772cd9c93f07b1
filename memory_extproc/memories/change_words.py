"""The words that say a statement restates, changes, corrects or ends another, as patterns built
from every filed language's (lang/): no words here, no logic (memories/changes.py applies them).

The languages are merged, not chosen per text: a short fact ("El usuario es vegano") is too
short for a language detector to be sure, and no word of one means another thing in another.
A language without spaces (Chinese) is read character by character (words.CJK), after its filler
words are dropped and its words for the user and for "is" are read as such.
"""

from __future__ import annotations

import re

from memory_extproc.lang import FILED, either

_SPACED = tuple(language.changes for language in FILED if language.spaced)
_UNSPACED = tuple(language.changes for language in FILED if not language.spaced)


def _words(field: str, changes: tuple[object, ...] = _SPACED) -> frozenset[str]:
    return frozenset(word for c in changes for word in getattr(c, field))


def _longest_first(field: str) -> re.Pattern[str]:
    """The unspaced languages' words as one pattern, the longest first: "完全に" (Japanese) is
    not "完全" (Chinese) and a left-over "に"."""
    words = sorted((word for c in _UNSPACED for word in getattr(c, field)), key=len, reverse=True)
    return re.compile("|".join(words))


def _pattern(field: str) -> str:
    return either([getattr(language.changes, field) for language in FILED])


# the speaker, as statements and memories name them
SELF = _words("speaker")
SELF_UNSPACED = _longest_first("speaker")
BE = _words("be")
BE_UNSPACED = tuple(sorted((word for c in _UNSPACED for word in c.be), key=len, reverse=True))
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

CHANGE_MARKER = re.compile(_pattern("marker"), re.IGNORECASE)
# "I said Boston, I meant Austin": groups ``wrong`` and ``right``
CORRECTIONS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for language in FILED
    for pattern in language.changes.corrections
)
# "I sold my car": group ``object``; then an ending that names nothing ("I quit last month",
# "我辞职了"): what was left unnamed is the job (LEFT_JOB)
ENDINGS = tuple(
    re.compile(pattern, re.IGNORECASE) for language in FILED for pattern in language.changes.endings
) + tuple(re.compile(f"(?:{c.left_job})(?P<object>)", re.I) for c in _SPACED + _UNSPACED)
# …in the language of the verb
LEFT_JOB = tuple(
    (re.compile(language.changes.left_job, re.IGNORECASE), language.changes.job_word)
    for language in FILED
)
# The user moved ("we moved to Seattle", "我们上个月搬到西雅图"): it ends where the user lived
# (RESIDENCE). Not a relative's move: the user is the subject, with only when between.
MOVED = re.compile(_pattern("moved"), re.IGNORECASE)
# Where the user lives (not "User's brother lives in …")
RESIDENCE = re.compile(_pattern("residence"), re.IGNORECASE)
# One thing replaced another, whatever it was (not "now" or "new": "User got a new puppy"
# replaces nothing)
SWITCH = re.compile(_pattern("switch"), re.IGNORECASE)
_WHEN = _pattern("when")
# what an ending names stops where a new clause starts: "my job last month and now I teach …"
# (not "my car and my bike")
OBJECT_END = re.compile(_pattern("object_end"), re.IGNORECASE)
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
PEOPLE = re.compile(_pattern("people"), re.IGNORECASE)
# The user's work (not a relative's: "User's sister works as …", "用户的妹妹在医院当护士")
JOB = re.compile(_pattern("job"), re.IGNORECASE)
# A second job beside the first, not one for the other: "also", "on weekends", "兼职"
BESIDE = re.compile(_pattern("beside"), re.IGNORECASE)
# Where and when the user was born: a fact of the past that changes nothing said of the present
# ("I was born in Austin, actually" does not replace "User lives in Austin")
BORN = re.compile(_pattern("born"), re.IGNORECASE)
