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

Each language has its phrases and its wording of a date (``_Language``); a sentence is read
with every language's phrases, as only its own match.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from memory_extproc.words import sentences, terms

_WEEKDAYS = tuple(d.lower() for d in calendar.day_name)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WEEKDAYS_ES = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
_COUNTS_ES = {"un": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6}
_MONTHS_ES = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
              "septiembre", "octubre", "noviembre", "diciembre")  # fmt: skip
_WEEKDAYS_ZH = "一二三四五六日"  # 周一 … 周日 (周天 too)
_COUNTS_ZH = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9, "十": 10}  # fmt: skip


@dataclass(frozen=True, slots=True)
class _When:
    """What a relative phrase means: a day, the week or weekend before or after a day, a month,
    a year."""

    kind: str  # "day", "week", "weekend", "week_of", "week_after", "weekend_after", "month", "year"
    day: date


@dataclass(frozen=True, slots=True)
class _Language:
    relative: re.Pattern[str]
    meaning: Callable[[re.Match[str], date], _When]
    # the date worded to follow a fact, per kind of _When: {iso}, {year}, {month} (its name in
    # ``months``), {m}, {d}
    words: dict[str, str]
    months: tuple[str, ...]
    clause: re.Pattern[str]  # what separates the clauses of a sentence
    dated: re.Pattern[str]  # a date the fact already holds: ISO, a year, a month's name
    duration: re.Pattern[str]  # a fact that says how long keeps its own time
    wrong_day: str  # how the model writes the conversation's own day: {day} in it
    appended: str  # the date added to a fact that has none: {fact} and {when}
    edge: str = r"(?<!\w){}(?!\w)"  # a phrase kept in the fact, as a word of its own
    shared: int = 2  # words a fact shares with the clause of the phrase, at least


def _back(day: date, months: int) -> date:
    total = day.year * 12 + day.month - 1 - months
    return date(total // 12, total % 12 + 1, 1)


def _counted(unit: str, count: int, said_on: date) -> _When:
    if unit == "day":
        return _When("day", said_on - timedelta(days=count))
    if unit == "week":
        return _When("week_of", said_on - timedelta(weeks=count))
    if unit == "month":
        return _When("month", _back(said_on, count))
    return _When("year", date(said_on.year - count, 1, 1))


def _ahead(
    period: str, said_on: date, weekdays: tuple[str, ...], *, next_calendar_week: bool = False
) -> _When:
    """The period after the day said: "next month", "明年", "el próximo viernes" (the first
    one after that day), "next Friday" (``next_calendar_week``: that of the week after the
    day's, as 下周五 is; said on a Thursday it is not the next day)."""
    if period in ("week", "weekend"):
        return _When(f"{period}_after", said_on)
    if period == "month":
        return _When("month", _back(said_on, -1))
    if period == "year":
        return _When("year", date(said_on.year + 1, 1, 1))
    if next_calendar_week:
        return _When(
            "day", said_on + timedelta(days=7 - said_on.weekday() + weekdays.index(period))
        )
    forward = (weekdays.index(period) - said_on.weekday() - 1) % 7 + 1
    return _When("day", said_on + timedelta(days=forward))


def _english(match: re.Match[str], said_on: date) -> _When:
    if match["today"]:
        return _When("day", said_on)
    if match["yesterday"]:
        return _When("day", said_on - timedelta(days=1))
    if match["tomorrow"]:
        return _When("day", said_on + timedelta(days=2 if "after" in match["tomorrow"] else 1))
    if match["next"]:
        return _ahead(match["next"].lower(), said_on, _WEEKDAYS, next_calendar_week=True)
    if last := (match["last"] or "").lower():
        if last in ("week", "weekend"):
            return _When(last, said_on)
        if last == "month":
            return _When("month", _back(said_on, 1))
        if last == "year":
            return _When("year", date(said_on.year - 1, 1, 1))
        back = (said_on.weekday() - _WEEKDAYS.index(last) - 1) % 7 + 1
        return _When("day", said_on - timedelta(days=back))
    count = _COUNTS.get(match["count"].lower()) or int(match["count"])
    return _counted(match["unit"].lower(), count, said_on)


def _spanish(match: re.Match[str], said_on: date) -> _When:
    if match["today"]:
        return _When("day", said_on)
    if match["yesterday"]:
        return _When("day", said_on - timedelta(days=1 if match["yesterday"] != "anteayer" else 2))
    if match["tomorrow"]:
        return _When(
            "day",
            said_on + timedelta(days=2 if match["tomorrow"].lower().startswith("pasado") else 1),
        )
    if ahead := match["next"] or match["coming"]:
        period = {"semana": "week", "fin de semana": "weekend", "mes": "month", "año": "year"}
        return _ahead(period.get(ahead.lower(), ahead.lower()), said_on, _WEEKDAYS_ES)
    if match["week"]:
        return _When("week", said_on)
    if match["weekend"]:
        return _When("weekend", said_on)
    if match["month"]:
        return _When("month", _back(said_on, 1))
    if match["year"]:
        return _When("year", date(said_on.year - 1, 1, 1))
    if weekday := (match["weekday"] or "").lower():
        back = (said_on.weekday() - _WEEKDAYS_ES.index(weekday) - 1) % 7 + 1
        return _When("day", said_on - timedelta(days=back))
    count = _COUNTS_ES.get(match["count"].lower()) or int(match["count"])
    unit = {"día": "day", "semana": "week", "mes": "month", "año": "year"}[match["unit"].lower()]
    return _counted(unit, count, said_on)


def _chinese(match: re.Match[str], said_on: date) -> _When:
    if match["today"]:
        return _When("day", said_on)
    if match["yesterday"]:
        return _When("day", said_on - timedelta(days=2 if match["yesterday"] == "前天" else 1))
    if match["tomorrow"]:
        return _When("day", said_on + timedelta(days=1))  # not 后天: also "acquired", not innate
    # 下周三: the Wednesday of the week after this one
    ahead = match["next_weekday"] or next(
        (p for p in ("weekend", "week", "month", "year") if match[f"next_{p}"]), None
    )
    if ahead:
        days = (*_WEEKDAYS_ZH[:6], "天")
        return _ahead(ahead, said_on, days, next_calendar_week=True)
    if match["weekend"]:
        return _When("weekend", said_on)
    if match["week"]:
        if weekday := match["weekday"]:  # 上周三: the Wednesday of the week before this one
            monday = said_on - timedelta(days=said_on.weekday() + 7)
            index = 6 if weekday == "天" else _WEEKDAYS_ZH.index(weekday)
            return _When("day", monday + timedelta(days=index))
        return _When("week", said_on)
    if match["month"]:
        return _When("month", _back(said_on, 1))
    if match["year"]:
        return _When("year", date(said_on.year - 1, 1, 1))
    count = _COUNTS_ZH.get(match["count"]) or int(match["count"])
    unit = {"天": "day", "周": "week", "星期": "week", "月": "month", "年": "year"}[match["unit"]]
    return _counted(unit, count, said_on)


_LANGUAGES = (
    _Language(
        relative=re.compile(
            rf"""(?ix)\b(?:
              (?P<today>today|tonight|this\s+(?:morning|afternoon|evening))
              |(?P<yesterday>yesterday|last\s+night)
              |last\s+(?P<last>week|weekend|month|year|{"|".join(_WEEKDAYS)})
              |(?<!no\s)(?P<tomorrow>(?:the\s+)?day\s+after\s+tomorrow|tomorrow)(?!['’]s)
              |(?<!the\s)(?<!that\s)next\s+(?P<next>week|weekend|month|year|{"|".join(_WEEKDAYS)})
                (?!['’]s)
              |(?P<count>\d{{1,2}}|{"|".join(_COUNTS)})\s+(?P<unit>day|week|month|year)s?\s+ago
            )\b"""
        ),
        meaning=_english,
        words={
            "day": "on {iso}",
            "week": "the week before {iso}",
            "weekend": "the weekend before {iso}",
            "week_of": "the week of {iso}",
            "week_after": "the week after {iso}",
            "weekend_after": "the weekend after {iso}",
            "month": "in {month} {year}",
            "year": "in {year}",
        },
        months=tuple(calendar.month_name[1:]),
        clause=re.compile(r"[,;]|\s(?:and|but)\s"),
        dated=re.compile(
            rf"\b(?:\d{{4}}(?:-\d{{2}}){{0,2}}|{'|'.join(calendar.month_name[1:])})\b",
            re.IGNORECASE,
        ),
        duration=re.compile(
            rf"\b(?:\d+|{'|'.join(_COUNTS)}|several|few)\s+(?:day|week|month|year)s?\b",
            re.IGNORECASE,
        ),
        wrong_day=r"\b(?:on|in)\s+{day}\b",
        appended="{fact} {when}",
    ),
    _Language(
        relative=re.compile(
            rf"""(?ix)(?<!\w)(?:
              (?P<today>hoy|esta\s+(?:mañana|tarde|noche))
              |(?P<yesterday>ayer|anoche|anteayer)
              |(?<!la\s)(?<!una\s)(?<!cada\s)(?<!por\s)(?<!de\s)(?<!esta\s)(?<!el\s)
                (?<!media\s)(?<!turno\s)(?P<tomorrow>pasado\s+mañana|mañana)
              |(?:el\s+|la\s+)?próxim[oa]\s+(?P<next>fin\s+de\s+semana|semana|mes|año
                |{"|".join(_WEEKDAYS_ES)})(?!\s+(?:santa|nuevo)\b)
              |(?:el\s+|la\s+)?(?P<coming>fin\s+de\s+semana|semana|mes|año)\s+que\s+viene
              |(?:el\s+)?(?P<weekend>fin\s+de\s+semana)\s+pasado
              |(?:la\s+)?(?P<week>semana)\s+pasada
              |(?:el\s+)?(?P<month>mes)\s+pasado
              |(?:el\s+)?(?P<year>año)\s+pasado
              |(?:el\s+)?(?P<weekday>{"|".join(_WEEKDAYS_ES)})\s+pasado
              |hace\s+(?P<count>\d{{1,2}}|{"|".join(_COUNTS_ES)})\s+(?P<unit>día|semana|mes|año)(?:e?s)?
            )(?!\w)"""
        ),
        meaning=_spanish,
        words={
            "day": "el {iso}",
            "week": "la semana antes del {iso}",
            "weekend": "el fin de semana antes del {iso}",
            "week_of": "la semana del {iso}",
            "week_after": "la semana después del {iso}",
            "weekend_after": "el fin de semana después del {iso}",
            "month": "en {month} de {year}",
            "year": "en {year}",
        },
        months=_MONTHS_ES,
        clause=re.compile(r"[,;]|\s(?:y|pero)\s"),
        dated=re.compile(rf"\b(?:\d{{4}}(?:-\d{{2}}){{0,2}}|{'|'.join(_MONTHS_ES)})\b", re.I),
        duration=re.compile(
            rf"(?<!hace\s)\b(?:\d+|{'|'.join(_COUNTS_ES)}|varios|varias|unos|unas)\s+"
            r"(?:días?|semanas?|mes(?:es)?|años?)\b",
            re.IGNORECASE,
        ),
        wrong_day=r"\b(?:el|en)\s+{day}\b",
        appended="{fact} {when}",
    ),
    _Language(
        relative=re.compile(
            rf"""(?P<today>今天|今晚|今早)
            |(?P<yesterday>昨天|昨晚|昨日|前天)
            |(?<!的)(?P<tomorrow>明天|明晚|明早)
            |(?<!下)(?P<next_weekend>下(?:个)?(?:周末|星期末))
            |(?<!下)(?P<next_week>下(?:个)?(?:周|星期|礼拜))(?:(?P<next_weekday>[{_WEEKDAYS_ZH}天])(?!起))?
            |(?<!下)(?P<next_month>下(?:个)?月)
            |(?<!聪)(?P<next_year>明年)
            |(?P<weekend>上(?:个)?(?:周末|星期末))
            |(?<!上)(?P<week>上(?:个)?(?:周|星期|礼拜))(?:(?P<weekday>[{_WEEKDAYS_ZH}天])(?!起))?
            |(?P<month>上(?:个)?月)
            |(?P<year>去年)
            |(?<![\d{"".join(_COUNTS_ZH)}])(?P<count>\d{{1,2}}|[{"".join(_COUNTS_ZH)}])(?:个)?(?P<unit>天|周|星期|月|年)(?:以)?前""",
            re.X,
        ),
        meaning=_chinese,
        words={
            "day": "{year}年{m}月{d}日",
            "week": "{year}年{m}月{d}日前的一周",
            "weekend": "{year}年{m}月{d}日前的周末",
            "week_of": "{year}年{m}月{d}日那一周",
            "week_after": "{year}年{m}月{d}日后的一周",
            "weekend_after": "{year}年{m}月{d}日后的周末",
            "month": "{year}年{m}月",
            "year": "{year}年",
        },
        months=(),
        clause=re.compile(r"[，,；;]|但是|而且|并且"),
        dated=re.compile(r"\d{4}(?:-\d{2}){0,2}|\d+\s*[年月日号]"),
        duration=re.compile(
            rf"(?:\d+|[{''.join(_COUNTS_ZH)}几]+)(?:个)?(?:天|周|星期|月|年)(?!以?前)"
        ),
        wrong_day="(?:在|于)?{day}",
        appended="{fact}（{when}）",
        edge="{}",  # no spaces between words
        shared=1,  # a character pair is a word more often than not: 面试 (an interview)
    ),
)


def _worded(language: _Language, when: _When) -> str:
    day = when.day
    month = language.months[day.month - 1] if language.months else ""
    template = language.words[when.kind]
    return template.format(iso=day, year=day.year, month=month, m=day.month, d=day.day)


def _clause(language: _Language, sentence: str, match: re.Match[str]) -> frozenset[str]:
    """The words of the clause a date phrase belongs to ("I started painting two months ago,
    and my sister lives in Oslo": not the sister's), or of the next one when it stands alone
    ("Last week, I sold my car")."""
    parts = language.clause.split(sentence)
    at = len(language.clause.findall(sentence[: match.start()]))
    words = terms(parts[min(at, len(parts) - 1)]) - terms(match.group(0))
    if not words and at + 1 < len(parts):
        words = terms(parts[at + 1])
    return words


def _worded_pattern(language: _Language, *, bare_year: bool) -> str:
    """Any date as ``language`` words it, as a pattern: "the week after 2026-12-06".
    ``bare_year``: with "2015年" too, which in Chinese is also a car's model year."""
    fields = {"iso": r"\d{4}-\d{2}-\d{2}", "year": r"\d{4}", "m": r"\d{1,2}", "d": r"\d{1,2}",
              "month": "|".join(language.months) or "_"}  # fmt: skip
    templates = [t for t in language.words.values() if bare_year or t != "{year}年"]
    worded = (
        re.escape(template).replace(r"\{", "{").replace(r"\}", "}").replace(r"\ ", r"\s+")
        for template in sorted(templates, key=len, reverse=True)
    )
    return "|".join(f"(?:{w.format(**{k: f'(?:{v})' for k, v in fields.items()})})" for w in worded)


# What ``dated`` writes, in every language: after a space, or in brackets (Chinese, appended)
_RESOLVED = re.compile(
    r"\s*[（(](?:" + "|".join(_worded_pattern(n, bare_year=True) for n in _LANGUAGES) + r")[）)]"
    r"|\s*(?:" + "|".join(_worded_pattern(n, bare_year=False) for n in _LANGUAGES) + ")",
    re.IGNORECASE,
)


def without_resolved_dates(text: str) -> str:
    """The fact as the user said it, before ``dated`` wrote when: "User's husband Mark turns 40
    the week after 2026-12-06" is "User's husband Mark turns 40". What a correction or a new
    value is compared by (memories/changes.py): the date alone made it a different frame."""
    return _RESOLVED.sub("", text).strip()


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
            if kept:
                return f"{fact[: kept.start()]}{worded}{fact[kept.end() :]}"
            wrong = re.search(language.wrong_day.format(day=re.escape(day)), fact)
            if wrong:
                return f"{fact[: wrong.start()]}{worded}{fact[wrong.end() :]}"
            if language.dated.search(fact) or language.duration.search(fact):
                return fact  # "User has been painting for two years": its own time, kept
            return language.appended.format(fact=fact.rstrip(" .。"), when=worded)
    return fact
