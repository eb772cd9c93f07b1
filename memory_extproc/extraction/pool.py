"""A bounded worker pool on the event loop: the response path hands over work and never waits.

* ``submit`` never blocks: a full queue drops the job and counts it.
* At most ``concurrency`` jobs run at once, each within ``job_timeout_s``; one user's jobs run one
  after another, so two of them never reconcile against the same memories at the same time.
* ``drain`` (on SIGTERM) stops intake and lets queued jobs finish within a grace period; whatever
  is left then is counted as dropped, never silently lost.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from memory_extproc import metrics

log = logging.getLogger(__name__)

JobFn = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class _Job:
    key: str  # jobs with the same key (a user) never run concurrently
    run: JobFn
    name: str


class WorkerPool:
    def __init__(self, *, queue_size: int, concurrency: int, job_timeout_s: float) -> None:
        self._queue: asyncio.Queue[_Job] = asyncio.Queue(maxsize=queue_size)
        self._concurrency = concurrency
        self._timeout = job_timeout_s
        self._workers: list[asyncio.Task[None]] = []
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._accepting = True

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._workers = [loop.create_task(self._work()) for _ in range(self._concurrency)]

    def submit(self, key: str, run: JobFn, name: str = "job") -> bool:
        if not self._accepting:
            metrics.EXTRACTION_DROPPED.labels("shutdown").inc()
            return False
        try:
            self._queue.put_nowait(_Job(key, run, name))
        except asyncio.QueueFull:
            metrics.EXTRACTION_DROPPED.labels("queue_full").inc()
            log.warning("Extraction queue full, turn dropped", extra={"job": name})
            return False
        metrics.EXTRACTION_QUEUE_DEPTH.set(self._queue.qsize())
        return True

    async def drain(self, grace_s: float) -> int:
        """Finish what is queued within ``grace_s``; returns how many jobs were dropped."""
        self._accepting = False
        try:
            async with asyncio.timeout(grace_s):
                await self._queue.join()
        except TimeoutError:
            pass
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        dropped = 0
        while not self._queue.empty():
            self._queue.get_nowait()
            self._queue.task_done()
            dropped += 1
        if dropped:
            metrics.EXTRACTION_DROPPED.labels("shutdown").inc(dropped)
            log.warning(
                "Shutdown grace period over, extraction jobs dropped", extra={"jobs": dropped}
            )
        metrics.EXTRACTION_QUEUE_DEPTH.set(0)
        return dropped

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            metrics.EXTRACTION_QUEUE_DEPTH.set(self._queue.qsize())
            try:
                await self._run(job)
            finally:
                self._queue.task_done()

    async def _run(self, job: _Job) -> None:
        lock = self._locks.get(job.key)
        if lock is None:
            lock = self._locks[job.key] = asyncio.Lock()
        started = time.perf_counter()
        try:
            async with lock, asyncio.timeout(self._timeout):
                await job.run()
        except TimeoutError:
            metrics.EXTRACTION_DROPPED.labels("timeout").inc()
            metrics.EXTRACTION_JOBS.labels("timeout").inc()
            log.warning(
                "Extraction job timed out", extra={"job": job.name, "timeout_s": self._timeout}
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            metrics.EXTRACTION_JOBS.labels("crashed").inc()
            log.exception("Extraction job crashed", extra={"job": job.name})
        finally:
            metrics.EXTRACTION_JOB_SECONDS.observe(time.perf_counter() - started)
