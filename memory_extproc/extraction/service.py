"""The response-path edge: captured turns become batches, batches become memories, in the pool.

``capture`` is called from the ext_proc stream and returns at once: the answer never waits for
memory. Failures (LLM down, slow, garbage; Milvus down) end one job, are logged and counted, and
store nothing half-made.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from datetime import UTC, datetime

from memory_extproc import metrics
from memory_extproc.extraction.episodic import qa_chunk
from memory_extproc.extraction.facts import ExtractionParseError, Fact, FactLimits, parse_facts
from memory_extproc.extraction.llm_client import ChatClient, LlmError
from memory_extproc.extraction.pool import WorkerPool
from memory_extproc.extraction.prompts import extraction_messages
from memory_extproc.extraction.turns import Batch, CapturedTurn, TurnTracker
from memory_extproc.extraction.writer import MemoryWriter
from memory_extproc.store.model import MemoryType, StoreUnavailableError

log = logging.getLogger(__name__)


def _date(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y-%m-%d")


class ExtractionService:
    def __init__(
        self,
        *,
        tracker: TurnTracker,
        pool: WorkerPool,
        writer: MemoryWriter,
        extractor: ChatClient | None,
        limits: FactLimits,
        idle_flush_s: float,
    ) -> None:
        self._tracker = tracker
        self._pool = pool
        self._writer = writer
        self._extractor = extractor
        self._limits = limits
        self._idle_flush_s = idle_flush_s
        self._idle_task: asyncio.Task[None] | None = None

    @property
    def mode(self) -> str:
        return "llm" if self._extractor is not None else "episodic"

    def start(self) -> None:
        self._pool.start()
        self._idle_task = asyncio.get_running_loop().create_task(self._flush_idle())

    def capture(self, turn: CapturedTurn) -> None:
        metrics.TURNS.labels("captured").inc()
        batch = self._tracker.record(turn, time.monotonic())
        if batch is not None:
            self._submit(batch)

    async def stop(self, grace_s: float) -> None:
        """Extract what every conversation still holds, within the grace period."""
        if self._idle_task is not None:
            self._idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle_task
        for batch in self._tracker.flush_all():
            self._submit(batch)
        await self._pool.drain(grace_s)
        if self._extractor is not None:
            await self._extractor.close()

    def _submit(self, batch: Batch) -> None:
        self._pool.submit(
            batch.user_id, lambda: self._run(batch), name=f"{self.mode}:{batch.reason}"
        )

    async def _flush_idle(self) -> None:
        period = max(0.05, min(self._idle_flush_s / 4, 5.0))
        while True:
            await asyncio.sleep(period)
            for batch in self._tracker.idle(time.monotonic(), self._idle_flush_s):
                self._submit(batch)

    async def _run(self, batch: Batch) -> None:
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
