"""When a fact happened or will, kept: a relative date the user said ("yesterday", "last week",
"three days ago", "next month", "el mes pasado", "上个月", "明年") resolved against the day they
said it. Pure.

A memory outlives the day it was said: "User went to a support group last week" is wrong a month
later, and "User went to a support group" cannot answer "When did I go?". The 1.5B model is told
to resolve such dates and often does not: it dropped them, or wrote the conversation's own day
("User sold their car in 2026-11-25" for "last week"); in Spanish and Chinese it kept the words
("El usuario empezó a tomar clases de violonchelo el mes pasado"). What is ahead fares the same:
"User choreographs for a festival next month", said on 2023-01-20, could not answer "When is
my group performing at a festival?" (February 2023; LoCoMo conv-30).

Each language has its phrases and its wording of a date (its file's ``dates``, lang/); a
sentence is read with every language's phrases, as only its own match.
"""

from __future__ import annotations

import functools
import re
from datetime import date

from memory_extproc.lang import FILED
from memory_extproc.lang.shape import Dates
from memory_extproc.lang.when import When
from memory_extproc.words import sentences, terms

_LANGUAGES = tuple(language.dates for language in FILED)


def _worded(language: Dates, when: When) -> str:
    day = when.day
    month = language.months[day.month - 1] if language.months else ""
    template = language.words[when.kind]
    return template.format(iso=day, year=day.year, month=month, m=day.month, d=day.day)


def _clause(language: Dates, sentence: str, match: re.Match[str]) -> frozenset[str]:
    """The words of the clause a date phrase belongs to ("I started painting two months ago,
    and my sister lives in Oslo": not the sister's), or of the next one when it stands alone
    ("Last week, I sold my car")."""
    parts = language.clause.split(sentence)
    at = len(language.clause.findall(sentence[: match.start()]))
    words = terms(parts[min(at, len(parts) - 1)]) - terms(match.group(0))
    if not words and at + 1 < len(parts):
        words = terms(parts[at + 1])
    return words


def _template_pattern(language: Dates, template: str) -> str:
    """A wording's template ("in {month} {year}") as a pattern of any date it words."""
    fields = {"iso": r"\d{4}-\d{2}-\d{2}", "year": r"\d{4}", "m": r"\d{1,2}", "d": r"\d{1,2}",
              "month": "|".join(language.months) or "_"}  # fmt: skip
    pattern = re.escape(template).replace(r"\{", "{").replace(r"\}", "}").replace(r"\ ", r"\s+")
    return pattern.format(**{k: f"(?:{v})" for k, v in fields.items()})


def _worded_pattern(*, bare_year: bool) -> str:
    """Any date as any language words it, as a pattern: "the week after 2026-12-06", the
    longest wording first ("2026年11月22日の週" before Chinese's "2026年11月22日").
    ``bare_year``: with "2015年" too, which in Chinese is also a car's model year."""
    worded = [
        (len(template), _template_pattern(language, template))
        for language in _LANGUAGES
        for template in language.words.values()
        if bare_year or template != "{year}年"
    ]
    return "|".join(f"(?:{w})" for _, w in sorted(worded, key=lambda one: -one[0]))


_POINT_END = r"\s+$"  # how a language's ``point`` ends: the text before the date ends there


def _point_pattern() -> str:
    """A date worded as a point after its word, as ``dated`` writes it ("since November 2026",
    "desde noviembre de 2026", "seit November 2026"): the wordings as ``bare`` rewrites them,
    after the point's word. Not a year alone: "since 2015" is the user's own."""
    worded = []
    for language in (language for language in _LANGUAGES if language.point):
        bared = []
        for template in language.words.values():
            words = template
            for start, instead in language.bare:
                words = re.sub(start, instead, words)
            if words not in (template, "{year}"):
                bared.append(_template_pattern(language, words))
        point = language.point.removesuffix(_POINT_END)
        worded.append(rf"(?:{point})\s+(?:{'|'.join(bared)})")
    return "|".join(f"(?:{w})" for w in worded)


# What ``dated`` writes, in every language: after a space, or in brackets (Chinese, appended),
# or as a point after its word
_RESOLVED = re.compile(
    rf"\s*[（(](?:{_worded_pattern(bare_year=True)})[）)]|\s*(?:{_point_pattern()})"
    rf"|\s*(?:{_worded_pattern(bare_year=False)})",
    re.IGNORECASE,
)


_YEAR = re.compile(r"\d{4}")  # every wording of a resolved date holds its year


@functools.lru_cache(maxsize=4096)
def without_resolved_dates(text: str) -> str:
    """The fact as the user said it, before ``dated`` wrote when: "User's husband Mark turns 40
    the week after 2026-12-06" is "User's husband Mark turns 40". What a correction or a new
    value is compared by (memories/changes.py): the date alone made it a different frame. On
    the request path too (the newer of two conflicting memories wins at injection): the five
    languages' wordings are one long pattern, read only where a year is (2.7% of the
    processor's samples under `make bench` before)."""
    return _RESOLVED.sub("", text).strip() if _YEAR.search(text) else text.strip()


def dated(fact: str, said: str, day: str) -> str:
    """The fact with the relative date of the user's sentence it came from resolved: the phrase
    replaced where the fact kept it, the conversation's own day replaced where the model wrote
    that instead, the date added where the fact has none. A fact that holds another date, or
    that neither kept the phrase nor shares two words with its clause, is left as it is."""
    said_on = date.fromisoformat(day)
    words = terms(fact) - {"user"}
    for sentence in sentences(said):
        for language, match in ((n, m) for n in _LANGUAGES for m in n.relative.finditer(sentence)):
            kept = re.search(language.edge.format(re.escape(match.group(0))), fact, re.I)
            # "I graduated last year and I start work next month": the phrase of the fact's
            # clause. A fact that kept the phrase needs no more: said the same day, it means
            # the same date ("… choreographs for a festival next month", its clause reworded)
            shared = len(words & _clause(language, sentence, match))
            if not kept and shared < min(language.shared, len(words)):
                continue
            worded = _worded(language, language.meaning(match, said_on))
            if kept:  # with the words before it its file says are its own ("im", "in the")
                if language.point and re.search(language.point, fact[: kept.start()], re.I):
                    for start, instead in language.bare:
                        worded = re.sub(start, instead, worded)
                if not kept.start():
                    worded = worded[:1].upper() + worded[1:]
                return f"{fact[: kept.start()]}{worded}{fact[kept.end() :]}"
            wrong = re.search(language.wrong_day.format(day=re.escape(day)), fact)
            if wrong:
                return f"{fact[: wrong.start()]}{worded}{fact[wrong.end() :]}"
            if language.dated.search(fact) or language.duration.search(fact):
                return fact  # "User has been painting for two years": its own time, kept
            return language.appended.format(fact=fact.rstrip(" .。"), when=worded)
    return fact
