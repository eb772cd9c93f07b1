"""The processor's side of learning: captured turns become batches the worker learns from.

``capture`` counts the turn, maybe cuts a batch, keeps it in the spool and hands it to the worker
process (worker/main.py) through a bounded queue, then returns: the answer never waits for memory.
It also hands over the usage counts of injected memories, restarts a dead worker (delivering
again what it held) and offers failed batches again later.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import itertools
import logging
import multiprocessing
import queue
import time
from collections.abc import Sequence
from multiprocessing.context import SpawnProcess
from typing import Any

from memory_extproc import metrics
from memory_extproc.config import Config
from memory_extproc.learning.shared import SharedConversations
from memory_extproc.learning.spool import Spool
from memory_extproc.learning.turns import CapturedTurn, TurnTracker
from memory_extproc.memories.retention import UsageTracker
from memory_extproc.worker import main as worker
from memory_extproc.worker.inbox import Batch, ForgetCachedTexts

log = logging.getLogger(__name__)
RETRY_ATTEMPTS = 4  # a failed batch is tried again after 5, 15 and 45 s, then dropped
RETRY_FIRST_S = 5.0
ADOPT_EVERY_S = 5.0  # how soon a dead sibling's spooled turns are taken over
PRUNE_EVERY = 720  # adoption rounds between prunes of the shared conversation state (1 h)


class LearningService:
    """Processor side: counts turns, cuts batches, keeps them in the spool until the worker has
    learned from them, feeds the worker process, relays its metrics, restarts it if it dies
    (delivering what it held again), and drains it on shutdown."""

    def __init__(
        self,
        *,
        config: Config,
        tracker_every: int,
        mode: str,
        usage: UsageTracker | None = None,
    ) -> None:
        self.mode = mode
        self._config = config
        extraction = config.memory.extraction
        self._shared = SharedConversations(extraction.spool_path)
        self._tracker = TurnTracker(
            tracker_every,
            max_conversations=extraction.max_conversations,
            on_pending=self._on_pending,
            shared=self._shared,
        )
        self._spool = Spool(extraction.spool_path, extraction.spool_max_mb * 1024 * 1024)
        self._usage = usage
        self._batches: Any = None
        self._events: Any = None
        self._stop: Any = None
        self._process: SpawnProcess | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._cleared: list[str] = []  # conversations whose pending turns are now in a batch
        self._waiting: collections.deque[Batch] = collections.deque()  # worker queue was full
        self._in_flight: dict[str, Batch] = {}  # handed to the worker, not yet done
        self._later: list[tuple[float, Batch]] = []  # failed, offered again at that time
        self._ids = itertools.count()
        self._forget_texts = False  # the worker is to empty its caches (once it has room)

    async def start(self) -> None:
        recovered = self._spool.open()
        self._spawn()
        for batch in recovered:
            self._deliver(batch)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._flush_idle()),
            loop.create_task(self._watch()),
            loop.create_task(self._flush_usage()),
            loop.create_task(self._adopt_abandoned()),
        ]

    def capture(self, turn: CapturedTurn) -> None:
        metrics.TURNS.labels("captured").inc()
        batch = self._tracker.record(turn, time.monotonic())
        self._send([batch] if batch is not None else [])

    async def forget(self, user_id: str, project_id: str | None) -> None:
        """A forget of the user (or of one project) drops their turns still waiting here, from
        memory and from the spool: in conversations not yet cut into a batch, in batches
        waiting for the worker or for a retry, and the shared conversation state. It returns
        once those are off the disk too. Batches the worker already holds (their entries leave
        the spool when it reports them done), and those of other processors, are dropped by the
        worker (LearningJobs: ``forgotten_at``)."""

        def covered(batch: Batch) -> bool:
            return batch.user_id == user_id and project_id in (None, batch.project_id)

        dropped = self._tracker.forget(user_id, project_id)
        self._send([])  # their pending entries leave the spool
        held = [*self._waiting, *(b for _, b in self._later)]
        for batch in filter(covered, held):
            dropped += batch.new_turns
            self._spool.done(batch.entry)
        self._waiting = collections.deque(b for b in self._waiting if not covered(b))
        self._later = [(at, b) for at, b in self._later if not covered(b)]
        if dropped:
            metrics.TURNS_FORGOTTEN.labels("pending").inc(dropped)
        await asyncio.gather(self._shared.forget(user_id, project_id), self._spool.flushed())

    async def stop(self, grace_s: float) -> None:
        """Extract what every conversation still holds, within the grace period; what the
        worker has not finished by then stays in the spool for the next start."""
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._send(self._tracker.flush_all())
        self._send_usage()
        process = self._process
        if process is not None:
            self._stop.set()
            # Keep reading the worker's events while it drains: a worker whose last metrics
            # cannot be written to a full pipe never exits (multiprocessing joins its feeder).
            deadline = time.monotonic() + grace_s + 15
            while process.is_alive() and time.monotonic() < deadline:
                self._relay(await asyncio.to_thread(worker.drain_events, self._events, 0.5))
            if process.is_alive():
                log.error("Extraction worker did not stop in time; killed")
                process.kill()
            self._relay(worker.drain_events(self._events, 0.5))
        left = [*self._in_flight.values(), *self._waiting, *(b for _, b in self._later)]
        kept = sum(b.new_turns for b in left if b.entry.startswith("b-"))
        lost = sum(b.new_turns for b in left if not b.entry.startswith("b-"))
        if kept:
            log.warning("Turns not learned yet are kept in the spool for the next start",
                        extra={"turns": kept})  # fmt: skip
        if lost:
            metrics.EXTRACTION_DROPPED.labels("shutdown").inc(lost)
            log.error("Turns dropped at shutdown (the spool was full)", extra={"turns": lost})
        self._spool.close()
        self._shared.close()

    def _on_pending(self, conversation: str, batch: Batch | None) -> None:
        if batch is None:  # cleared once the batch that took its turns is in the spool
            self._cleared.append(conversation)
        else:
            self._spool.pending(conversation, batch)

    def _send(self, batches: Sequence[Batch]) -> None:
        for batch in batches:
            metrics.EXTRACTION_BATCHES.labels(batch.reason).inc()
            self._deliver(self._spool.keep(batch))
        for conversation in self._cleared:
            self._spool.pending(conversation, None)
        self._cleared.clear()

    def _deliver(self, batch: Batch) -> None:
        """Hand a batch to the worker, or let it wait its turn (kept batches only)."""
        if not batch.entry:
            batch = dataclasses.replace(batch, entry=f"m-{next(self._ids)}")  # in memory only
        if self._waiting or not self._put(batch):
            if batch.entry.startswith("b-"):
                self._waiting.append(batch)
            else:
                metrics.EXTRACTION_DROPPED.labels("queue_full").inc()
                log.warning("Extraction queue and spool full, turns dropped",
                            extra={"turns": batch.new_turns})  # fmt: skip
        self._deliver_waiting()

    def forget_cached_texts(self) -> None:
        """A memory was forgotten: the worker empties its caches of memory texts too, now or,
        when its queue is full, as soon as it has room (before any batch waiting here)."""
        self._forget_texts = True
        self._deliver_waiting()

    def _deliver_waiting(self) -> None:
        if self._forget_texts and self._batches is not None:
            with contextlib.suppress(queue.Full):
                self._batches.put_nowait(ForgetCachedTexts())
                self._forget_texts = False
        while self._waiting and self._put(self._waiting[0]):
            self._waiting.popleft()

    def _put(self, batch: Batch) -> bool:
        try:
            self._batches.put_nowait(batch)
        except queue.Full:
            return False
        self._in_flight[batch.entry] = batch
        return True

    async def _flush_usage(self) -> None:
        while True:
            await asyncio.sleep(self._config.memory.retention.usage_flush_seconds)
            self._send_usage()

    def _send_usage(self) -> None:
        batch = self._usage.drain() if self._usage is not None else None
        if batch is None:
            return
        try:
            self._batches.put_nowait(batch)
        except queue.Full:
            metrics.USAGE_DROPPED.inc(len(batch.uses))

    async def _flush_idle(self) -> None:
        period = max(0.05, min(self._idle_flush_s, 20.0) / 4)
        while True:
            await asyncio.sleep(period)
            try:
                now = time.monotonic()
                self._send(self._tracker.idle(now, self._idle_flush_s))
                due = [b for at, b in self._later if at <= now]
                self._later = [(at, b) for at, b in self._later if at > now]
                for batch in due:
                    self._deliver(batch)
                self._deliver_waiting()
            except Exception:  # the next round tries again; the loop must not die
                log.exception("Idle flush failed")

    async def _adopt_abandoned(self) -> None:
        """A replica killed for good leaves its spool to the others (one shared ``spool_dir``);
        shared conversation state nobody touched for a day goes."""
        for tick in itertools.count(1):
            await asyncio.sleep(ADOPT_EVERY_S)
            try:
                for batch in self._spool.adopt():
                    self._deliver(batch)
                if tick % PRUNE_EVERY == 0:
                    self._shared.prune()
            except Exception:  # e.g. a sibling adopting the same directory: next round
                log.exception("Spool adoption failed")

    @property
    def _idle_flush_s(self) -> float:
        return self._config.memory.extraction.idle_flush_seconds

    async def _watch(self) -> None:
        """Relay the worker's metrics and what it finished; restart it if it dies."""
        while True:
            self._relay(await asyncio.to_thread(worker.drain_events, self._events, 1.0))
            process = self._process
            if process is not None and not process.is_alive() and not self._stopping:
                log.error("Extraction worker died, restarting", extra={"exit": process.exitcode})
                metrics.EXTRACTION_WORKER_RESTARTS.inc()
                self._spawn()

    def _spawn(self) -> None:
        """A worker with fresh queues (a process killed inside ``get`` keeps the queue's lock
        forever), then everything the old one held, delivered again."""
        context = multiprocessing.get_context("spawn")
        self._batches = context.Queue(maxsize=self._config.memory.extraction.queue_size)
        self._events = context.Queue()
        self._stop = context.Event()
        self._process = worker.spawn(self._config, self._batches, self._events, self._stop)
        again = list(self._in_flight.values())
        self._in_flight.clear()
        if again:
            metrics.SPOOL_TURNS.labels("replayed").inc(sum(b.new_turns for b in again))
        self._waiting.extendleft(reversed(again))
        self._deliver_waiting()

    def _relay(self, events: list[Any]) -> None:
        for kind, payload in events:
            if kind == "metrics":
                metrics.WORKER.update(payload)
            elif kind == "done":
                self._in_flight.pop(payload, None)
                self._spool.done(payload)
            elif kind == "failed":
                self._retry_later(payload)

    def _retry_later(self, entry: str) -> None:
        """A batch whose job failed (the model or Milvus down, slow, or answering garbage) is
        offered again after a while, a few times, so an outage of a minute loses nothing."""
        batch = self._in_flight.pop(entry, None)
        if batch is None:
            return
        if batch.attempt + 1 >= RETRY_ATTEMPTS:
            self._spool.done(entry)
            metrics.EXTRACTION_DROPPED.labels("failed").inc()
            log.error("Extraction failed %d times, turns dropped", RETRY_ATTEMPTS,
                      extra={"turns": batch.new_turns})  # fmt: skip
            return
        delay = RETRY_FIRST_S * 3**batch.attempt
        self._later.append(
            (time.monotonic() + delay, dataclasses.replace(batch, attempt=batch.attempt + 1))
        )
