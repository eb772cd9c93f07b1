"""The pure parts of the store's write locks in Valkey (store/locks_valkey.py): the keys a grant
touches, what a holder knows of its lease without asking, the waits between tries; and which
locks the configuration chooses. On a real server: tests/integration/test_locks_valkey.py."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from memory_extproc.config import parse
from memory_extproc.digests import valkey_user
from memory_extproc.store.locks import FileLocks
from memory_extproc.store.locks_valkey import Lease, Leases, ValkeyLocks, backoff, lock_keys
from memory_extproc.store.model import StoreUnavailableError
from memory_extproc.wiring import store_locks


def test_a_grants_keys_never_hold_the_user_id_and_share_one_cluster_slot() -> None:
    keys = lock_keys("alice@example.com", ["mem_2", "mem_1"])
    assert not any("alice" in k for k in keys)
    tag = valkey_user("alice@example.com")  # as learning's shared state names the user
    assert all(k.startswith(f"{tag}:lock:") for k in keys)
    assert keys[:3] == [f"{tag}:lock:shared", f"{tag}:lock:user", f"{tag}:lock:gate"]


def test_a_grants_memory_keys_come_once_each_in_one_order() -> None:
    one = lock_keys("alice", ["mem_2", "mem_1", "mem_2"])
    other = lock_keys("alice", ["mem_1", "mem_2"])
    assert one == other
    assert len(one) == 5
    assert lock_keys("bob", ["mem_1"])[3] != one[3]  # a memory is locked under its user


def test_a_lease_is_counted_on_only_until_its_margin() -> None:
    lease = Lease(confirmed_at=100.0, valid_s=10.0)
    lease.check(now=109.9)
    with pytest.raises(StoreUnavailableError, match="not renewed"):
        lease.check(now=110.1)


def test_a_confirmed_renewal_extends_a_lease_and_an_older_one_does_not_shorten_it() -> None:
    lease = Lease(confirmed_at=100.0, valid_s=10.0)
    lease.confirm(105.0)
    lease.check(now=114.0)
    lease.confirm(101.0)  # a renewal sent earlier, confirmed later
    lease.check(now=114.0)


def test_a_lost_lease_stops_every_write_at_once() -> None:
    lease = Lease(confirmed_at=100.0, valid_s=10.0)
    lease.lost = True
    with pytest.raises(StoreUnavailableError, match="lost"):
        lease.check(now=100.0)


def test_tries_back_off_doubling_to_the_longest_wait() -> None:
    assert list(itertools.islice(backoff(0.001, 0.005), 5)) == [0.001, 0.002, 0.004, 0.005, 0.005]


def test_a_lease_must_be_renewed_before_its_holder_stops_counting_on_it() -> None:
    Leases(lease_s=15, renew_s=3, margin_s=5)
    with pytest.raises(ValueError, match="renewed"):
        Leases(lease_s=15, renew_s=10, margin_s=5)


def test_the_configuration_chooses_where_the_store_locks(tmp_path: Path) -> None:
    spool = {"extraction": {"spool_dir": str(tmp_path)}}
    assert isinstance(store_locks(parse({"memory": spool})), FileLocks)
    fleet = {**spool, "valkey": {"url": "valkey://127.0.0.1:1/0"}}
    assert isinstance(store_locks(parse({"memory": fleet})), ValkeyLocks)
