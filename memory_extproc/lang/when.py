"""What a relative date phrase means, in any language: a day, or the week, weekend, month or
year around one. Calendar arithmetic a language file's ``meaning`` builds on. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta


@dataclass(frozen=True, slots=True)
class When:
    """A day, the week or weekend before or after a day, a month, a year."""

    kind: str  # "day", "week", "weekend", "week_of", "week_after", "weekend_after", "month", "year"
    day: date


def months_back(day: date, months: int) -> date:
    """The first day of the month ``months`` before ``day``'s (after it, when negative)."""
    total = day.year * 12 + day.month - 1 - months
    return date(total // 12, total % 12 + 1, 1)


def counted(unit: str, count: int, said_on: date) -> When:
    """``count`` days, weeks, months or years before ``said_on``: "three days ago"."""
    if unit == "day":
        return When("day", said_on - timedelta(days=count))
    if unit == "week":
        return When("week_of", said_on - timedelta(weeks=count))
    if unit == "month":
        return When("month", months_back(said_on, count))
    return When("year", date(said_on.year - count, 1, 1))


def last(period: str, said_on: date, weekdays: tuple[str, ...]) -> When:
    """The period before the day said: "last week", "last month", "last Friday" (the latest
    one before that day); ``period`` is one of week, weekend, month, year or a weekday of
    ``weekdays`` (Monday first)."""
    if period in ("week", "weekend"):
        return When(period, said_on)
    if period == "month":
        return When("month", months_back(said_on, 1))
    if period == "year":
        return When("year", date(said_on.year - 1, 1, 1))
    back = (said_on.weekday() - weekdays.index(period) - 1) % 7 + 1
    return When("day", said_on - timedelta(days=back))


def ahead(
    period: str, said_on: date, weekdays: tuple[str, ...], *, next_calendar_week: bool = False
) -> When:
    """The period after the day said: "next month", "明年", "el próximo viernes" (the first
    one after that day), "next Friday" (``next_calendar_week``: that of the week after the
    day's, as 下周五 is; said on a Thursday it is not the next day)."""
    if period in ("week", "weekend"):
        return When(f"{period}_after", said_on)
    if period == "month":
        return When("month", months_back(said_on, -1))
    if period == "year":
        return When("year", date(said_on.year + 1, 1, 1))
    if next_calendar_week:
        return When("day", said_on + timedelta(days=7 - said_on.weekday() + weekdays.index(period)))
    forward = (weekdays.index(period) - said_on.weekday() - 1) % 7 + 1
    return When("day", said_on + timedelta(days=forward))


def days(count: int, said_on: date) -> When:
    """The day ``count`` days after ``said_on`` (before it, when negative): "yesterday"."""
    return When("day", said_on + timedelta(days=count))
