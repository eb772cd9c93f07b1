"""The processor's side of learning: captured turns become batches the worker learns from.

``capture`` queues the turn and returns: the answer never waits for memory. One task then takes
each in order: what other replicas left of its conversation is read (learning/shared.py), the turn
counted, maybe a batch cut and kept in the spool — files in ``spool_dir`` (learning/spool.py), or
with ``memory.valkey.url`` a Valkey stream that every replica's worker takes batches from
(learning/spool_valkey.py) — and handed to the worker process (worker/main.py).
Everything that changes the conversations (idle flushes, a forget, the shutdown flush) runs in
that same order, so none sees a turn half recorded and a forget takes every turn captured before
it. The worker process is supervised by worker_process.py, batches reach it through delivery.py;
here are the timers (idle conversations, usage counts, what a dead sibling left), forget, and the
shutdown order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from memory_extproc import metrics, receipts
from memory_extproc.clock import iso, now_ms
from memory_extproc.compression.state import Chunk, assemble
from memory_extproc.config import Config
from memory_extproc.handoff import Batch
from memory_extproc.learning.delivery import Delivery
from memory_extproc.learning.shared import Conversations, SharedConversations
from memory_extproc.learning.shared_valkey import ValkeyConversations
from memory_extproc.learning.spool import Spool, TurnSpool, is_spooled
from memory_extproc.learning.spool_valkey import ValkeySpool
from memory_extproc.learning.turns import CapturedTurn, TurnTracker, as_sent
from memory_extproc.learning.worker_process import WorkerProcess
from memory_extproc.llm_api.requests import Turn
from memory_extproc.memories.redaction import RedactionPolicy, redact
from memory_extproc.memories.retention import UsageTracker

log = logging.getLogger(__name__)
ADOPT_EVERY_S = 5.0  # how often what dead siblings left is looked for
MAX_FORGOTTEN = 10_000  # users whose latest forget is remembered (for chunks, ``_keep_chunk``)
RUN_MESSAGES = 64  # messages a chunk grows to before the next starts (~50 KB)
MAX_RUNS = 512  # conversations whose last chunk is kept here to grow
PRUNE_EVERY = 720  # adoption rounds between prunes of the shared conversation state (1 h)


class LearningService:
    def __init__(
        self,
        *,
        config: Config,
        tracker_every: int,
        mode: str,
        usage: UsageTracker | None = None,
        redaction: RedactionPolicy | None = None,
    ) -> None:
        self.mode = mode
        self._kept = _kept(redaction or RedactionPolicy())
        self._config = config
        extraction = config.memory.extraction
        valkey = config.memory.valkey
        keep_chunks_s = config.memory.compression.ttl_hours * 3600
        self._shared: Conversations = (
            ValkeyConversations(valkey.url, valkey.timeout_seconds, keep_chunks_s)
            if valkey.url
            else SharedConversations(extraction.spool_path, keep_chunks_s)
        )
        self._tracker = TurnTracker(
            tracker_every,
            max_conversations=extraction.max_conversations,
            on_pending=self._on_pending,
            shared=self._shared,
        )
        self._spool: TurnSpool = (
            ValkeySpool(
                valkey.url,
                timeout_s=valkey.timeout_seconds,
                claim_idle_s=valkey.claim_idle_seconds,
                # this machine's disk, for what Valkey cannot take
                files=Spool(extraction.spool_path, extraction.spool_max_mb * 1024 * 1024),
            )
            if valkey.url
            else Spool(extraction.spool_path, extraction.spool_max_mb * 1024 * 1024)
        )
        self._usage = usage
        self._worker = WorkerProcess(config)
        self._delivery = Delivery(self._worker.offer, self._spool, self._lost)
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._cleared: list[str] = []  # conversations whose pending turns are now in a batch
        # captured turns and everything else that changes the conversations, in order
        self._steps: asyncio.Queue[Callable[[], Awaitable[None]]] = asyncio.Queue()
        self._recorder: asyncio.Task[None] | None = None  # takes them
        self._clear_here: Callable[[], None] = lambda: None
        self._forgotten: dict[str, int] = {}  # user → when they last had something forgotten
        self._runs: dict[str, Chunk] = {}  # conversation → the chunk last written, oldest first

    async def start(self) -> None:
        self._spawn()
        await self._spool.start(self._delivery.deliver, self._room)
        self._shared.on_forgotten_elsewhere(self._forgotten_elsewhere)
        loop = asyncio.get_running_loop()
        self._recorder = loop.create_task(self._in_order())
        self._tasks = [
            self._recorder,
            loop.create_task(self._flush_idle()),
            loop.create_task(self._watch()),
            loop.create_task(self._flush_usage()),
            loop.create_task(self._adopt_abandoned()),
        ]

    async def chunks(self, user_id: str, key: str) -> list[bytes]:
        """What compressing a conversation reads (compression/state.py), as replicas share it."""
        return await self._shared.chunks(user_id, key)

    async def conversation(self, user_id: str, key: str) -> dict[str, Any] | None:
        """What compression keeps of a conversation, for the memory API: how many of its
        messages were read, from when to when, and its running state (the model's summary, for
        a conversation that asked for compression; the messages' words are never kept)."""
        chunks = [c for c in map(Chunk.decode, await self._shared.chunks(user_id, key)) if c]
        if not chunks:
            return None
        index = assemble(chunks)
        dates = [int(d) for c in chunks for d in c.dates]
        return {
            "messages_read": sum(len(c.scales) for c in chunks),
            "compressible_upto": index.upto if index is not None else 0,
            "first_said_at": iso(min(dates)),
            "last_said_at": iso(max(dates)),
            "state": index.summary if index is not None else "",
        }

    async def forget_conversation(self, user_id: str, key: str) -> bool:
        self._runs.pop(key, None)
        return await self._shared.forget_chunks(user_id, key)

    def capture(self, turn: CapturedTurn) -> None:
        metrics.TURNS.labels("captured").inc()
        self._steps.put_nowait(functools.partial(self._record, turn))

    async def _record(self, turn: CapturedTurn) -> None:
        if turn.receipt:
            record = receipts.captured(turn.received_ms, turn.injected)
            self._shared.receipt(turn.user_id, turn.project_id, turn.receipt, record)
        # on a thread: the event loop goes on between its slices of a long pasted text's read
        turn = await asyncio.to_thread(self._masked, turn)
        elsewhere = await self._shared.elsewhere(self._tracker.reads(turn))
        batch = self._tracker.record(turn, time.monotonic(), elsewhere)
        self._send([batch] if batch is not None else [])

    def not_captured(
        self,
        user_id: str,
        project_id: str,
        receipt_id: str,
        at_ms: int,
        injected: Sequence[str],
        why: receipts.NotLearned,
    ) -> None:
        """A turn whose receipt was named, but whose answer will not be learned from."""
        record = receipts.not_captured(at_ms, injected, why)
        self._shared.receipt(user_id, project_id, receipt_id, record)

    async def receipt(self, user_id: str, receipt_id: str) -> dict[str, Any] | None:
        """What became of one of the user's turns (None: no such receipt of theirs)."""
        return await self._shared.read_receipt(user_id, receipt_id)

    def _lost(self, batch: Batch, why: receipts.NotLearned) -> None:
        self._shared.receipts_done(batch.user_id, batch.receipts, receipts.ended_without(why))

    async def _in_order(self) -> None:
        while True:
            step = await self._steps.get()
            try:
                await step()
            except Exception:  # that turn or flush is lost, not the ones after it
                log.exception("Recording a turn failed")
            finally:
                self._steps.task_done()

    async def _after_captured(self, step: Callable[[], Awaitable[None]]) -> None:
        """Run ``step`` after every turn captured so far is recorded, before any later one."""
        if self._recorder is None or self._recorder.done():  # not started, or stopped
            await step()
            return
        done = asyncio.get_running_loop().create_future()

        async def run() -> None:
            try:
                await step()
            except Exception as exc:  # the caller hears of it (and the recorder logs it)
                if not done.done():
                    done.set_exception(exc)
                raise
            finally:  # done, or the recorder stopped: the caller does not wait forever
                if not done.done():
                    done.set_result(None)

        self._steps.put_nowait(run)
        await done

    def _masked(self, turn: CapturedTurn) -> CapturedTurn:
        """The turn as it may be kept (``_kept``): the user's and the assistant's words, which
        are what is learned from (a system prompt is never kept)."""
        said = tuple(
            Turn(t.role, self._kept(t.text)) if t.role in ("user", "assistant") else t
            for t in turn.turns
        )
        return dataclasses.replace(
            turn, turns=said, answer=self._kept(turn.answer), **as_sent(turn)
        )

    def forget_cached_texts(self) -> None:
        """A memory was forgotten: the worker empties its caches of memory texts too, and so do
        the other replicas and their workers (when they share Valkey)."""
        self._kept.cache_clear()
        self._delivery.forget_cached_texts()
        self._shared.announce_forget()

    def when_forgotten_elsewhere(self, clear: Callable[[], None]) -> None:
        """``clear`` empties this process's caches of memory texts when another replica forgot
        memories (the worker's are emptied here)."""
        self._clear_here = clear

    def _forgotten_elsewhere(self) -> None:
        self._kept.cache_clear()
        self._clear_here()
        self._delivery.forget_cached_texts()

    async def forget(self, user_id: str, project_id: str | None) -> None:
        """A forget of the user (or of one project) drops their turns still waiting here, from
        memory and from the spool: in conversations not yet cut into a batch, in batches
        waiting for the worker or for a retry, and the shared conversation state. It returns
        once those are out of the spool too. Batches the worker already holds (their entries
        leave the spool when it reports them done), and those of other processors (in their
        spools, or in the Valkey stream, whoever takes them), are dropped by the worker
        (LearningJobs: ``forgotten_at``)."""

        def covered(batch: Batch) -> bool:
            return batch.user_id == user_id and project_id in (None, batch.project_id)

        async def drop() -> None:  # in the recorder: carried through if our caller gives up
            self._kept.cache_clear()  # their words, as said, leave this process too
            self._forgotten[user_id] = now_ms()
            self._runs.clear()  # a run may hold their messages: none grows across a forget
            while len(self._forgotten) > MAX_FORGOTTEN:
                self._forgotten.pop(next(iter(self._forgotten)))
            dropped = self._tracker.forget(user_id, project_id)
            self._send([])  # their pending entries leave the spool
            dropped += self._delivery.drop(covered)
            if dropped:
                metrics.TURNS_FORGOTTEN.labels("pending").inc(dropped)
            await asyncio.gather(self._shared.forget(user_id, project_id), self._spool.flushed())

        await self._after_captured(drop)

    async def stop(self, grace_s: float) -> None:
        """Extract what every conversation still holds, within the grace period; what the
        worker has not finished by then stays in the spool for the next start (with Valkey:
        for the next processor that has room, at once)."""
        self._stopping = True
        if self._recorder is not None:
            await self._steps.join()  # every turn captured is recorded
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        elsewhere = await self._shared.states(self._tracker.flush_keys())
        self._send(self._tracker.flush_all(elsewhere))
        self._send_usage()
        await self._worker.stop(grace_s, self._relay)
        left = self._delivery.left()
        kept = sum(b.new_turns for b in left if is_spooled(b.entry))
        lost = sum(b.new_turns for b in left if not is_spooled(b.entry))
        if kept:
            log.warning("Turns not learned yet are kept in the spool for the next start",
                        extra={"turns": kept})  # fmt: skip
        if lost:
            metrics.EXTRACTION_DROPPED.labels("shutdown").inc(lost)
            log.error("Turns dropped at shutdown (the spool was full)", extra={"turns": lost})
            for batch in left:
                if not is_spooled(batch.entry):
                    self._lost(batch, receipts.NotLearned.DROPPED)
        await self._spool.aclose()
        await self._shared.aclose()

    def _on_pending(self, conversation: str, batch: Batch | None) -> None:
        if batch is None:  # cleared once the batch that took its turns is in the spool
            self._cleared.append(conversation)
        else:
            self._spool.pending(conversation, batch)

    def _send(self, batches: Sequence[Batch]) -> None:
        """Kept before the turns they took leave the pending state (in this order)."""
        for batch in batches:
            metrics.EXTRACTION_BATCHES.labels(batch.reason).inc()
            self._spool.send(batch)
        for conversation in self._cleared:
            self._spool.pending(conversation, None)
        self._cleared.clear()

    async def _flush_usage(self) -> None:
        while True:
            await asyncio.sleep(self._config.memory.retention.usage_flush_seconds)
            self._send_usage()

    def _send_usage(self) -> None:
        batch = self._usage.drain() if self._usage is not None else None
        if batch is not None and not self._worker.offer(batch):
            metrics.USAGE_DROPPED.inc(len(batch.uses))

    async def _flush_idle(self) -> None:
        idle_s = self._config.memory.extraction.idle_flush_seconds
        period = max(0.05, min(idle_s, 20.0) / 4)
        while True:
            await asyncio.sleep(period)
            try:
                await self._after_captured(functools.partial(self._idle, idle_s))
                self._delivery.retry_due(time.monotonic())
            except Exception:  # the next round tries again; the loop must not die
                log.exception("Idle flush failed")

    async def _idle(self, idle_s: float) -> None:
        now = time.monotonic()  # the same conversations as read for
        elsewhere = await self._shared.states(self._tracker.idle_keys(now, idle_s))
        self._send(self._tracker.idle(now, idle_s, elsewhere))

    async def _adopt_abandoned(self) -> None:
        """A replica killed for good leaves its turns to the others (one shared ``spool_dir``,
        or Valkey); shared conversation state nobody touched for a day goes."""
        for tick in itertools.count(1):
            await asyncio.sleep(ADOPT_EVERY_S)
            try:
                self._spool.take_over()
                if tick % PRUNE_EVERY == 0:
                    self._shared.prune()
            except Exception:  # e.g. a sibling adopting the same directory: next round
                log.exception("Spool adoption failed")

    async def _watch(self) -> None:
        """Relay the worker's metrics and what it finished; restart it if it dies."""
        while True:
            self._relay(await self._worker.events(1.0))
            if self._worker.died and not self._stopping:
                exit_code = self._worker.exitcode
                log.error("Extraction worker died, restarting", extra={"exit": exit_code})
                metrics.EXTRACTION_WORKER_RESTARTS.inc()
                self._spawn()

    def _keep_chunk(self, batch: Batch, chunk: Chunk | None) -> None:
        """What a compressed request of its conversation reads: not when a forget here came
        after its turns (the worker checked the forgets it had heard of when it began). Joined
        to the run this process wrote last for the conversation, up to ``RUN_MESSAGES``: a
        request reads a few chunks, not one per batch."""
        forgotten = self._forgotten.get(batch.user_id, 0)
        if chunk is None or (forgotten and min(batch.received, default=0) <= forgotten):
            return
        run = self._runs.pop(batch.conversation, None)
        if run is not None and run.end == chunk.first and len(run.scales) < RUN_MESSAGES:
            chunk = run.followed_by(chunk)
        self._runs[batch.conversation] = chunk
        if chunk.summary:
            self._tracker.summarized(batch.conversation, chunk.summary)
        while len(self._runs) > MAX_RUNS:
            self._runs.pop(next(iter(self._runs)))
        self._shared.save_chunk(batch.user_id, batch.project_id, batch.conversation,
                                chunk.first, chunk.encode())  # fmt: skip

    def _room(self) -> int:
        """Batches this processor's worker should be given now, from the Valkey stream: none
        once stopping (what is left there is for the others)."""
        if self._stopping:
            return 0
        return self._delivery.room(self._config.memory.extraction.queue_size)

    def _spawn(self) -> None:
        """A new worker, then everything the old one held, delivered again."""
        self._worker.spawn()
        self._delivery.again()

    def _relay(self, events: list[Any]) -> None:
        for kind, payload in events:
            if kind == "metrics":
                metrics.WORKER.update(payload)
            elif kind == "done":
                entry, learned = payload
                batch = self._delivery.done(entry)
                if batch is not None:
                    update = receipts.learned(learned, batch.new_turns)
                    self._shared.receipts_done(batch.user_id, batch.receipts, update)
                    self._keep_chunk(batch, learned.chunk)
            elif kind == "failed":
                self._delivery.failed(payload, time.monotonic())


def _kept(policy: RedactionPolicy) -> functools._lru_cache_wrapper[str]:
    """A turn's text as the processor keeps it, in the spool, the shared conversation state
    and the batches the worker reads: secrets and personal data dropped or masked
    (memories/redaction.py), so none is ever written to disk or Valkey. Each text once (a
    client sends the whole conversation again with every turn), counted when first seen."""

    @functools.lru_cache(maxsize=16384)  # ~8 MB of texts
    def kept(text: str) -> str:
        redaction = redact(text, policy)
        for kind, count in redaction.found.items():
            metrics.REDACTIONS.labels(kind, "turn").inc(count)
        return redaction.text

    return kept
