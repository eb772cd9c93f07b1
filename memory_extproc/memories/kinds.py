"""A memory's type read from its words: procedural, episodic, preference or semantic. Pure.

The model writes plain sentences (the asked-for shape), and a model that names types knows no
preference type: the type is read from the fact, here, for a model's facts (facts.py) and
wherever a sentence needs a type (the benchmarks, the evaluation).
"""

from __future__ import annotations

import re

from memory_extproc.lang import ENGLISH
from memory_extproc.memories.preferences import states_preference
from memory_extproc.store.model import MemoryType

# English's month names: a day's event is read in English facts only; elsewhere a resolved date
# ("2026年11月22日") would take a dated preference from the preferences
_MONTH = "(?:{})".format(
    "|".join(sorted((*ENGLISH.dates.months, *ENGLISH.dates.short_months), key=len, reverse=True))
)
_DAY_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}\b|\b{_MONTH} \d{{1,2}}\b",
    re.IGNORECASE,
)


def kind_of(content: str) -> MemoryType:
    """A fact's type, read from the fact (the model writes plain sentences): how the user does
    something ("To release the app, user runs …") procedural, an event on a day episodic, a
    standing like, dislike or constraint a preference, anything else semantic."""
    if content.lower().startswith("to "):
        return MemoryType.PROCEDURAL
    if _DAY_DATE.search(content):  # "User chose a wedding venue on 12 May 2024": a day's event
        return MemoryType.EPISODIC
    if states_preference(content):
        return MemoryType.PREFERENCE
    return MemoryType.SEMANTIC
