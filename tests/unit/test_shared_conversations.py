"""Replicas share conversation state through the spool directory (learning/shared.py): a
Responses chain continued on any replica keeps its earlier turns, a conversation is extracted
once however its turns were spread, and a forget removes the user's shared state."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_extproc import receipts
from memory_extproc.handoff import Batch
from memory_extproc.learning import shared as shared_module
from memory_extproc.learning.shared import KEEP_S, Conversations, SharedConversations
from memory_extproc.learning.turns import CapturedTurn, Reads, TurnTracker
from memory_extproc.llm_api.requests import Turn
from memory_extproc.receipts import Learned, NotLearned, new_id
from tests.unit.test_turns import captured


def responses_turn(n: int, user: str = "alice", project: str = "") -> CapturedTurn:
    return CapturedTurn(user, project, (Turn("user", f"message {n}"),), f"answer {n}", 1000 * n,
                        response_id=f"resp-{n}",
                        previous_response_id=f"resp-{n - 1}" if n > 1 else "")  # fmt: skip


T = 1_796_601_600_000  # 2026-12-07, epoch ms
Shared = Callable[[], Conversations]  # a new store of the state replicas share, each call


@pytest.fixture
def conversations(tmp_path: Path) -> Shared:
    """The spool directory's (tests/integration/test_shared_valkey.py: Valkey's)."""
    made = itertools.count()
    return lambda: SharedConversations(tmp_path / f"spool-{next(made)}")


def replicas(
    shared: Conversations, count: int, every: int
) -> tuple[Conversations, list[TurnTracker]]:
    return shared, [TurnTracker(every, shared=shared) for _ in range(count)]


async def record(
    shared: Conversations, tracker: TurnTracker, turn: CapturedTurn, now: float
) -> Batch | None:
    """As the processor records a turn (learning/service.py): what other replicas left first."""
    return tracker.record(turn, now, await shared.elsewhere(tracker.reads(turn)))


async def idle(shared: Conversations, tracker: TurnTracker) -> list[Batch]:
    return tracker.idle(1e9, 1.0, await shared.states(tracker.idle_keys(1e9, 1.0)))


async def chain_of(shared: Conversations, user: str, response_id: str) -> str | None:
    return (await shared.elsewhere(Reads(user, response_id, ()))).chain


async def spread(
    shared: Conversations, trackers: list[TurnTracker], turns: list[CapturedTurn]
) -> list[Batch]:
    """Round robin, as Envoy gives ext_proc streams to replicas; then every idle flush."""
    batches: list[Batch] = []
    for i, turn in enumerate(turns):
        batch = await record(shared, trackers[i % len(trackers)], turn, now=float(i))
        batches += [batch] if batch is not None else []
        await shared.flushed()  # the next request reaches the other replica after this answer
    for tracker in trackers:
        batches += await idle(shared, tracker)
    return batches


# Every store of shared state: these run against Valkey too (test_shared_valkey.py).


async def test_a_responses_chain_spread_over_replicas_is_learned_as_on_one(
    conversations: Shared,
) -> None:
    chain = [responses_turn(n) for n in range(1, 21)]
    alone = await spread(*replicas(conversations(), 1, every=10), chain)
    batches = await spread(*replicas(conversations(), 3, every=10), chain)
    assert [(b.reason, b.new_turns) for b in batches] == [("every_n", 10), ("every_n", 10)]
    assert [b.messages for b in batches] == [b.messages for b in alone]
    assert batches[1].messages[0].text == "answer 8"  # the context before turn 11 came along


async def test_a_conversation_spread_over_replicas_is_extracted_once(
    conversations: Shared,
) -> None:
    shared, trackers = replicas(conversations(), 2, every=10)
    batches = await spread(shared, trackers, [captured(n) for n in range(1, 14)])
    assert [(b.reason, b.new_turns) for b in batches] == [("every_n", 10), ("idle", 3)]
    assert batches[1].last_exchange == ("question 13", "answer 13")


async def test_an_idle_flush_leaves_the_turns_to_the_replica_that_saw_a_later_one(
    conversations: Shared,
) -> None:
    shared, (first, second) = replicas(conversations(), 2, every=10)
    await record(shared, first, captured(1), now=1)
    await record(shared, first, captured(2), now=2)
    await shared.flushed()
    await record(shared, second, captured(3), now=3)
    await shared.flushed()
    assert await idle(shared, first) == []
    (batch,) = await idle(shared, second)
    assert batch.new_turns == 3


async def test_a_forget_removes_the_users_shared_state_before_it_returns(
    conversations: Shared,
) -> None:
    shared, (tracker,) = replicas(conversations(), 1, every=10)
    held = [responses_turn(1, "alice", "p1"), responses_turn(1, "alice", "p2"),
            responses_turn(1, "bob")]  # fmt: skip
    for turn in held:
        await record(shared, tracker, turn, now=1)
    await shared.flushed()
    keys = [(t.user_id, k) for t, k in zip(held, tracker._conversations, strict=True)]

    async def states() -> list[str]:
        found = await shared.states(keys)
        return [
            t.project_id or t.user_id for t, (_, k) in zip(held, keys, strict=True) if k in found
        ]

    assert await states() == ["p1", "p2", "bob"]
    await shared.forget("alice", "p1")
    assert await states() == ["p2", "bob"]
    assert await chain_of(shared, "alice", "resp-1") is not None  # p2's chain still continues
    await shared.forget("alice", None)
    assert await states() == ["bob"]
    assert await chain_of(shared, "alice", "resp-1") is None


async def test_what_compression_reads_is_the_users_alone_and_goes_with_a_forget(
    conversations: Shared,
) -> None:
    shared = conversations()
    shared.save_chunk("alice", "p1", "k1", 0, b"zero")
    shared.save_chunk("alice", "p1", "k1", 4, b"four")
    shared.save_chunk("alice", "p2", "k2", 0, b"other")
    shared.save_chunk("bob", "p1", "k1", 0, b"bob's")
    await shared.flushed()
    assert sorted(await shared.chunks("alice", "k1")) == [b"four", b"zero"]
    assert await shared.chunks("bob", "k1") == [b"bob's"]
    assert await shared.chunks("alice", "unknown") == []
    await shared.forget("alice", "p1")
    assert await shared.chunks("alice", "k1") == []
    assert await shared.chunks("alice", "k2") == [b"other"]
    await shared.forget("alice", None)
    assert await shared.chunks("alice", "k2") == []
    assert await shared.chunks("bob", "k1") == [b"bob's"]


async def test_a_receipt_is_its_users_alone_says_what_became_of_the_turn_and_goes_with_a_forget(
    conversations: Shared,
) -> None:
    shared = conversations()
    ids = {name: new_id() for name in ("p1", "p2", "bob")}
    shared.receipt("alice", "p1", ids["p1"], receipts.captured(T, ["mem_" + "a" * 32]))
    shared.receipt("alice", "p2", ids["p2"], receipts.captured(T, []))
    shared.receipt("bob", "", ids["bob"], receipts.captured(T, []))
    assert await shared.read_receipt("alice", ids["p1"]) == {
        "status": "pending", "at": "2026-12-07T00:00:00.000+00:00",
        "injected": ["mem_" + "a" * 32],
    }  # fmt: skip
    assert await shared.read_receipt("alice", ids["bob"]) is None  # bob's, asked as alice

    learned = Learned(added=("mem_" + "b" * 32,), outcomes=(("stored", 1),))
    shared.receipts_done("alice", ["", ids["p1"]], receipts.learned(learned, turns=2))
    found = await shared.read_receipt("alice", ids["p1"])
    assert found is not None
    assert (found["status"], found["injected"]) == ("learned", ["mem_" + "a" * 32])
    assert found["learning"] == {"turns": 2, "added": ["mem_" + "b" * 32], "updated": [],
                                 "ended": [], "held": [], "outcomes": {"stored": 1}}  # fmt: skip

    await shared.forget("alice", "p1")  # the project's receipts go with it, no other
    assert await shared.read_receipt("alice", ids["p1"]) is None
    assert await shared.read_receipt("alice", ids["p2"]) is not None
    shared.receipts_done("alice", [ids["p1"]], receipts.ended_without(NotLearned.FAILED))
    await shared.flushed()
    assert await shared.read_receipt("alice", ids["p1"]) is None  # not brought back
    await shared.forget("alice", None)
    assert await shared.read_receipt("alice", ids["p2"]) is None
    assert await shared.read_receipt("bob", ids["bob"]) is not None


async def test_a_restarted_processor_does_not_extract_again_what_its_predecessor_flushed(
    conversations: Shared,
) -> None:
    shared, (before,) = replicas(conversations(), 1, every=10)
    for n in (1, 2, 3):
        await record(shared, before, captured(n), now=n)
    (flushed,) = before.flush_all()  # SIGTERM: the pending turns go to the worker
    assert flushed.new_turns == 3
    await shared.flushed()
    after = TurnTracker(10, shared=shared)  # the next processor, same spool
    await record(shared, after, captured(4), now=4)
    (batch,) = await idle(shared, after)
    assert batch.new_turns == 1  # turn 4 only


async def test_an_older_state_never_replaces_a_newer_one(conversations: Shared) -> None:
    shared, (late, early) = replicas(conversations(), 2, every=10)
    await record(shared, late, captured(6), now=6)
    await shared.flushed()
    await record(shared, early, captured(5), now=5)  # recorded before, written after
    await shared.flushed()
    key = next(iter(late._conversations))
    assert (await shared.states([("alice", key)]))[key]["turn"] == 6


# The spool directory's own.


async def test_a_forget_whose_caller_stops_waiting_still_removes_the_state(
    tmp_path: Path,
) -> None:
    shared, (tracker,) = replicas(SharedConversations(tmp_path), 1, every=10)
    await record(shared, tracker, responses_turn(1, "alice"), now=1)
    busy = threading.Event()
    shared._io.submit(busy.wait)  # the writer is busy: the forget waits in its queue
    waiting = asyncio.create_task(shared.forget("alice", None))
    await asyncio.sleep(0)  # it has been asked for
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    busy.set()
    shared.flush()
    assert list((tmp_path / "conversations").glob("*/c-*.json")) == []


async def test_state_nobody_touched_for_a_day_is_pruned(tmp_path: Path) -> None:
    shared, (tracker,) = replicas(SharedConversations(tmp_path), 1, every=10)
    await record(shared, tracker, responses_turn(1), now=1)
    shared.flush()
    files = list((tmp_path / "conversations").glob("*/*.json"))
    assert len(files) == 2  # the state and the response id's conversation
    shared.prune(now=files[0].stat().st_mtime + KEEP_S - 60)
    shared.flush()
    assert all(f.exists() for f in files)
    for f in files:
        os.utime(f, (1, 1))
    shared.prune()
    shared.flush()
    assert list((tmp_path / "conversations").iterdir()) == []


async def test_what_compression_reads_is_pruned_after_its_own_time(tmp_path: Path) -> None:
    shared = SharedConversations(tmp_path, chunks_keep_s=3600)
    shared.save_chunk("alice", "", "k1", 0, b"zero")
    shared.flush()
    (folder,) = (tmp_path / "conversations").glob("*/s-k1")
    shared.prune(now=time.time() + 3000)
    shared.flush()
    assert await shared.chunks("alice", "k1") == [b"zero"]
    shared.prune(now=time.time() + 3700)
    shared.flush()
    assert not folder.exists()


async def test_damaged_shared_state_is_ignored_and_the_turn_still_counted(tmp_path: Path) -> None:
    shared, (first, second) = replicas(SharedConversations(tmp_path), 2, every=10)
    await record(shared, first, captured(1), now=1)
    shared.flush()
    (state,) = (tmp_path / "conversations").glob("*/c-*.json")
    damaged = (b"{not json", b'{"project_id": "", "state": {"turn": "x"}}', b"[1, 2]",
               b'{"project_id": ""}', b'{"state": "text"}')  # fmt: skip
    for damage in damaged:
        state.write_bytes(damage)
        assert await record(shared, second, captured(2), now=2) is None  # from the request itself
    (batch,) = await idle(shared, second)
    assert batch.new_turns == 2


async def test_shared_state_is_read_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The volume may be a network one: a slow read must not stall every stream of the
    processor, only the recording of the turn that needs it."""
    shared, (first, second) = replicas(SharedConversations(tmp_path), 2, every=10)
    await record(shared, first, responses_turn(1), now=1)
    shared.flush()
    read_on: list[threading.Thread] = []
    real = shared_module._read

    def watched(path: Path) -> object:
        read_on.append(threading.current_thread())
        return real(path)

    monkeypatch.setattr(shared_module, "_read", watched)
    await record(shared, second, responses_turn(2), now=2)  # continues resp-1: read elsewhere
    await idle(shared, second)
    assert len(read_on) >= 3  # the chain, its state, the idle flush's check
    assert threading.main_thread() not in read_on
