from __future__ import annotations

import dataclasses

from memory_extproc.compression.state import conversation_key, fingerprint
from memory_extproc.learning.turns import CONTEXT_MESSAGES, CapturedTurn, TurnTracker, as_sent
from memory_extproc.llm_api.requests import Turn


def chat_history(n: int) -> tuple[Turn, ...]:
    """A Chat Completions request at turn n: system prompt, n-1 exchanges, the n-th question."""
    turns = [Turn("system", "be helpful")]
    for i in range(1, n):
        turns += [Turn("user", f"question {i}"), Turn("assistant", f"answer {i}")]
    return (*turns, Turn("user", f"question {n}"))


def captured(n: int, user: str = "alice", **kwargs: object) -> CapturedTurn:
    return CapturedTurn(user, "", chat_history(n), f"answer {n}", at_ms=1000 * n, **kwargs)  # type: ignore[arg-type]


def test_every_n_turns_on_the_new_turns_plus_context() -> None:
    tracker = TurnTracker(every=3)
    assert tracker.record(captured(1), now=1) is None
    assert tracker.record(captured(2), now=2) is None
    batch = tracker.record(captured(3), now=3)
    assert batch is not None
    assert batch.reason == "every_n"
    assert batch.new_turns == 3
    assert [t.text for t in batch.messages] == [
        "question 1", "answer 1", "question 2", "answer 2", "question 3", "answer 3",
    ]  # fmt: skip
    assert batch.last_exchange == ("question 3", "answer 3")
    assert tracker.record(captured(4), now=4) is None
    sixth = tracker.record(captured(6), now=6)
    assert sixth is not None
    assert [t.text for t in sixth.messages][: CONTEXT_MESSAGES] == [
        "answer 1", "question 2", "answer 2", "question 3", "answer 3",
    ]  # fmt: skip
    assert [t.text for t in sixth.messages][CONTEXT_MESSAGES:] == [
        "question 4", "answer 4", "question 5", "answer 5", "question 6", "answer 6",
    ]  # fmt: skip
    assert all(t.role != "system" for t in sixth.messages)


def test_the_trigger_needs_no_memory_of_earlier_requests() -> None:
    """A replica that never saw turns 1-9 still extracts at turn 10, from the request alone."""
    batch = TurnTracker(every=10).record(captured(10), now=10)
    assert batch is not None
    assert batch.new_turns == 10


def test_idle_conversations_are_flushed_once() -> None:
    tracker = TurnTracker(every=10)
    tracker.record(captured(1), now=100)
    tracker.record(captured(2), now=110)
    assert tracker.idle(now=150, idle_s=60) == []
    (batch,) = tracker.idle(now=171, idle_s=60)
    assert batch.reason == "idle"
    assert batch.new_turns == 2
    assert batch.at_ms == 2000
    assert tracker.idle(now=1000, idle_s=60) == []
    # the conversation goes on: turn 10 extracts only what the idle flush did not
    for n in range(3, 10):
        tracker.record(captured(n), now=1000 + n)
    tenth = tracker.record(captured(10), now=1010)
    assert tenth is not None
    assert tenth.new_turns == 8


def test_users_and_conversations_are_kept_apart() -> None:
    tracker = TurnTracker(every=2)
    tracker.record(captured(1, "alice"), now=1)
    tracker.record(captured(1, "bob"), now=1)
    other = CapturedTurn("alice", "", (Turn("user", "question 1"),), "a different answer", at_ms=5)
    tracker.record(other, now=1)
    batches = tracker.idle(now=100, idle_s=10)
    assert sorted(b.user_id for b in batches) == ["alice", "alice", "bob"]


def test_responses_api_chains_carry_history_the_request_does_not() -> None:
    tracker = TurnTracker(every=2)
    first = CapturedTurn(
        "alice",
        "",
        (Turn("user", "I plan a trip to Hawaii"),),
        "Nice!",
        at_ms=1,
        response_id="resp_1",
    )
    assert tracker.record(first, now=1) is None
    second = CapturedTurn(
        "alice", "", (Turn("user", "Budget is $10,000"),), "Noted.", at_ms=2,
        response_id="resp_2", previous_response_id="resp_1",
    )  # fmt: skip
    batch = tracker.record(second, now=2)
    assert batch is not None
    assert [t.text for t in batch.messages] == [
        "I plan a trip to Hawaii", "Nice!", "Budget is $10,000", "Noted.",
    ]  # fmt: skip
    unknown = CapturedTurn(
        "alice",
        "",
        (Turn("user", "And flights?"),),
        "Sure.",
        at_ms=3,
        previous_response_id="resp_x",
    )
    assert tracker.record(unknown, now=3) is None  # a chain we never saw starts afresh


def test_a_response_id_of_another_user_is_no_way_into_their_conversation() -> None:
    """An attacker naming the victim's response id as previous_response_id got the victim's
    pending turns batched (and learned) under the attacker's user id."""
    tracker = TurnTracker(every=2)
    victim = CapturedTurn(
        "victim", "", (Turn("user", "My bank PIN is 4417"),), "Noted.", at_ms=1,
        response_id="resp_v",
    )  # fmt: skip
    assert tracker.record(victim, now=1) is None
    for user, project in (("attacker", ""), ("victim", "other-project")):
        follow = CapturedTurn(
            user, project, (Turn("user", "Go on"),), "Sure.", at_ms=2,
            previous_response_id="resp_v",
        )  # fmt: skip
        assert tracker.record(follow, now=2) is None  # a conversation of its own, 1 turn
    batches = tracker.flush_all()
    assert sorted((b.user_id, [t.text for t in b.messages]) for b in batches) == [
        ("attacker", ["Go on", "Sure."]),
        ("victim", ["Go on", "Sure."]),
        ("victim", ["My bank PIN is 4417", "Noted."]),
    ]


def test_a_statement_answered_through_a_tool_is_noted_once() -> None:
    """The loop's first answer is a tool call (no text: not captured); the requests that end
    with the tool's output carry the user's message and the answers to it."""
    tracker = TurnTracker(every=1)
    loop = (Turn("user", "I moved to Lisbon last week"), Turn("assistant", ""),
            Turn("tool", "sunny, 24 C"))  # fmt: skip
    first = tracker.record(CapturedTurn("alice", "", loop, "Welcome! It's sunny.", at_ms=1), 1)
    assert first is not None
    assert [t.text for t in first.messages] == [
        "I moved to Lisbon last week",
        "Welcome! It's sunny.",
    ]
    again = (*loop, Turn("assistant", "Welcome! It's sunny."), Turn("tool", "rain tomorrow"))
    assert tracker.record(CapturedTurn("alice", "", again, "Rain tomorrow.", at_ms=2), 2) is None


def test_state_is_bounded() -> None:
    tracker = TurnTracker(every=5, max_conversations=3)
    for i in range(10):
        tracker.record(CapturedTurn(f"user{i}", "", (Turn("user", "q"),), "a", at_ms=i), now=i)
    assert len(tracker.idle(now=100, idle_s=1)) == 3


def test_flush_all_on_shutdown() -> None:
    tracker = TurnTracker(every=10)
    tracker.record(captured(4), now=1)
    (batch,) = tracker.flush_all()
    assert batch.new_turns == 4


def test_a_batch_names_what_compression_reads_it_by_as_the_client_sent_it() -> None:
    """Counted before any masking: a request resends the conversation as the client wrote it."""
    tracker = TurnTracker(every=3)
    for n in (1, 2):
        tracker.record(dataclasses.replace(captured(n), **as_sent(captured(n))), now=n)
    third = captured(3)
    batch = tracker.record(dataclasses.replace(third, **as_sent(third)), now=3)
    assert batch is not None
    assert batch.size == 6  # three questions and three answers; the system prompt is not one
    assert batch.fresh == 6
    assert batch.tail == fingerprint("answer 3")
    assert batch.conversation == conversation_key("alice", "", "question 1", "answer 1")


def test_a_batch_counts_the_assistants_messages_no_request_was_answered_with() -> None:
    """A conversation where the assistant spoke twice in a row (a new session it opened):
    every message since the last batch is fresh, so what compression reads has no gap."""
    tracker = TurnTracker(every=2)
    history = chat_history(3)
    for n, turns in ((2, history[:4]), (3, (*history[:5], Turn("assistant", "Hi again!"),
                                            history[5]))):  # fmt: skip
        turn = CapturedTurn("alice", "", turns, f"answer {n}", at_ms=n)
        batch = tracker.record(dataclasses.replace(turn, **as_sent(turn)), now=n)
    assert batch is None
    (idle,) = tracker.idle(now=100, idle_s=1)
    assert (idle.size, idle.fresh) == (7, 3)  # "Hi again!", question 3, answer 3


def test_a_conversation_that_asked_for_compression_keeps_its_state_from_batch_to_batch() -> None:
    tracker = TurnTracker(every=2)
    tracker.record(captured(1), now=1)
    first = tracker.record(dataclasses.replace(captured(2), compress=True), now=2)
    assert first is not None
    assert (first.summarize, first.summary) == (True, "")
    tracker.summarized(first.conversation, "About: a trip")
    tracker.record(captured(3), now=3)
    later = tracker.record(captured(4), now=4)  # not asked again: kept all the same
    assert later is not None
    assert (later.summarize, later.summary) == (True, "About: a trip")
    other = TurnTracker(every=2).record(captured(2, user="bob"), now=2)
    assert other is not None
    assert not other.summarize  # nobody asked: no model call for it
