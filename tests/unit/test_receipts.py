"""A turn's receipt (memory_extproc/receipts.py): named in the answer's header, carried with the
turn into its batch, told what the worker made of the batch, and read back by its user alone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from memory_extproc import receipts
from memory_extproc.api.service import MemoryApi
from memory_extproc.config import parse
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.handoff import Batch
from memory_extproc.learning import service as service_module
from memory_extproc.learning.service import LearningService
from memory_extproc.learning.shared import SharedConversations
from memory_extproc.learning.spool import decode, encode
from memory_extproc.learning.turns import TurnTracker
from memory_extproc.llm_api.requests import Turn
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.receipts import Learned, is_receipt_id, new_id
from memory_extproc.store.memory import InMemoryStore
from tests.unit.test_learning_jobs import T0, jobs_on
from tests.unit.test_learning_service import NoWorker
from tests.unit.test_shared_conversations import idle, record
from tests.unit.test_turns import captured


async def test_a_batch_carries_the_receipts_of_its_new_turns_across_replicas(
    tmp_path: Path,
) -> None:
    """Turns 1-2 seen by one replica, 3 by another: the batch names all three receipts."""
    shared = SharedConversations(tmp_path)
    first, second = TurnTracker(3, shared=shared), TurnTracker(3, shared=shared)
    named = [new_id() for _ in range(4)]
    for n in (1, 2):
        assert await record(shared, first, captured(n, receipt=named[n - 1]), now=n) is None
        await shared.flushed()
    batch = await record(shared, second, captured(3, receipt=named[2]), now=3)
    assert batch is not None
    assert batch.receipts == tuple(named[:3])
    assert await record(shared, second, captured(4, receipt=named[3]), now=4) is None
    (later,) = await idle(shared, second)
    assert later.receipts == (named[3],)  # the next batch's
    await shared.aclose()


def test_turns_dropped_for_a_forget_take_their_receipts_out_of_the_batch() -> None:
    batch = Batch("alice", "", (), 3, T0, "idle", received=(10, 20, 30), receipts=("a", "b", "c"))
    later = batch.after(20)
    assert later is not None
    assert (later.received, later.receipts) == ((30,), ("c",))


def test_a_batch_kept_in_the_spool_keeps_its_receipts() -> None:
    batch = Batch("alice", "", (Turn("user", "hi"),), 1, T0, "idle", receipts=(new_id(),))
    assert decode(encode(batch)) == batch


async def test_the_receipt_lists_what_the_job_added_updated_and_ended(
    embeddings: Embeddings,
) -> None:
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, None)  # notes: every statement kept
    added = []
    for at, said in enumerate(("I live in Denver.", "I go to a climbing gym in Denver.")):
        learned = await jobs.run(Batch("alice", "", _turns(said), 1, T0 + at, "idle"))
        assert learned is not None
        assert dict(learned.outcomes) == {"stored": 1}
        added += learned.added
    held = {m.content: m.id for m in await store.list("alice")}
    assert sorted(added) == sorted(held.values())
    home, gym = (next(i for text, i in held.items() if word in text) for word in ("live", "gym"))
    moved = _turns("I moved to Seattle last month.")
    second = await jobs.run(Batch("alice", "", moved, 1, T0 + 86_400_000, "idle"))
    assert second is not None
    assert second.updated == (home,)  # the home, revised: its history keeps Denver
    assert second.ended == (gym,)  # the gym in Denver, true until the move
    assert second.added == ()


def _turns(*said: str) -> tuple[Turn, ...]:
    return tuple(t for text in said for t in (Turn("user", text), Turn("assistant", "Noted.")))


class ReportingWorker(NoWorker):
    """Learns each batch at once and reports it done, as the worker process does."""

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.reports: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def offer(self, item: object) -> bool:
        if isinstance(item, Batch):
            learned = Learned(added=("mem_" + "b" * 32,), outcomes=(("stored", 1),))
            self.reports.put_nowait(("done", (item.entry, learned)))
        return super().offer(item)

    async def events(self, timeout_s: float) -> list[Any]:
        return [await self.reports.get()]


async def test_a_captured_turn_is_pending_then_says_what_its_batch_learned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "WorkerProcess", ReportingWorker)
    config = parse({"memory": {"extraction": {"spool_dir": str(tmp_path)}}})
    learning = LearningService(config=config, tracker_every=2, mode="llm")
    named = [new_id(), new_id()]
    await learning.start()
    try:
        learning.capture(captured(1, receipt=named[0], injected=("mem_" + "a" * 32,)))
        await learning._steps.join()
        await learning._shared.flushed()
        found = await learning.receipt("alice", named[0])
        assert found is not None
        assert (found["status"], found["injected"]) == ("pending", ["mem_" + "a" * 32])
        learning.capture(captured(2, receipt=named[1]))  # the second of two: a batch
        for receipt_id in named:
            found = await _when_learned(learning, receipt_id)
            assert found["learning"]["added"] == ["mem_" + "b" * 32]
            assert found["learning"]["turns"] == 2  # learned together
        assert await learning.receipt("bob", named[0]) is None
    finally:
        await learning.stop(0)


async def _when_learned(learning: LearningService, receipt_id: str) -> dict[str, Any]:
    async with asyncio.timeout(10):
        while True:  # the worker's report is relayed by the service's own task
            await learning._shared.flushed()
            found = await learning.receipt("alice", receipt_id)
            if found is not None and found["status"] == "learned":
                return found
            await asyncio.sleep(0.01)


class DownStore(InMemoryStore):
    @property
    def available(self) -> bool:
        return False


class Receipts:
    def __init__(self) -> None:
        self.held = {("alice", "rcpt_" + "c" * 32): {"status": "pending", "injected": []}}

    async def __call__(self, user_id: str, receipt_id: str) -> dict[str, Any] | None:
        return self.held.get((user_id, receipt_id))


@pytest.mark.parametrize(
    ("user", "path", "status"),
    [
        ("alice", "/v1/memory/receipts/rcpt_" + "c" * 32, 200),
        ("bob", "/v1/memory/receipts/rcpt_" + "c" * 32, 404),  # alice's, asked as bob
        ("alice", "/v1/memory/receipts/rcpt_" + "d" * 32, 404),
        ("alice", "/v1/memory/receipts/../../etc", 400),
        ("alice", "/v1/memory/receipts/rcpt_" + "c" * 31 + "g", 400),
    ],
)
async def test_a_receipt_is_read_by_its_user_alone_even_with_milvus_down(
    embeddings: Embeddings, user: str, path: str, status: int
) -> None:
    store = DownStore()
    api = MemoryApi(
        store, embeddings, MemoryWriter(store, embeddings, None), default_threshold=0.3,
        receipts=Receipts(),
    )  # fmt: skip
    reply = await api.respond("GET", path, "", b"", user, "")
    assert reply.status == status
    if status == 200:
        assert orjson.loads(reply.body) == {
            "id": "rcpt_" + "c" * 32, "status": "pending", "injected": [],
        }  # fmt: skip


def test_receipt_ids_are_unguessable_and_checked_whole() -> None:
    made = {new_id() for _ in range(1000)}
    assert len(made) == 1000
    assert all(is_receipt_id(r) for r in made)
    assert not is_receipt_id(next(iter(made)) + "\n")


def test_a_receipt_names_what_its_learning_held_for_review_apart_from_what_it_added() -> None:
    held, added = "mem_" + "c" * 32, "mem_" + "d" * 32
    learning = receipts.learned(Learned(added=(added,), held=(held,)), turns=1)["learning"]
    assert (learning["added"], learning["held"]) == ([added], [held])
