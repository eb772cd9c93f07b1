"""The processor's learning service records captured turns in order, off the request: a forget
takes every turn captured before it, even one whose recording still waits on a slow read of
what other replicas left (learning/service.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from prometheus_client import REGISTRY

from memory_extproc.compression.state import Chunk, assemble, chunk, word_ids
from memory_extproc.config import parse
from memory_extproc.handoff import Batch
from memory_extproc.learning import service as service_module
from memory_extproc.learning.service import LearningService
from memory_extproc.learning.shared import SharedConversations
from memory_extproc.learning.turns import CapturedTurn, Elsewhere, Reads
from memory_extproc.llm_api.requests import Turn
from tests.unit.test_turns import captured


class NoWorker:
    """The worker process, not started: takes every batch, reports nothing."""

    died = False
    exitcode = None

    def __init__(self, config: Any) -> None:
        self.offered: list[object] = []

    def spawn(self) -> None:
        pass

    def offer(self, item: object) -> bool:
        self.offered.append(item)
        return True

    async def events(self, timeout_s: float) -> list[Any]:
        await asyncio.Event().wait()  # never: cancelled at stop
        return []

    async def stop(self, grace_s: float, relay: Any) -> None:
        pass


def without_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every: int) -> LearningService:
    """The processor's learning side, its spool in ``tmp_path``, with no worker process."""
    monkeypatch.setattr(service_module, "WorkerProcess", NoWorker)
    config = parse({"memory": {"extraction": {"spool_dir": str(tmp_path)}}})
    return LearningService(config=config, tracker_every=every, mode="llm")


def forgotten_pending() -> float:
    sample = REGISTRY.get_sample_value("memory_turns_forgotten_total", {"stage": "pending"})
    return sample or 0.0


async def test_a_forget_takes_a_turn_whose_recording_still_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_done = asyncio.Event()  # the slow volume answers once the forget has been asked
    real_read = SharedConversations.elsewhere

    async def slow_read(self: SharedConversations, reads: Reads) -> Elsewhere:
        await read_done.wait()
        return await real_read(self, reads)

    monkeypatch.setattr(SharedConversations, "elsewhere", slow_read)
    learning = without_worker(tmp_path, monkeypatch, every=10)
    queued = learning._steps.put_nowait

    def forget_queued(step: Any) -> None:
        queued(step)
        read_done.set()

    await learning.start()
    try:
        learning.capture(captured(1))  # its recording waits on the read
        monkeypatch.setattr(learning._steps, "put_nowait", forget_queued)
        before = forgotten_pending()
        await learning.forget("alice", None)
        assert forgotten_pending() == before + 1  # recorded first, then dropped
    finally:
        read_done.set()
        await learning.stop(0)


def every_file(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


CARD = "4111 1111 1111 1111"
KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345"


async def test_a_secret_said_in_chat_is_never_written_to_the_spool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not in a pending conversation, a batch for the worker, or the conversation state kept for
    other replicas: every file the processor writes holds the turn masked."""
    learning = without_worker(tmp_path, monkeypatch, every=2)
    said = f"My card is {CARD} and my OpenAI key is {KEY}. I live in Lisbon."
    await learning.start()
    try:
        learning.capture(CapturedTurn("alice", "", (Turn("user", said),), "Noted.", at_ms=1000))
        await learning._steps.join()  # recorded: pending, in the spool and the shared state…
        await asyncio.gather(learning._spool.flushed(), learning._shared.flushed())  # …on disk
        written = every_file(tmp_path)
        assert b"Lisbon" in written  # what is kept is there…
        for secret in (CARD, KEY, CARD.replace(" ", "")):
            assert secret.encode() not in written  # …and no secret
    finally:
        await learning.stop(0)
    offered = [b for b in learning._worker.offered if isinstance(b, Batch)]  # type: ignore[attr-defined]
    assert offered
    said_on = [t.text for b in offered for t in b.messages]
    assert not [t for t in said_on if CARD in t or KEY in t]


async def test_what_compression_reads_grows_in_runs_and_never_from_turns_a_forget_covered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch's chunk joins the run before it (a request reads a few chunks, not one per
    batch); one whose turns came before a forget here is not kept, whatever the worker wrote."""
    learning = without_worker(tmp_path, monkeypatch, every=10)

    def batch(first: int, received: int) -> tuple[Batch, Chunk]:
        made = chunk(first, 1, [np.ones(4, np.float32)] * 2, [word_ids([])] * 2, f"t{first}")
        return Batch("ana", "", (), 1, 1, "idle", received=(received,), conversation="c1",
                     size=first + 2, fresh=2), made  # fmt: skip

    learning._keep_chunk(*batch(0, received=100))
    learning._keep_chunk(*batch(2, received=200))
    await learning._shared.flushed()
    (run,) = [Chunk.decode(raw) for raw in await learning.chunks("ana", "c1")]
    assert run is not None
    assert (run.first, run.end, run.tail) == (0, 4, "t2")
    learning._forgotten["ana"] = 300  # a forget here, after those turns
    learning._keep_chunk(*batch(4, received=250))  # said before it: not kept
    await learning._shared.flushed()
    index = assemble(c for c in map(Chunk.decode, await learning.chunks("ana", "c1")) if c)
    assert index is not None
    assert index.upto == 4


async def test_the_memory_api_shows_a_conversations_running_state_and_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    learning = without_worker(tmp_path, monkeypatch, every=10)
    state = "About: a move to Porto\nKnown: rent 900 euros"
    for first, summary in ((0, ""), (2, state)):
        made = chunk(first, 1_700_000_000_000 + first, [np.ones(4, np.float32)] * 2,
                     [word_ids([])] * 2, f"t{first}", summary)  # fmt: skip
        learning._keep_chunk(Batch("ana", "", (), 1, 1, "idle", conversation="c1",
                                   size=first + 2, fresh=2), made)  # fmt: skip
    await learning._shared.flushed()
    shown = await learning.conversation("ana", "c1")
    assert shown is not None
    assert (shown["messages_read"], shown["compressible_upto"], shown["state"]) == (4, 4, state)
    assert await learning.conversation("bob", "c1") is None  # another user's: none
