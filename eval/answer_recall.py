"""Answer recall: does the injected block hold the gold answer's content? A yardstick that needs
no provenance (a model's facts are traced to turns by shared words, which may undercount), the
same for every system compared.

An answer is recalled when all its content words are in the block: stop words out, words
stemmed as the product stems English (Snowball's, lang/en.py: "dancing" is "dance", so "a dance
class" holds the answer "by dancing"), numbers as digits
("two" = "2", "$10,000" = "10000"), dates in one ISO form ("7 May 2023", "May 7, 2023" and
"2023-05-07" are one date; an answer of "May 2023" or "2023" is met by any date of that month
or year in the block).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory_extproc.words import CJK, STOPWORDS, stem, terms

_MONTH_NAMES = (
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec"),
)  # fmt: skip
_MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES, 1) for name in names}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_DATE_FORMS = (  # (pattern, order of day / month / year groups)
    (re.compile(rf"\b{_YEAR}-(\d{{2}})-(\d{{2}})\b"), "ymd"),
    (re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE), "dmy"),
    (re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE), "mdy"),
    (re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE), "my"),
    (re.compile(rf"\b{_YEAR}-(\d{{2}})\b"), "ym"),
)
_NUMBER_WORDS = {
    word: str(number)
    for number, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"once": "1", "twice": "2", "thrice": "3"}
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def _month(text: str) -> int:
    return _MONTHS[text.lower().rstrip(".")]


def _dates(text: str) -> tuple[list[str], str]:
    """The dates of a text in ISO form (day, month or year precision), and the text without
    them (so their parts are not read again as numbers and words)."""
    found: list[str] = []

    def iso(match: re.Match[str], order: str) -> str:
        groups = dict(zip(order, match.groups(), strict=True))
        year = groups["y"]
        month = int(groups["m"]) if groups["m"].isdigit() else _month(groups["m"])
        if not 1 <= month <= 12:
            return match.group(0)
        if "d" in groups:
            found.append(f"{year}-{month:02d}-{int(groups['d']):02d}")
        else:
            found.append(f"{year}-{month:02d}")
        return " "

    for pattern, order in _DATE_FORMS:
        text = pattern.sub(lambda m, o=order: iso(m, o), text)  # type: ignore[misc]
    return found, text


def _numbers(text: str) -> tuple[set[str], str]:
    found = {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}
    return found, _NUMBER.sub(" ", text)


def _words(text: str) -> set[str]:
    """Stemmed words; Chinese and Japanese as the product reads them (character pairs)."""
    latin = (w for w in _WORD.findall(CJK.sub(" ", text.lower())) if w not in STOPWORDS)
    stemmed = {w if w in _NUMBER_WORDS else stem(w) for w in latin if len(w) > 1}
    return stemmed | set(terms(" ".join(CJK.findall(text))))


def content(text: str) -> set[str]:
    """The answer's content, as tokens: ISO dates, digits, stemmed words."""
    dates, rest = _dates(text)
    numbers, rest = _numbers(rest)
    words = _words(rest)
    numbers |= {_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS}
    return set(dates) | numbers | {w for w in words if w not in _NUMBER_WORDS}


def available(block: str) -> set[str]:
    """What a block offers: its content, each date also at month and year precision (a
    year alone is also a number)."""
    tokens = content(block)
    for token in list(tokens):
        if re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", token):
            tokens |= {token[:7], token[:4]}
    return tokens


def recalled(answer: str, injected: Iterable[str]) -> bool:
    """All the answer's content is in the injected lines (an empty answer never is)."""
    wanted = content(answer)
    return bool(wanted) and wanted <= available("\n".join(injected))
