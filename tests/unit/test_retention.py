"""Retention rules on plain data: expiry, renewal, eviction order, usage counting."""

from __future__ import annotations

import dataclasses

from memory_extproc.memories.retention import UsageTracker, due
from memory_extproc.store.model import Memory, evictions, is_alive, last_used, renewed

T0 = 1_700_000_000_000


def memory(text: str, **kw: object) -> Memory:
    return dataclasses.replace(Memory.new("alice", text, created_at=T0), **kw)  # type: ignore[arg-type]


def test_alive_means_active_and_not_expired() -> None:
    assert is_alive(memory("a"), T0)  # expires_at 0: never
    assert is_alive(memory("a", expires_at=T0 + 1), T0)
    assert not is_alive(memory("a", expires_at=T0), T0)
    assert not is_alive(memory("a", superseded_by="deleted"), T0)


def test_renewal_counts_uses_and_pushes_expiry_out_only() -> None:
    m = memory("a", expires_at=T0 + 10)
    r = renewed(m, 3, T0 + 5, ttl_ms=1000)
    assert (r.access_count, r.expires_at, r.meta["last_used_at"]) == (3, T0 + 1005, T0 + 5)
    later = memory("a", expires_at=T0 + 10**9)
    assert renewed(later, 1, T0, ttl_ms=1000).expires_at == T0 + 10**9  # never shortened
    assert renewed(memory("a"), 1, T0, ttl_ms=0).expires_at == 0  # retention off: never expires
    assert last_used(r) == T0 + 5


def test_evictions_take_the_least_recently_used() -> None:
    old_used = renewed(memory("old but used", updated_at=T0), 1, T0 + 100, 0)
    newer = memory("newer", updated_at=T0 + 50)
    oldest = memory("oldest", updated_at=T0 + 1)
    assert evictions([oldest, old_used, newer], keep=2) == [oldest]
    assert evictions([oldest], keep=2) == []


def test_only_memories_due_for_renewal_are_noted() -> None:
    ttl = 1000
    assert due(memory("a", expires_at=T0 + 499), T0, ttl)  # less than half a TTL left
    assert not due(memory("a", expires_at=T0 + 500), T0, ttl)
    assert not due(memory("a"), T0, ttl)  # never expires
    assert not due(memory("a", expires_at=T0 + 1), T0, 0)  # retention off


def test_usage_tracker_counts_until_drained_and_stays_bounded() -> None:
    soon = [memory(f"m{i}", expires_at=T0 + 10) for i in range(3)]
    later = memory("later", expires_at=T0 + 10**9)
    tracker = UsageTracker(ttl_ms=1000, max_entries=2)
    tracker.record("alice", [soon[0], soon[1], later], T0)
    tracker.record("alice", [soon[0], soon[2]], T0)  # a third entry: dropped
    batch = tracker.drain()
    assert batch is not None
    assert set(batch.uses) == {("alice", soon[0].id, 2), ("alice", soon[1].id, 1)}
    assert tracker.drain() is None
