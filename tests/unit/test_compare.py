"""`make compare`'s pure parts: what mem0 is fed and asked, and how its answers are judged."""

from __future__ import annotations

import pytest

from compare.__main__ import mem0_passes, mem0_steps, slice_questions
from eval import replay
from scenarios.cases import SCENARIOS

pytestmark = pytest.mark.skipif(
    not replay.LOCOMO.exists(), reason=f"LoCoMo data not found at {replay.LOCOMO}"
)


def test_mem0_is_fed_each_session_from_each_side_then_asked_each_question() -> None:
    steps, asked, scenarios = mem0_steps()
    adds = [s for s in steps if s.get("session")]
    users = {s["user_id"] for s in adds}
    assert users == {f"locomo-{c}-{side}" for c in ("conv-26", "conv-30") for side in "ab"}
    assert all(s["date"].startswith("20") for s in adds)  # dated: replayed history
    first = adds[0]["messages"]
    assert {m["role"] for m in first} == {"user", "assistant"}
    assert first[-1]["role"] == "assistant"  # the session ends with the other speaker's answer
    searches = [s for s in steps if s["op"] == "search"]
    assert len(searches) == len(asked) + len(SCENARIOS)
    assert asked == slice_questions()
    assert searches[0]["user_id"] == f"locomo-{asked[0].sample_id}-{asked[0].side}"
    assert [s for s in steps if s["op"] == "turn"]  # the scenarios, played as an app would
    assert scenarios == list(SCENARIOS)


def test_mem0_passes_a_scenario_only_without_the_old_value() -> None:
    (hawaii,) = [s for s in SCENARIOS if s.number == 1]
    updated = "User's budget for the Hawaii trip is $15,000"
    assert mem0_passes(hawaii, [updated])
    assert not mem0_passes(hawaii, [updated, "User's budget for the Hawaii trip is $10,000"])
    assert not mem0_passes(hawaii, ["User is going to Hawaii"])
