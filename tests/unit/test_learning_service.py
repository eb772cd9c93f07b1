"""The processor's learning service records captured turns in order, off the request: a forget
takes every turn captured before it, even one whose recording still waits on a slow read of
what other replicas left (learning/service.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY

from memory_extproc.config import parse
from memory_extproc.learning import service as service_module
from memory_extproc.learning.service import LearningService
from memory_extproc.learning.shared import SharedConversations
from memory_extproc.learning.turns import Elsewhere, Reads
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
    monkeypatch.setattr(service_module, "WorkerProcess", NoWorker)
    config = parse({"memory": {"extraction": {"spool_dir": str(tmp_path)}}})
    learning = LearningService(config=config, tracker_every=10, mode="llm")
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
