"""The days a message names ("on 25 May, 2023", "in July 2023"), as spans of epoch milliseconds.

A memory is dated by when it was said; a question that names a date asks about what was said
then ("What did I do for Joanna on 25 May, 2022?"): the memories recorded in that span rank
higher (rank.py). English month names, absolute dates only. Pure: no I/O.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from memory_extproc.lang import ENGLISH

_MONTHS = {name.lower(): number for number, name in enumerate(ENGLISH.dates.months, 1)} | {
    name.lower(): number for name, number in ENGLISH.dates.short_months.items()
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATES = (
    re.compile(rf"\b{_DAY}\s+(?P<month>{_MONTH})\.?,?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b(?P<month>{_MONTH})\.?\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b"),
)
_YEAR_ANYWHERE = re.compile(r"\d{4}")  # every form names its year: most questions need no more
_MONTH_YEAR = re.compile(rf"\b(?P<month>{_MONTH})\.?,?\s+{_YEAR}\b", re.IGNORECASE)
# a day named is said about on that day, or written down a day either side of it (time zones,
# "yesterday" in the memory's own words)
_AROUND = timedelta(days=1)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _month(value: str) -> int:
    return int(value) if value.isdigit() else _MONTHS[value.lower()]


def named_spans(text: str) -> list[tuple[int, int]]:
    """Half-open [start, end) spans, epoch ms (UTC), of the days or else months ``text`` names."""
    spans: list[tuple[int, int]] = []
    if not _YEAR_ANYWHERE.search(text):
        return spans
    for pattern in _DATES:
        for found in pattern.finditer(text):
            try:
                named = datetime(
                    int(found["year"]), _month(found["month"]), int(found["day"]), tzinfo=UTC
                )
                spans.append((_ms(named - _AROUND), _ms(named + timedelta(days=1) + _AROUND)))
            except (ValueError, OverflowError):  # "31 February, 2023", "2023-13-01", year 1
                continue
    if spans:
        return spans
    for found in _MONTH_YEAR.finditer(text):
        year, month = int(found["year"]), _month(found["month"])
        if not 1 <= year <= 9998:
            continue
        start = datetime(year, month, 1, tzinfo=UTC)
        end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
        spans.append((_ms(start), _ms(end)))
    return spans
