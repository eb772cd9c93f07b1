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

# "How long…", "For how long…", "How many…", "How often…"; "¿Cuántos…?", "¿Cada cuánto…?";
# "多久", "多少", "几个", "多大"
_ASKS = re.compile(
    r"(?i)\bhow\s+(?:long|many|much|old|often|far)\b|\bcu[aá]nt[oa]s?\b"
    r"|多久|多少|多长|多大|多远|几(?:个|岁|年|天|次|周|月|只|位|口|本|遍|小时|分钟)"
)
# what is not an amount: a day ("2023-06-09", "9 June, 2023") or a year ("since 2016"); an
# amount of money keeps its year-like figure ("$2,000")
_DAYS = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+[A-Z][a-z]+,?\s+\d{4}\b"
    r"|(?<![$€£¥\d.,])(?:19|20)\d{2}(?![\d,])"
)
_DIGIT = re.compile(r"\d")
_AMOUNT_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve twenty thirty dozen hundred
    once twice several few daily weekly monthly yearly annually times
    dos tres cuatro cinco seis siete ocho nueve diez vez veces cada diario semanal""".split()
)
_SPACED = str.maketrans(dict.fromkeys(string.punctuation + "\u2019", " "))
_EVERY = re.compile(
    r"""(?x)\bevery\s+(?:other\s+)?(?:day|week|month|year|morning|evening|night|weekend|summer
    |winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"""
)  # "every Thursday", not "every step of the way"
_AMOUNT_ZH = re.compile(r"[一二两三四五六七八九十百千几每][个年次天周月岁只位口本遍]")


def asks_amount(question: str) -> bool:
    return bool(_ASKS.search(question))


def holds_amount(memory: str) -> bool:
    """A count, a length or a frequency, not only the day it happened. Read for each of a
    search's candidates: sets and short patterns, not one long pattern tried at every place."""
    if _DIGIT.search(memory) and _DIGIT.search(_DAYS.sub(" ", memory)):
        return True
    lowered = memory.lower()
    words = set(lowered.translate(_SPACED).split())
    return bool(
        words & _AMOUNT_WORDS
        or ("every" in words and _EVERY.search(lowered))
        or _AMOUNT_ZH.search(memory)
    )
