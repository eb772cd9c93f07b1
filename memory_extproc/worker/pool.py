"""A bounded worker pool on the event loop: the response path hands over work and never waits.

* ``submit`` never blocks: a full queue drops the job and counts it.
* At most ``concurrency`` jobs run at once, each within ``job_timeout_s``; one user's jobs run one
  after another, so two of them never reconcile against the same memories at the same time.
* ``drain`` (on SIGTERM) stops intake and lets queued jobs finish within a grace period; whatever
  is left then is either the spool's (it comes back on the next start) or counted as dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from memory_extproc import metrics

log = logging.getLogger(__name__)

JobFn = Callable[[], Awaitable[bool | None]]  # False: it failed, and may succeed later
DoneFn = Callable[[bool], None]  # told whether the job should be tried again


@dataclass(frozen=True, slots=True)
class _Job:
    key: str  # jobs with the same key (a user) never run concurrently
    run: JobFn
    name: str
    on_done: DoneFn | None = None  # it ran: done, or (failed, timed out, crashed) to retry


class WorkerPool:
    def __init__(self, *, queue_size: int, concurrency: int, job_timeout_s: float) -> None:
        self._queue: asyncio.Queue[_Job] = asyncio.Queue(maxsize=queue_size)
        self._concurrency = concurrency
        self._timeout = job_timeout_s
        self._workers: list[asyncio.Task[None]] = []
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._accepting = True
        self._taken = asyncio.Event()  # a job left the queue: there is room

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._workers = [loop.create_task(self._work()) for _ in range(self._concurrency)]

    def submit(
        self, key: str, run: JobFn, name: str = "job", on_done: DoneFn | None = None
    ) -> bool:
        """False when full or draining. A job with ``on_done`` is the caller's to keep and offer
        again (it is in the spool); one without is dropped, and counted."""
        if not self._accepting:
            if on_done is None:
                metrics.EXTRACTION_DROPPED.labels("shutdown").inc()
            return False
        try:
            self._queue.put_nowait(_Job(key, run, name, on_done))
        except asyncio.QueueFull:
            if on_done is None:
                metrics.EXTRACTION_DROPPED.labels("queue_full").inc()
                log.warning("Extraction queue full, job dropped", extra={"job": name})
            return False
        metrics.EXTRACTION_QUEUE_DEPTH.set(self._queue.qsize())
        return True

    async def room(self, timeout_s: float) -> None:
        """Return once a job has left the queue, or after ``timeout_s``."""
        self._taken.clear()
        if not self._queue.full():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._taken.wait()

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
        dropped = kept = 0
        while not self._queue.empty():
            job = self._queue.get_nowait()
            self._queue.task_done()
            if job.on_done is None:
                dropped += 1
            else:
                kept += 1  # its batch stays in the spool and comes back on the next start
        if dropped:
            metrics.EXTRACTION_DROPPED.labels("shutdown").inc(dropped)
            log.warning(
                "Shutdown grace period over, extraction jobs dropped", extra={"jobs": dropped}
            )
        if kept:
            log.info("Shutdown grace period over, jobs left to the spool", extra={"jobs": kept})
        metrics.EXTRACTION_QUEUE_DEPTH.set(0)
        return dropped

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            self._taken.set()
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
        failed = True
        try:
            async with lock, asyncio.timeout(self._timeout):
                failed = await job.run() is False
        except TimeoutError:
            metrics.EXTRACTION_JOBS.labels("timeout").inc()
            log.warning(
                "Extraction job timed out", extra={"job": job.name, "timeout_s": self._timeout}
            )
        except asyncio.CancelledError:
            raise  # not done: a spooled job comes back
        except Exception:
            metrics.EXTRACTION_JOBS.labels("crashed").inc()
            log.exception("Extraction job crashed", extra={"job": job.name})
        finally:
            metrics.EXTRACTION_JOB_SECONDS.observe(time.perf_counter() - started)
        if job.on_done is not None:
            job.on_done(failed)
        elif failed:
            metrics.EXTRACTION_DROPPED.labels("failed").inc()
