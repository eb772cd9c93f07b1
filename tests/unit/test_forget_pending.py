"""Forget means forget: a forget of a user (or a project) also cancels their turns still
waiting to be learned, wherever they wait, and nothing said before it is learned after it."""

from __future__ import annotations

import queue
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.handoff import Batch, ForgetCachedTexts
from memory_extproc.learning.delivery import Delivery
from memory_extproc.learning.spool import Spool
from memory_extproc.learning.turns import CapturedTurn, TurnTracker
from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import JsonSchema
from memory_extproc.memories.changes import compare
from memory_extproc.memories.facts import FactLimits
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.receipts import Learned
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.worker.jobs import LearningJobs
from memory_extproc.worker.pool import WorkerPool

T0 = 1_700_000_000_000


def turn(n: int, user: str = "alice", project: str = "", received_ms: int = 0) -> CapturedTurn:
    history: list[Turn] = []
    for i in range(1, n):
        history += [Turn("user", f"question {i}"), Turn("assistant", f"answer {i}")]
    return CapturedTurn(
        user, project, (*history, Turn("user", f"question {n}")), f"answer {n}",
        at_ms=T0, received_ms=received_ms or T0 + n,
    )  # fmt: skip


def batch(received: tuple[int, ...], new_turns: int | None = None) -> Batch:
    messages = tuple(
        t for i in range(3) for t in (Turn("user", f"said {i}"), Turn("assistant", "ok"))
    )
    count = len(received) if new_turns is None else new_turns
    return Batch("alice", "", messages, count, T0, "idle", received=received)


def test_a_batch_keeps_only_the_turns_said_after_a_forget() -> None:
    assert batch((10, 20, 30)).after(0) == batch((10, 20, 30))  # never forgotten
    later = batch((10, 20, 30)).after(20)
    assert later is not None
    assert (later.new_turns, later.received) == (1, (30,))
    assert later.said == "said 2"  # the last user message: the one said after the forget
    assert batch((10, 20, 30)).after(30) is None  # said at the same moment: forgotten too


def test_turns_of_unknown_time_count_as_said_before_any_forget() -> None:
    old_entry = batch((), new_turns=2)  # a spool entry written before turns carried times
    assert old_entry.after(0) == old_entry
    assert old_entry.after(1) is None
    partly = batch((50,), new_turns=3)  # two turns seen only in a later request's history
    kept = partly.after(40)
    assert kept is not None
    assert (kept.new_turns, kept.received) == (1, (50,))


def test_batches_carry_when_each_new_turn_was_received() -> None:
    tracker = TurnTracker(every=3)
    for n in (1, 2):
        tracker.record(turn(n, received_ms=T0 + 100 * n), now=n)
    third = tracker.record(turn(3, received_ms=T0 + 300), now=3)
    assert third is not None
    assert third.received == (T0 + 100, T0 + 200, T0 + 300)
    # a replica that never saw turns 4 and 5 knows only when turn 6 arrived
    sixth = TurnTracker(every=3).record(turn(6, received_ms=T0 + 600), now=6)
    assert sixth is not None
    assert sixth.received == (0, 0, T0 + 600)


def test_a_forget_drops_the_users_pending_turns_and_their_spool_entries() -> None:
    pending: list[tuple[str, Batch | None]] = []
    tracker = TurnTracker(every=10, on_pending=lambda key, b: pending.append((key, b)))
    for n in (1, 2, 3):
        tracker.record(turn(n), now=n)
    tracker.record(turn(1, user="bob"), now=1)
    tracker.record(turn(1, project="p1"), now=1)

    assert tracker.forget("alice", "p1") == 1  # one project: its one turn
    assert tracker.forget("alice", None) == 3  # the rest of alice's
    cleared = [b for _, b in pending[-2:]]
    assert cleared == [None, None]  # each conversation's pending spool entry is removed
    (left,) = tracker.flush_all()
    assert left.user_id == "bob"

    # the conversation goes on: what is said after the forget is learned, nothing before it
    for n in range(4, 11):
        last = tracker.record(turn(n), now=n)
    assert last is not None
    assert last.new_turns == 7
    assert [t.text for t in last.messages if t.role == "user"][-7:][0] == "question 4"


class ForgettingModel:
    """A scripted extraction model; ``during`` runs while it 'thinks' (a forget arriving in the
    middle of a job)."""

    role = "memory_extraction"

    def __init__(self, during: Callable[[], object] | None = None) -> None:
        self.during = during
        self.asked = 0

    async def complete(
        self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
    ) -> str:
        self.asked += 1
        if self.during is not None:
            await self.during()  # type: ignore[misc]
        said = messages[-1]["content"]
        facts = [{"type": "semantic", "content": "User's bike is teal"}]
        return orjson.dumps({"facts": facts if "teal" in said else []}).decode()

    async def close(self) -> None:
        return None


def jobs(store: InMemoryStore, embeddings: Embeddings, model: ForgettingModel) -> LearningJobs:
    batcher = embeddings
    return LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(store, batcher, None),
        store=None,
        extractor=model,  # type: ignore[arg-type]
        limits=FactLimits(),
    )


def teal(received_ms: int, project: str = "") -> Batch:
    said = (Turn("user", "My bike is teal"), Turn("assistant", "Lovely colour!"))
    return Batch("alice", project, said, 1, T0, "idle", received=(received_ms,))


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore()


async def test_a_turn_said_before_a_forget_never_reaches_the_model(
    store: InMemoryStore, embeddings: Embeddings
) -> None:
    model = ForgettingModel()
    said_at = T0
    await store.forget_by_scope("alice")  # after the turn was said (now > T0)
    learned = await jobs(store, embeddings, model).run(teal(said_at))  # done: not retried
    assert learned == Learned(outcomes=(("skipped_forgotten", 1),))  # its receipt says so
    assert model.asked == 0
    assert await store.list("alice") == []


async def test_what_a_job_wrote_while_a_forget_came_in_is_taken_back(
    store: InMemoryStore, embeddings: Embeddings
) -> None:
    async def forget() -> None:
        await store.forget_by_scope("alice")

    model = ForgettingModel(during=forget)
    learned = await jobs(store, embeddings, model).run(teal(T0))
    assert learned == Learned(outcomes=(("taken_back_forgotten", 1),))  # no id of it is told
    assert model.asked == 1
    assert await store.list("alice") == []
    assert store._rows == {}  # no history row either


async def test_a_forget_of_another_project_or_user_covers_nothing_here(
    store: InMemoryStore, embeddings: Embeddings
) -> None:
    await store.forget_by_scope("alice", "other-project")
    await store.forget_by_scope("bob")
    learned = await jobs(store, embeddings, ForgettingModel()).run(teal(T0, project="p1"))
    assert learned is not None
    (memory,) = await store.list("alice")
    assert memory.content == "User's bike is teal"
    assert learned.added == (memory.id,)  # what its receipt lists


def test_the_worker_is_told_to_empty_its_caches_as_soon_as_it_has_room(tmp_path: Path) -> None:
    """After a forget the worker's caches of memory texts go too: the word is put in its queue,
    or, when the queue is full, kept until the next delivery finds room, and said once."""
    worker_queue: queue.Queue[object] = queue.Queue(maxsize=1)  # the worker's queue, here full
    worker_queue.put("a batch")
    delivery = Delivery(offering(worker_queue), Spool(tmp_path, 1 << 20))
    delivery.forget_cached_texts()
    assert worker_queue.get_nowait() == "a batch"  # nothing pushed out, nothing lost
    delivery.deliver_waiting()  # the next round of deliveries
    assert isinstance(worker_queue.get_nowait(), ForgetCachedTexts)
    delivery.deliver_waiting()
    assert worker_queue.empty()


def offering(worker_queue: queue.Queue[object]) -> Callable[[object], bool]:
    def offer(item: object) -> bool:
        try:
            worker_queue.put_nowait(item)
        except queue.Full:
            return False
        return True

    return offer


async def test_the_worker_empties_its_caches_of_memory_texts_when_told(
    store: InMemoryStore, embeddings: Embeddings
) -> None:
    learning = jobs(store, embeddings, ForgettingModel())
    compare("User's favourite colour is teal now", "User's favourite colour is teal")
    assert compare.cache_info().currsize > 0
    learning.forget_cached_texts()
    assert compare.cache_info().currsize == 0
