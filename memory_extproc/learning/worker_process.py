"""The worker child process as the processor sees it: spawned with fresh queues, fed without
ever blocking, its events read, restarted when it dies, drained and stopped at shutdown."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import queue
import time
from multiprocessing.context import SpawnProcess
from typing import Any

from memory_extproc.config import Config
from memory_extproc.worker import main as worker

log = logging.getLogger(__name__)


class WorkerProcess:
    def __init__(self, config: Config) -> None:
        self._config = config
        self._batches: Any = None
        self._events: Any = None
        self._stop: Any = None
        self._process: SpawnProcess | None = None

    def spawn(self) -> None:
        """A worker with fresh queues: a process killed inside ``get`` keeps the queue's lock
        forever."""
        context = multiprocessing.get_context("spawn")
        self._batches = context.Queue(maxsize=self._config.memory.extraction.queue_size)
        self._events = context.Queue()
        self._stop = context.Event()
        self._process = worker.spawn(self._config, self._batches, self._events, self._stop)

    @property
    def died(self) -> bool:
        return self._process is not None and not self._process.is_alive()

    @property
    def exitcode(self) -> int | None:
        return self._process.exitcode if self._process is not None else None

    def offer(self, item: object) -> bool:
        """Hand ``item`` over if the worker's queue has room (False: it is full)."""
        if self._batches is None:
            return False
        try:
            self._batches.put_nowait(item)
        except queue.Full:
            return False
        return True

    async def events(self, timeout_s: float) -> list[Any]:
        """What the worker reported, waiting up to ``timeout_s`` for the first."""
        return await asyncio.to_thread(worker.drain_events, self._events, timeout_s)

    async def stop(self, grace_s: float, relay: Any) -> None:
        """Ask the worker to drain and exit; ``relay`` gets its events meanwhile (a worker whose
        last metrics cannot be written to a full pipe never exits: multiprocessing joins its
        feeder). Killed if it is not done within the grace period."""
        process = self._process
        if process is None:
            return
        self._stop.set()
        deadline = time.monotonic() + grace_s + 15
        while process.is_alive() and time.monotonic() < deadline:
            relay(await self.events(0.5))
        if process.is_alive():
            log.error("Extraction worker did not stop in time; killed")
            process.kill()
        relay(worker.drain_events(self._events, 0.5))
