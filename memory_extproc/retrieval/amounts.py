"""A question that asks how long, how many or how often, and the memories that can answer it:
those that hold a count, a length or a frequency. Pure: no I/O.

MiniLM reads what a question is about, not what kind of answer it wants: "How long have I had my
current group of friends for?" put "User's friends have been there through everything" and four
other memories about friends ahead of "User has a great support system with friends who have
been there for 4 years" (LoCoMo conv-26, eval/RESULTS.md). Such a question ranks the memories
holding an amount ahead (rank.py), as a question naming a day ranks what was said then.
"""

from __future__ import annotations

import re
import string

from memory_extproc.lang import FILED, either

_PARTS = tuple(language.amounts for language in FILED)
# "How long…", "How many…", "¿Cuántos…?", "多久", "Wie oft…", "何回…"
_ASKS = re.compile(either([part.asks for part in _PARTS]), re.IGNORECASE)
# what is not an amount: a day ("2023-06-09", "9 June, 2023") or a year ("since 2016"); an
# amount of money keeps its year-like figure ("$2,000")
_DAYS = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+[A-Z][a-z]+,?\s+\d{4}\b"
    r"|(?<![$€£¥\d.,])(?:19|20)\d{2}(?![\d,])"
)
_DIGIT = re.compile(r"\d")
_AMOUNT_WORDS = frozenset(word for part in _PARTS for word in part.words)
_SPACED = str.maketrans(dict.fromkeys(string.punctuation + "\u2019", " "))
_EVERY = re.compile(either([part.every for part in _PARTS]), re.X)  # "every Thursday"
_COUNTED = re.compile("|".join(part.counted for part in _PARTS if part.counted))


def asks_amount(question: str) -> bool:
    return bool(_ASKS.search(question))


def holds_amount(memory: str) -> bool:
    """A count, a length or a frequency, not only the day it happened. Read for each of a
    search's candidates: sets and short patterns, not one long pattern tried at every place."""
    if _DIGIT.search(memory) and _DIGIT.search(_DAYS.sub(" ", memory)):
        return True
    lowered = memory.lower()
    words = set(lowered.translate(_SPACED).split())
    return bool(words & _AMOUNT_WORDS or _EVERY.search(lowered) or _COUNTED.search(memory))
