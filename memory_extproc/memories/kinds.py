"""A memory's type read from its words: procedural, episodic, preference or semantic. Pure.

The model writes plain sentences (the asked-for shape), and a model that names types knows no
preference type: the type is read from the fact, here, for a model's facts (facts.py) and
wherever a sentence needs a type (the benchmarks, the evaluation).
"""

from __future__ import annotations

import re

from memory_extproc.memories.preferences import states_preference
from memory_extproc.store.model import MemoryType

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
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
