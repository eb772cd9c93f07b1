"""When a fact happened, kept: a relative date the user said ("yesterday", "last week", "three
days ago") resolved against the day they said it. Pure.

A memory outlives the day it was said: "User went to a support group last week" is wrong a month
later, and "User went to a support group" cannot answer "When did I go?". The 1.5B model is told
to resolve such dates and often does not: it dropped them, or wrote the conversation's own day
("User sold their car in 2026-11-25" for "last week").
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from memory_extproc.words import sentences, terms

_WEEKDAYS = tuple(d.lower() for d in calendar.day_name)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_RELATIVE = re.compile(
    rf"""(?ix)\b(?:
      (?P<today>today|tonight|this\s+(?:morning|afternoon|evening))
      |(?P<yesterday>yesterday|last\s+night)
      |last\s+(?P<last>week|weekend|month|year|{"|".join(_WEEKDAYS)})
      |(?P<count>\d{{1,2}}|{"|".join(_COUNTS)})\s+(?P<unit>day|week|month|year)s?\s+ago
    )\b"""
)
_CLAUSE = re.compile(r"[,;]|\s(?:and|but)\s")
_DURATION = re.compile(
    rf"\b(?:\d+|{'|'.join(_COUNTS)}|several|few)\s+(?:day|week|month|year)s?\b", re.IGNORECASE
)
# a date the fact already holds: ISO, a year, or a month's name
_DATED = re.compile(
    rf"\b(?:\d{{4}}(?:-\d{{2}}){{0,2}}|{'|'.join(calendar.month_name[1:])})\b", re.IGNORECASE
)


def resolve(phrase: str, said_on: date) -> str | None:
    """The date a relative phrase means, said on ``said_on``, worded to follow a fact ("on
    2023-05-07", "the week before 2023-05-08", "in April 2023", "in 2022"); None for none."""
    match = _RELATIVE.fullmatch(phrase.strip())
    if match is None:
        return None
    if match["today"]:
        return f"on {said_on}"
    if match["yesterday"]:
        return f"on {said_on - timedelta(days=1)}"
    if last := (match["last"] or "").lower():
        if last in ("week", "weekend"):
            return f"the {last} before {said_on}"
        if last == "month":
            return _month(said_on, 1)
        if last == "year":
            return f"in {said_on.year - 1}"
        back = (said_on.weekday() - _WEEKDAYS.index(last) - 1) % 7 + 1
        return f"on {said_on - timedelta(days=back)}"
    count = _COUNTS.get(match["count"].lower()) or int(match["count"])
    unit = match["unit"].lower()
    if unit == "day":
        return f"on {said_on - timedelta(days=count)}"
    if unit == "week":
        return f"the week of {said_on - timedelta(weeks=count)}"
    if unit == "month":
        return _month(said_on, count)
    return f"in {said_on.year - count}"


def _clause(sentence: str, match: re.Match[str]) -> frozenset[str]:
    """The words of the clause a date phrase belongs to ("I started painting two months ago,
    and my sister lives in Oslo": not the sister's), or of the next one when it stands alone
    ("Last week, I sold my car")."""
    parts = _CLAUSE.split(sentence)
    at = len(_CLAUSE.findall(sentence[: match.start()]))
    words = terms(parts[min(at, len(parts) - 1)]) - terms(match.group(0))
    if not words and at + 1 < len(parts):
        words = terms(parts[at + 1])
    return words


def _month(said_on: date, back: int) -> str:
    months = said_on.year * 12 + said_on.month - 1 - back
    return f"in {calendar.month_name[months % 12 + 1]} {months // 12}"


def dated(fact: str, said: str, day: str) -> str:
    """The fact with the relative date of the user's sentence it came from resolved: the phrase
    replaced where the fact kept it, the conversation's own day replaced where the model wrote
    that instead, the date added where the fact has none. A fact that holds another date, or
    whose sentence it shares under two words with, is left as it is."""
    said_on = date.fromisoformat(day)
    words = terms(fact) - {"user"}
    for sentence in sentences(said):
        match = _RELATIVE.search(sentence)
        if match is None or len(words & _clause(sentence, match)) < min(2, len(words)):
            continue
        when = resolve(match.group(0), said_on)
        if when is None:
            continue
        kept = re.search(rf"\b{re.escape(match.group(0))}\b", fact, re.IGNORECASE)
        if kept:
            return f"{fact[: kept.start()]}{when}{fact[kept.end() :]}"
        wrong = re.search(rf"\b(?:on|in)\s+{re.escape(day)}\b", fact)
        if wrong:
            return f"{fact[: wrong.start()]}{when}{fact[wrong.end() :]}"
        if _DATED.search(fact) or _DURATION.search(fact):
            return fact  # "User has been painting for two years": its own time, kept
        return f"{fact.rstrip(' .')} {when}"
    return fact
