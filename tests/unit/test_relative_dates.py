"""Relative dates a user said ("yesterday", "last week"), resolved against the day said."""

from __future__ import annotations

import pytest

from memory_extproc.memories.relative_dates import dated

MONDAY = "2023-05-08"


@pytest.mark.parametrize(
    ("fact", "said", "kept"),
    [
        # the date added where the fact dropped it
        ("User went to a support group", "I went to a support group yesterday.",
         "User went to a support group on 2023-05-07"),
        ("User ran a charity race", "I ran a charity race last Saturday!",
         "User ran a charity race on 2023-05-06"),
        ("User moved from Sweden", "I moved from Sweden 4 years ago.",
         "User moved from Sweden in 2019"),
        ("User started painting", "I started painting two months ago.",
         "User started painting in March 2023"),
        ("User went to Paris", "I went to Paris last year.", "User went to Paris in 2022"),
        ("User has a job interview", "I have a job interview this afternoon.",
         "User has a job interview on 2023-05-08"),
        ("User sold their car", "Last week, I sold my car.",
         "User sold their car the week before 2023-05-08"),
        # the phrase replaced where the fact kept it: it would be wrong next month
        ("User sold their car last week", "I sold my car last week.",
         "User sold their car the week before 2023-05-08"),
        # the conversation's own day, written for "last week" by a 1.5B model, replaced
        ("User sold their car in 2023-05-08", "I sold my car last week.",
         "User sold their car the week before 2023-05-08"),
        # a date the model resolved is kept
        ("User went to a support group on 2023-05-07", "I went to a support group yesterday.",
         "User went to a support group on 2023-05-07"),
        # the date belongs to another clause or sentence, or none was said
        ("User's sister lives in Oslo",
         "I started painting two months ago, and my sister lives in Oslo.",
         "User's sister lives in Oslo"),
        ("User's sister lives in Oslo", "I went to Paris yesterday. My sister lives in Oslo.",
         "User's sister lives in Oslo"),
        ("User is vegetarian", "I am vegetarian.", "User is vegetarian"),
        # a fact that says how long keeps its own time
        ("User has been painting for two years", "I started painting two years ago.",
         "User has been painting for two years"),
    ],
)  # fmt: skip
def test_a_fact_keeps_when_it_happened(fact: str, said: str, kept: str) -> None:
    assert dated(fact, said, MONDAY) == kept


def test_across_a_year_and_a_month_end() -> None:
    assert dated("User quit their job", "I quit my job last month.", "2024-01-15") == (
        "User quit their job in December 2023"
    )
    assert dated("User got a cat", "I got a cat yesterday.", "2024-03-01") == (
        "User got a cat on 2024-02-29"
    )
