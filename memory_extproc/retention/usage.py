"""Which memories were injected, counted in the processor and written later in one batch.

A write per retrieval would put a Milvus delete + insert on the hot path (and Milvus 2.3 has no
partial update). Instead the processor counts uses here; every ``usage_flush_seconds`` the counts
go to the worker, which renews the memories (access count, expiry) one user at a time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from memory_extproc import metrics


@dataclass(frozen=True, slots=True)
class Usage:
    user_id: str
    uses: dict[str, int] = field(default_factory=dict)  # memory id -> times injected


class UsageTracker:
    def __init__(self, max_entries: int = 100_000) -> None:
        self._max = max_entries
        self._counts: dict[str, Counter[str]] = {}
        self._entries = 0

    def record(self, user_id: str, memory_ids: Iterable[str]) -> None:
        counts = self._counts.get(user_id)
        if counts is None:
            counts = self._counts[user_id] = Counter()
        for memory_id in memory_ids:
            if memory_id not in counts:
                if self._entries >= self._max:
                    metrics.USAGE_DROPPED.inc()
                    continue
                self._entries += 1
            counts[memory_id] += 1

    def drain(self) -> list[Usage]:
        drained = [Usage(user, dict(counts)) for user, counts in self._counts.items() if counts]
        self._counts = {}
        self._entries = 0
        return drained
