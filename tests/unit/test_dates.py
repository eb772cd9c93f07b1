"""The days a question names, as spans a memory's date is checked against."""

from __future__ import annotations

from memory_extproc.clock import day
from memory_extproc.retrieval.dates import named_spans


def days(text: str) -> list[tuple[str, str]]:
    return [(day(start), day(end)) for start, end in named_spans(text)]


def test_a_named_day_is_that_day_and_one_either_side() -> None:
    around_may_25 = [("2022-05-24", "2022-05-27")]
    assert days("What did I do for Joanna on 25 May, 2022?") == around_may_25
    assert days("What did I do on May 25th, 2022?") == around_may_25
    assert days("and on 2022-05-25?") == around_may_25


def test_a_named_month_is_the_month() -> None:
    assert days("What setback did I face in October 2023?") == [("2023-10-01", "2023-11-01")]
    assert days("in December 2023") == [("2023-12-01", "2024-01-01")]
    assert days("What did I do on May 3, 2023 and in July 2023?") == [
        ("2023-05-02", "2023-05-05")  # a day named: the months beside it are not searched
    ]


def test_no_date_and_impossible_dates_name_nothing() -> None:
    assert days("May I ask what I did last summer?") == []
    assert days("My PIN is 2023-13-45") == []
    assert days("on 0001-01-01 or 9999-12-31") == []  # no overflow at the calendar's ends
    assert days("on 31 February, 2023") == [("2023-02-01", "2023-03-01")]  # the month it names
