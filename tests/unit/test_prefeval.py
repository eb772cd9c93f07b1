"""make prefeval's pure parts: users built from the data, and how a question's lines score."""

from __future__ import annotations

from typing import Any

import pytest

from prefeval import score
from prefeval.data import ACKNOWLEDGED, chats_between, exchanges, topic_sets, users
from prefeval.generic import GENERIC_REQUESTS

RECORD: dict[str, Any] = {
    "preference": "I am vegetarian.",
    "question": "Suggest a dinner recipe.",
    "conversation": {
        "query": "Lunch ideas?",
        "assistant_options": "A salad, a burger.",
        "user_selection": "The salad.",
        "assistant_acknowledgment": "Good choice.",
    },
}
PERSONA = {
    "conversation": {"1": {"user": "b", "assistant": "B"}, "0": {"user": "a", "assistant": "A"}}
}


def chat(*said: str) -> dict[str, Any]:
    messages = []
    for text in said:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return {"conversation": messages}


def test_each_form_reveals_the_preference_in_its_own_conversation() -> None:
    assert exchanges("explicit", RECORD) == (("I am vegetarian.", ACKNOWLEDGED),)
    assert exchanges("choice", RECORD) == (
        ("Lunch ideas?", "A salad, a burger."),
        ("The salad.", "Good choice."),
    )
    assert exchanges("persona", PERSONA) == (("a", "A"), ("b", "B"))  # in turn order
    with pytest.raises(ValueError, match="unknown form"):
        exchanges("implicit", RECORD)


def test_unrelated_chats_stop_at_the_asked_number_of_turns() -> None:
    records = [chat("1", "2", "3"), chat("4"), chat("5", "6")]
    found = chats_between(records, 1, 4)
    assert [[said for said, _ in c] for c in found] == [["4"], ["5", "6"], ["1"]]
    assert chats_between(records, 0, 0) == []


def test_users_rotate_the_topic_sets_and_take_their_own_item() -> None:
    topics = [f"t{k:02}" for k in range(15)]
    records = {t: [{**RECORD, "preference": f"{t} item {i}"} for i in range(10)] for t in topics}
    made = users("explicit", records, [chat("x", "y")], 4, first=2, inter_turns=2)
    assert [u.name for u in made] == ["explicit-2", "explicit-3", "explicit-4", "explicit-5"]
    assert [u.items[0].topic for u in made] == ["t00", "t05", "t10", "t00"]
    assert made[1].items[4].preference == "t09 item 3"
    assert all(len(u.items) == 5 and sum(len(c) for c in u.between) == 2 for u in made)
    assert topic_sets(topics[:7]) == [tuple(topics[:5])]  # a set is always five topics


def asked(item: str, *owners: frozenset[str]) -> score.Asked:
    lines = tuple(f"[2026-01-01] line {k}" for k in range(len(owners)))
    return score.Asked("explicit", 0, "u", item, lines, owners, 10 * len(owners))


def test_a_question_is_scored_by_whose_memories_it_got() -> None:
    mine, other, none = frozenset({"a:0"}), frozenset({"b:0"}), frozenset()
    assert score.outcome(asked("a:0", other, mine)) == "injected"
    assert score.outcome(asked("a:0", other)) == "wrong"
    assert score.outcome(asked("a:0", none)) == "unrelated"
    assert score.outcome(asked("a:0")) == "nothing"
    row = score.summary([asked("a:0", mine), asked("a:0", other, mine), asked("a:0")])
    assert row["injected"] == pytest.approx(0.667, abs=1e-3)
    assert row["hit_at_1"] == pytest.approx(0.333, abs=1e-3)
    assert row["nothing"] == pytest.approx(0.333, abs=1e-3)
    assert row["mean_tokens"] == 15.0  # over the questions given something


def test_an_injected_line_is_traced_to_the_memory_it_shows() -> None:
    memories = {
        "m1": "User follows a strict vegan diet",
        "m2": 'On 2026-01-01 the user said: "I avoid hiking because of my knees."',
    }
    assert (
        score.memory_of("[2026-01-01, latest] User follows a strict vegan diet", memories) == "m1"
    )
    assert (
        score.memory_of('[2026-01-01] User said: "I avoid hiking because of my knees."', memories)
        == "m2"
    )
    assert score.memory_of("[2026-01-01] User likes jazz", memories) is None


def test_learned_and_dangling() -> None:
    assert score.learned(["a:0", "b:0"], {"m1": frozenset({"a:0"})}) == 0.5
    assert score.dangling("User dislikes the other options")
    assert score.dangling('On 2026-01-01 the user said: "I\'ll go with the first option."')
    assert not score.dangling("User chose option 2, the plant-based proteins")  # says what
    assert not score.dangling("User follows a strict vegan diet")


def test_generic_requests_are_a_hundred_distinct_ones() -> None:
    assert len(set(GENERIC_REQUESTS)) == len(GENERIC_REQUESTS) == 100
