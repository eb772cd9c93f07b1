"""Retention rules on plain data: expiry, renewal, eviction order, usage counting."""

from __future__ import annotations

import dataclasses

from memory_extproc.retention.usage import Usage, UsageTracker
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


def test_usage_tracker_counts_until_drained_and_stays_bounded() -> None:
    tracker = UsageTracker(max_entries=2)
    tracker.record("alice", ["m1", "m2"])
    tracker.record("alice", ["m1", "m3"])  # m3 would be a third entry: dropped
    tracker.record("bob", [])
    assert tracker.drain() == [Usage("alice", {"m1": 2, "m2": 1})]
    assert tracker.drain() == []
    tracker.record("bob", ["m9"])
    assert tracker.drain() == [Usage("bob", {"m9": 1})]
