"""The response-path edge: captured turns become batches, batches become memories.

``ExtractionService`` lives in the processor: ``capture`` counts the turn, maybe cuts a batch,
puts it on a bounded queue and returns; the answer never waits for memory. It also hands over
the usage counts of injected memories. ``BatchProcessor`` runs in the worker process (worker.py)
with its own Milvus client: the pool, the LLM calls, embedding and writes, usage renewals and the
expiry pruner. Failures (LLM down, slow, garbage; Milvus down) end one job, are logged and
counted, and store nothing half-made.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import itertools
import logging
import multiprocessing
import queue
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from multiprocessing.context import SpawnProcess
from typing import Any

from memory_extproc import metrics
from memory_extproc.changes import CHANGE_MARKER
from memory_extproc.config import Config, RetentionConfig
from memory_extproc.extraction import worker
from memory_extproc.extraction.echo import (
    adds_information,
    statements,
    strip_echoes,
)
from memory_extproc.extraction.episodic import qa_chunk
from memory_extproc.extraction.facts import (
    ExtractionParseError,
    Fact,
    FactLimits,
    parse_facts,
    ungrounded,
)
from memory_extproc.extraction.llm_client import ChatClient, LlmError
from memory_extproc.extraction.pool import WorkerPool
from memory_extproc.extraction.prompts import extraction_messages, facts_schema, transcript
from memory_extproc.extraction.spool import Spool
from memory_extproc.extraction.turns import Batch, CapturedTurn, TurnTracker
from memory_extproc.extraction.writer import MemoryWriter
from memory_extproc.llm_api.requests import Turn
from memory_extproc.retention.usage import UsageBatch, UsageTracker
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import MemoryType, StoreUnavailableError, now_ms

log = logging.getLogger(__name__)
RETRY_ATTEMPTS = 4  # a failed batch is tried again after 5, 15 and 45 s, then dropped
RETRY_FIRST_S = 5.0
_COPIED = ("rejected_stale_value", "rejected_echo", "rejected_ungrounded")


def _date(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y-%m-%d")


class BatchProcessor:
    """Worker side: the pool and everything it runs."""

    def __init__(
        self,
        *,
        pool: WorkerPool,
        writer: MemoryWriter,
        store: MilvusStore | None,  # started and closed here; None in tests that bring their own
        extractor: ChatClient | None,
        limits: FactLimits,
        retention: RetentionConfig | None = None,
    ) -> None:
        self._pool = pool
        self._writer = writer
        self._store = store
        self._extractor = extractor
        self._limits = limits
        self._retention = retention or RetentionConfig()
        self._pruner: asyncio.Task[None] | None = None

    @property
    def mode(self) -> str:
        return "llm" if self._extractor is not None else "episodic"

    async def start(self) -> None:
        if self._store is not None:
            await self._store.start()
            if self._retention.ttl_ms:
                self._pruner = asyncio.get_running_loop().create_task(self._prune(self._store))
        self._pool.start()

    def submit(self, batch: Batch, done: Callable[[str, bool], None]) -> bool:
        """False when the pool is full: the batch waits (it is kept in the processor).
        ``done(entry, failed)`` when it ran: a failed batch is offered again later."""
        return self._pool.submit(
            batch.user_id, lambda: self.run(batch), name=f"{self.mode}:{batch.reason}",
            on_done=lambda failed: done(batch.entry, failed),
        )  # fmt: skip

    async def room(self, timeout_s: float) -> None:
        await self._pool.room(timeout_s)

    def record_use(self, batch: UsageBatch) -> None:
        self._pool.submit("usage", lambda: self._renew(batch), name="usage")

    async def _renew(self, batch: UsageBatch) -> None:
        store = self._store
        if store is None:
            return
        try:
            renewed = await store.record_use(batch.uses, now_ms(), self._retention.ttl_ms)
        except StoreUnavailableError as exc:
            log.warning("Memory renewals not written: %s", type(exc.__cause__).__name__)
            return
        metrics.MEMORIES_RENEWED.inc(renewed)

    async def _prune(self, store: MilvusStore) -> None:
        """Delete expired memories now and then (search already ignores them)."""
        while True:
            try:
                pruned = await store.prune_expired(now_ms())
            except StoreUnavailableError as exc:
                log.warning("Expired memories not pruned: %s", type(exc.__cause__).__name__)
            else:
                metrics.MEMORIES_REMOVED.labels("expired").inc(pruned)
                if pruned:
                    log.info("Expired memories pruned", extra={"pruned": pruned})
            await asyncio.sleep(self._retention.prune_interval_seconds)

    async def stop(self, grace_s: float) -> None:
        if self._pruner is not None:
            self._pruner.cancel()
        await self._pool.drain(grace_s)
        if self._extractor is not None:
            await self._extractor.close()
        if self._store is not None:
            await self._store.close()

    async def run(self, batch: Batch) -> bool:
        """True when learned; False when it failed (the model or Milvus down, slow or talking
        garbage), to be tried again later: nothing half-made is stored either way."""
        try:
            if self._extractor is None:
                outcomes = await self._episodic(batch)
            else:
                outcomes = await self._extract(batch, self._extractor)
        except LlmError as exc:
            metrics.EXTRACTION_JOBS.labels("llm_error").inc()
            log.warning("Extraction failed: %s", exc)
            return False
        except ExtractionParseError as exc:
            metrics.EXTRACTION_JOBS.labels("parse_error").inc()
            log.warning("Extraction answer unusable: %s", exc)
            return False
        except StoreUnavailableError as exc:
            metrics.EXTRACTION_JOBS.labels("store_error").inc()
            log.warning("Memory store failed during extraction: %s", type(exc.__cause__).__name__)
            return False
        metrics.EXTRACTION_JOBS.labels("ok").inc()
        for outcome, count in outcomes.items():
            metrics.EXTRACTION_FACTS.labels(outcome).inc(count)
        log.info(
            "Memory: extraction done",
            extra={"mode": self.mode, "reason": batch.reason, "turns": batch.new_turns, **outcomes},
        )
        return True

    async def _extract(self, batch: Batch, extractor: ChatClient) -> Counter[str]:
        """Facts from each new user message, one call each (a 1.5B model shown ten turns at
        once wrote one fact; shown one message at a time, six in less time), with the
        assistant's words around it as context: messages without their questions, answers
        without what they echoed from memory. Told what memory already holds; checked against
        the words it was shown before anything is written (facts.ungrounded)."""
        turns = [
            Turn(t.role, strip_echoes(t.text, batch.recalled))
            if t.role == "assistant"
            else Turn(t.role, statements(t.text))
            for t in batch.messages
        ]
        users = [i for i, t in enumerate(batch.messages) if t.role == "user"]
        outcomes: Counter[str] = Counter()
        facts: list[Fact] = []
        failed: ExtractionParseError | None = None
        asked = failures = 0
        for i in users[-batch.new_turns :] if batch.new_turns else []:
            before = turns[i - 1] if i and turns[i - 1].role == "assistant" else None
            after = (
                turns[i + 1] if i + 1 < len(turns) and turns[i + 1].role == "assistant" else None
            )
            window = [t for t in (before, turns[i], after) if t is not None]
            answer = after.text if after else ""
            if not turns[i].text and not adds_information(
                answer, batch.messages[i].text, batch.recalled
            ):
                outcomes["skipped_request_only"] += 1  # nothing stated, nothing new: no call
                continue
            asked += 1
            try:
                found, said = await self._facts(extractor, batch, window, batch.recalled)
                if not found and batch.recalled and any(r in said for r in _COPIED):
                    # A small model tends to copy what it was told is known instead of what
                    # was said: asked once more without it, it has nothing to copy.
                    said["retried_without_known"] += 1
                    found, again = await self._facts(extractor, batch, window, ())
                    said.update(again)
            except ExtractionParseError as exc:
                failed, failures = exc, failures + 1
                outcomes[f"answer_{exc.reason}"] += 1
                continue
            outcomes.update(said)
            facts.extend(found)
        if failed is not None and failures == asked:
            raise failed  # not one usable answer: the job failed
        written = await self._writer.write_batch(
            batch.user_id, batch.project_id, facts, batch.at_ms, source="conversation",
            change_said=bool(CHANGE_MARKER.search(batch.said)),
        )  # fmt: skip
        outcomes.update(w.value for w in written)
        return outcomes

    async def _facts(
        self, extractor: ChatClient, batch: Batch, turns: Sequence[Turn], known: Sequence[str]
    ) -> tuple[list[Fact], Counter[str]]:
        """The model's facts that come from the words it was shown, and what was refused."""
        heard = "\n".join(t.text for t in turns)
        answer = await extractor.complete(
            extraction_messages(known, transcript(turns), _date(batch.at_ms)),
            schema=facts_schema(self._limits.max_facts, self._limits.max_chars),
        )
        try:
            parsed = parse_facts(answer, self._limits)
        except ExtractionParseError as exc:
            metrics.LLM_ANSWERS.labels(extractor.role, exc.reason).inc()
            raise
        for repair in parsed.repairs or ("clean",):
            metrics.LLM_ANSWERS.labels(extractor.role, repair).inc()
        outcomes: Counter[str] = Counter({f"rejected_{r}": n for r, n in parsed.rejected.items()})
        facts = []
        for fact in parsed.facts:
            reason = ungrounded(fact.content, heard, batch.recalled)
            if reason is None:
                facts.append(fact)
            else:
                outcomes[f"rejected_{reason}"] += 1
        return facts, outcomes

    async def _episodic(self, batch: Batch) -> Counter[str]:
        question, answer = batch.last_exchange
        chunk = qa_chunk(question, answer, _date(batch.at_ms), batch.recalled)
        if chunk is None:
            return Counter({"skipped_not_substantive": 1})
        written = await self._writer.write(
            batch.user_id,
            batch.project_id,
            Fact(MemoryType.EPISODIC, chunk),
            batch.at_ms,
            source="conversation",
        )
        return Counter({written.value: 1})


class ExtractionService:
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
        self._tracker = TurnTracker(
            tracker_every,
            max_conversations=extraction.max_conversations,
            on_pending=self._on_pending,
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
        ]

    def capture(self, turn: CapturedTurn) -> None:
        metrics.TURNS.labels("captured").inc()
        batch = self._tracker.record(turn, time.monotonic())
        self._send([batch] if batch is not None else [])

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

    def _deliver_waiting(self) -> None:
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
            now = time.monotonic()
            self._send(self._tracker.idle(now, self._idle_flush_s))
            due = [b for at, b in self._later if at <= now]
            self._later = [(at, b) for at, b in self._later if at > now]
            for batch in due:
                self._deliver(batch)
            self._deliver_waiting()

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
