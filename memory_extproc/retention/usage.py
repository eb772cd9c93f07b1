"""Renewal by use, without a write per retrieval.

A memory injected into a request should not expire while it keeps being useful. Writing on every
retrieval would put a Milvus delete + insert behind each request (Milvus 2.3 has no partial
update), so the processor only notes the memories whose expiry is less than half a TTL away
(``due``): a memory used every day is rewritten once per half TTL, not once per use. Every
``usage_flush_seconds`` the notes go to the worker as one batch, written with one query, one
delete and one insert per 500 memories.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memory_extproc import metrics
from memory_extproc.store.model import Memory, MemoryUse


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
