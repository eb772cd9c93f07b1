"""The pure parts of the Valkey spool (learning/spool_valkey.py): reading a stream entry, which
consumers are gone, which may leave the group; and how much a processor takes from the stream
(Delivery.room). The rest runs on a real server: tests/integration/test_spool_valkey.py."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from memory_extproc.handoff import Batch
from memory_extproc.learning.delivery import Delivery
from memory_extproc.learning.spool import encode, is_spooled, memory_only
from memory_extproc.learning.spool_valkey import (
    departed,
    is_stream_id,
    near_full,
    read_entry,
    stale,
)
from memory_extproc.llm_api.requests import Turn
from tests.unit.test_delivery import Worker


def batch(said: str = "I play the harp") -> Batch:
    turns = (Turn("user", said), Turn("assistant", "Nice!"))
    return Batch("alice", "p", turns, 1, 1_700_000, "every_n", received=(1_700_000,), attempt=2)


def test_an_entry_is_read_as_its_batch_named_by_its_id_with_no_attempt_yet() -> None:
    kept = batch()
    got = read_entry("1795762512290-0", {b"batch": encode(kept), b"user": b"0" * 32})
    assert got == replace(kept, entry="1795762512290-0", attempt=0)
    assert is_spooled(got.entry)  # kept: it waits for room, never dropped for lack of it


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {b"batch": b"{not json"},
        {b"batch": b"[1, 2]"},
        {b"batch": orjson.dumps({"v": 99, "batch": {}})},
        {b"batch": orjson.dumps({"v": 1, "batch": {"user_id": "alice"}})},
    ],
)
def test_an_unreadable_entry_is_a_value_error(fields: dict[bytes, bytes]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message is what the log shows
        read_entry("1-0", fields)


def test_stream_ids_are_told_from_other_entries() -> None:
    assert is_stream_id("1795762512290-0")
    assert not is_stream_id("b-000000000001.json")
    assert not is_stream_id(memory_only(3))
    assert not is_stream_id("")


def test_consumers_silent_for_the_claim_idle_time_are_gone_but_never_oneself() -> None:
    heard = [(b"old", 1_000.0), (b"edge", 40_000.0), (b"live", 45_000.0), (b"me", 0.0)]
    assert stale(heard, now_ms=100_000, idle_ms=60_000, me="me") == ["old", "edge"]
    assert stale([("stopped", 0.0)], now_ms=100_000, idle_ms=60_000, me="me") == ["stopped"]


def test_only_a_consumer_with_no_heartbeat_on_record_and_nothing_held_leaves_the_group() -> None:
    group = [
        {"name": b"gone", "pending": 0, "idle": 9},
        {"name": b"gone-holding", "pending": 2, "idle": 9},
        {"name": b"live", "pending": 0, "idle": 9},
        {"name": b"me", "pending": 0, "idle": 9},
    ]
    assert departed(group, heard={"live"}, me="me") == ["gone"]


def test_a_processor_takes_from_the_stream_only_what_its_worker_takes_at_once() -> None:
    worker = Worker(room=2)
    delivery = Delivery(worker.offer, _NoSpool())
    assert delivery.room(3) == 3
    for k in range(2):
        delivery.deliver(replace(batch(), entry=f"{k + 1}-0"))
    assert delivery.room(3) == 1  # two in flight
    delivery.deliver(replace(batch(), entry="3-0"))  # the worker's queue is full: it waits
    assert delivery.room(3) == 0  # none while some wait here
    assert delivery.room(10) == 0


def test_a_processor_takes_nothing_while_a_failed_batch_waits_for_its_retry() -> None:
    """Else an outage of the model pulls the stream through the retries and drops it all."""
    worker = Worker(room=5)
    delivery = Delivery(worker.offer, _NoSpool())
    delivery.deliver(replace(batch(), entry="1-0"))
    delivery.failed("1-0", now=0.0)  # its place in the worker is free again
    assert delivery.room(3) == 0
    delivery.retry_due(now=3600.0)  # offered again
    assert delivery.room(3) == 2


class _NoSpool:
    """Delivery's spool, for ``done`` only."""

    def done(self, entry: str) -> None:
        pass


def test_the_stream_stops_growing_short_of_valkeys_maxmemory_and_only_when_there_is_one() -> None:
    assert not near_full(used=10_000_000, maxmemory=0)  # no limit: Valkey's memory, not ours
    assert not near_full(used=700, maxmemory=1000)
    assert near_full(used=800, maxmemory=1000)  # room left for locks and acknowledgements
