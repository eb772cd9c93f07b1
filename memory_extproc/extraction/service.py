"""The response-path edge: captured turns become batches, batches become memories.

``ExtractionService`` lives on the hot path's loop: ``capture`` counts the turn, maybe cuts a
batch, hands it over and returns; the answer never waits for memory. ``BatchProcessor`` runs on
its own background loop and thread (memory_extproc/background.py), with its own Milvus client:
the pool, the LLM calls, embedding and writes. Failures (LLM down, slow, garbage; Milvus down)
end one job, are logged and counted, and store nothing half-made.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from datetime import UTC, datetime

from memory_extproc import metrics
from memory_extproc.background import BackgroundLoop
from memory_extproc.extraction.episodic import qa_chunk
from memory_extproc.extraction.facts import ExtractionParseError, Fact, FactLimits, parse_facts
from memory_extproc.extraction.llm_client import ChatClient, LlmError
from memory_extproc.extraction.pool import WorkerPool
from memory_extproc.extraction.prompts import extraction_messages
from memory_extproc.extraction.turns import Batch, CapturedTurn, TurnTracker
from memory_extproc.extraction.writer import MemoryWriter
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import MemoryType, StoreUnavailableError

log = logging.getLogger(__name__)


def _date(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y-%m-%d")


class BatchProcessor:
    """Background side: everything here runs on the background loop."""

    def __init__(
        self,
        *,
        pool: WorkerPool,
        writer: MemoryWriter,
        store: MilvusStore | None,  # started and closed here; None in tests that bring their own
        extractor: ChatClient | None,
        limits: FactLimits,
    ) -> None:
        self._pool = pool
        self._writer = writer
        self._store = store
        self._extractor = extractor
        self._limits = limits

    @property
    def mode(self) -> str:
        return "llm" if self._extractor is not None else "episodic"

    async def start(self) -> None:
        if self._store is not None:
            await self._store.start()
        self._pool.start()

    def submit(self, batch: Batch) -> None:
        self._pool.submit(
            batch.user_id, lambda: self.run(batch), name=f"{self.mode}:{batch.reason}"
        )

    async def stop(self, grace_s: float) -> None:
        await self._pool.drain(grace_s)
        if self._extractor is not None:
            await self._extractor.close()
        if self._store is not None:
            await self._store.close()

    async def run(self, batch: Batch) -> None:
        try:
            if self._extractor is None:
                outcomes = await self._episodic(batch)
            else:
                outcomes = await self._extract(batch, self._extractor)
        except LlmError as exc:
            metrics.EXTRACTION_JOBS.labels("llm_error").inc()
            log.warning("Extraction failed, batch skipped: %s", exc)
            return
        except ExtractionParseError as exc:
            metrics.EXTRACTION_JOBS.labels("parse_error").inc()
            log.warning("Extraction parse failed, batch skipped: %s", exc)
            return
        except StoreUnavailableError as exc:
            metrics.EXTRACTION_JOBS.labels("store_error").inc()
            log.warning("Memory store failed during extraction: %s", type(exc.__cause__).__name__)
            return
        metrics.EXTRACTION_JOBS.labels("ok").inc()
        for outcome, count in outcomes.items():
            metrics.EXTRACTION_FACTS.labels(outcome).inc(count)
        log.info(
            "Memory: extraction done",
            extra={"mode": self.mode, "reason": batch.reason, "turns": batch.new_turns, **outcomes},
        )

    async def _extract(self, batch: Batch, extractor: ChatClient) -> Counter[str]:
        answer = await extractor.complete(extraction_messages(batch.messages, _date(batch.at_ms)))
        facts, rejected = parse_facts(answer, self._limits)
        outcomes: Counter[str] = Counter({f"rejected_{r}": n for r, n in rejected.items()})
        for fact in facts:
            written = await self._writer.write(
                batch.user_id, batch.project_id, fact, batch.at_ms, source="conversation"
            )
            outcomes[written.value] += 1
        return outcomes

    async def _episodic(self, batch: Batch) -> Counter[str]:
        question, answer = batch.last_exchange
        chunk = qa_chunk(question, answer, _date(batch.at_ms))
        if chunk is None:
            return Counter({"skipped_not_substantive": 1})
        written = await self._writer.write(
            batch.user_id,
            batch.project_id,
            Fact(MemoryType.EPISODIC, chunk),
            batch.at_ms,
            source="conversation",
            reconcile=False,
        )
        return Counter({written.value: 1})


class ExtractionService:
    """Hot-path side: counts turns, cuts batches, hands them to the background loop."""

    def __init__(
        self, *, tracker: TurnTracker, processor: BatchProcessor, idle_flush_s: float
    ) -> None:
        self._tracker = tracker
        self._processor = processor
        self._idle_flush_s = idle_flush_s
        self._background = BackgroundLoop("extraction")
        self._idle_task: asyncio.Task[None] | None = None

    @property
    def mode(self) -> str:
        return self._processor.mode

    async def start(self) -> None:
        self._background.start()
        await self._background.run(self._processor.start())
        self._idle_task = asyncio.get_running_loop().create_task(self._flush_idle())

    def capture(self, turn: CapturedTurn) -> None:
        metrics.TURNS.labels("captured").inc()
        batch = self._tracker.record(turn, time.monotonic())
        if batch is not None:
            self._background.call(self._processor.submit, batch)

    async def stop(self, grace_s: float) -> None:
        """Extract what every conversation still holds, within the grace period."""
        if self._idle_task is not None:
            self._idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle_task
        for batch in self._tracker.flush_all():
            self._background.call(self._processor.submit, batch)
        await self._background.run(self._processor.stop(grace_s))
        self._background.stop()

    async def _flush_idle(self) -> None:
        period = max(0.05, min(self._idle_flush_s / 4, 5.0))
        while True:
            await asyncio.sleep(period)
            for batch in self._tracker.idle(time.monotonic(), self._idle_flush_s):
                self._background.call(self._processor.submit, batch)
