"""Retention: when a memory expires, renewal by use, pruning, and the per-user cap.

Expiry counts from when a memory was learned (``expires_at``), never from a replayed turn's date.
Search ignores expired memories (store/filters.py); the worker prunes them now and then. What
the store does row by row stays with the rows (store/model.py: ``is_alive``, ``renewed``,
``evictions``): the store sits below this package and cannot call it.

Renewal by use, without a write per retrieval:

A memory injected into a request should not expire while it keeps being useful. Writing on every
retrieval would put a Milvus delete + insert behind each request (Milvus 2.3 has no partial
update), so the processor only notes the memories whose expiry is less than half a TTL away
(``due``): a memory used every day is rewritten once per half TTL, not once per use. Every
``usage_flush_seconds`` the notes go to the worker as one batch, written with one query, one
delete and one insert per 500 memories.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from memory_extproc import metrics
from memory_extproc.clock import now_ms
from memory_extproc.store.model import Memory, MemoryUse, Store, StoreUnavailableError

log = logging.getLogger(__name__)


def expires_at(ttl_ms: int) -> int:
    """The expiry of a memory learned now (0: never)."""
    return now_ms() + ttl_ms if ttl_ms else 0


def due(memory: Memory, at_ms: int, ttl_ms: int) -> bool:
    return ttl_ms > 0 and memory.expires_at > 0 and memory.expires_at - at_ms < ttl_ms // 2


@dataclass(frozen=True, slots=True)
class UsageBatch:
    uses: tuple[MemoryUse, ...]  # (user id, memory id, times injected)


class UsageTracker:
    def __init__(self, ttl_ms: int, max_entries: int = 100_000) -> None:
        self._ttl_ms = ttl_ms
        self._max = max_entries
        self._counts: dict[tuple[str, str], int] = {}

    def record(self, user_id: str, memories: Iterable[Memory], at_ms: int) -> None:
        for memory in memories:
            if not due(memory, at_ms, self._ttl_ms):
                continue
            key = (user_id, memory.id)
            if key not in self._counts and len(self._counts) >= self._max:
                metrics.USAGE_DROPPED.inc()
                continue
            self._counts[key] = self._counts.get(key, 0) + 1

    def drain(self) -> UsageBatch | None:
        if not self._counts:
            return None
        batch = UsageBatch(tuple((u, m, n) for (u, m), n in self._counts.items()))
        self._counts = {}
        return batch


async def renew(store: Store, batch: UsageBatch, ttl_ms: int) -> None:
    """Count the uses and push the expiry of the memories in ``batch`` (worker side)."""
    try:
        renewed = await store.record_use(batch.uses, now_ms(), ttl_ms)
    except StoreUnavailableError as exc:
        log.warning("Memory renewals not written: %s", type(exc.__cause__).__name__)
        return
    metrics.MEMORIES_RENEWED.inc(renewed)


async def prune(store: Store, interval_s: float) -> None:
    """Delete expired memories every ``interval_s``, forever (search already ignores them)."""
    while True:
        try:
            pruned = await store.prune_expired(now_ms())
        except StoreUnavailableError as exc:
            log.warning("Expired memories not pruned: %s", type(exc.__cause__).__name__)
        else:
            metrics.MEMORIES_REMOVED.labels("expired").inc(pruned)
            if pruned:
                log.info("Expired memories pruned", extra={"pruned": pruned})
        await asyncio.sleep(interval_s)


async def enforce_cap(store: Store, user_id: str, max_per_user: int) -> None:
    """Past ``max_per_user`` (0: no cap), the least recently used memories go."""
    if not max_per_user:
        return
    evicted = await store.trim(user_id, max_per_user)
    if evicted:
        metrics.MEMORIES_REMOVED.labels("over_user_cap").inc(evicted)
        log.info("Per-user cap reached: least recently used memories removed",
                 extra={"evicted": evicted})  # fmt: skip
