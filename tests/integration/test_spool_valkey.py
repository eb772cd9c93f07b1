"""Captured turns in a Valkey stream until learned (learning/spool_valkey.py), on a real server:
what is learned leaves it, what a dead or stopped processor held is learned by another, a
processor's turns not yet cut into a batch outlive it, Valkey down loses no learning, a batch
that keeps killing its holders is dropped, a forget drops what waits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import valkey as valkey_client
from prometheus_client import REGISTRY

from devstack.ports import free_port
from devstack.valkey import ValkeyProcess
from memory_extproc.digests import digest
from memory_extproc.handoff import Batch
from memory_extproc.learning import spool_valkey, valkey_calls
from memory_extproc.learning.delivery import Delivery
from memory_extproc.learning.spool import Spool, decode, encode
from memory_extproc.learning.spool_valkey import (
    CONSUMERS,
    GROUP,
    MAX_DELIVERIES,
    PENDING,
    STREAM,
    ValkeySpool,
)
from memory_extproc.llm_api.requests import Turn
from tests.integration.conftest import until

pytestmark = pytest.mark.integration


class Learner:
    """A processor's side as the spool sees it: what was delivered, and room for ``at_once``
    batches not yet done."""

    def __init__(self, at_once: int) -> None:
        self.at_once = at_once
        self.got: list[Batch] = []
        self.done: set[str] = set()

    def deliver(self, batch: Batch) -> None:
        self.got.append(batch)

    def room(self) -> int:
        return max(0, self.at_once - (len(self.got) - len(self.done)))

    async def has(self, count: int) -> list[Batch] | None:
        return self.got if len(self.got) >= count else None


Start = Callable[..., Awaitable[tuple[ValkeySpool, Learner]]]


@pytest.fixture
def client(valkey: ValkeyProcess) -> valkey_client.Valkey:
    with valkey_client.Valkey(port=valkey.port) as connected:
        connected.flushdb()  # a new fleet
        yield connected


@pytest.fixture
async def start(
    valkey: ValkeyProcess, client: valkey_client.Valkey, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Start]:
    monkeypatch.setattr(spool_valkey, "POLL_S", 0.05)
    running: list[ValkeySpool] = []

    async def new(claim_idle_s: float = 60.0, at_once: int = 10) -> tuple[ValkeySpool, Learner]:
        spool = ValkeySpool(valkey.url, timeout_s=1.0, claim_idle_s=claim_idle_s)
        learner = Learner(at_once)
        await spool.start(learner.deliver, learner.room)
        running.append(spool)
        return spool, learner

    yield new
    for spool in running:
        if spool._tasks and not spool._tasks[0].done():
            await spool.aclose()


async def kill(spool: ValkeySpool) -> None:
    """The processor is gone at once: no heartbeat, no release, nothing more sent."""
    for task in spool._tasks:
        task.cancel()
    if spool._calls._caller is not None:
        spool._calls._caller.cancel()
    await asyncio.gather(*spool._tasks, return_exceptions=True)
    await spool._client.aclose()


def batch(user: str = "alice", said: str = "I play the harp", reason: str = "every_n") -> Batch:
    turns = (Turn("user", said), Turn("assistant", "Nice!"))
    return Batch(user, "", turns, 1, 1_700_000_000_000, reason, received=(1_700_000_000_000,))


def on_disk(root: Path) -> Spool:
    return Spool(root, 1 << 30)


async def entries(root: Path, pattern: str) -> list[str]:
    """The spool files under ``root`` (each processor's directory) by name."""
    return await asyncio.to_thread(lambda: sorted(p.name for p in root.glob(f"*/{pattern}")))


def sample(name: str, labels: dict[str, str]) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def taken_over(spool: ValkeySpool, learner: Learner, count: int) -> Callable[[], Awaitable[Any]]:
    """What the processor's timer does every few seconds, until ``count`` batches came."""

    async def round_() -> list[Batch] | None:
        spool.take_over()
        await spool.flushed()
        return await learner.has(count)

    return round_


async def test_a_batch_kept_and_learned_leaves_the_stream(
    start: Start, client: valkey_client.Valkey
) -> None:
    spool, learner = await start()
    kept = batch()
    spool.send(kept)
    (got,) = await until(lambda: learner.has(1), 10)
    assert got.entry == client.xrange(STREAM)[0][0].decode()  # named by its stream id
    assert replace(got, entry="") == kept
    (_, fields), = client.xrange(STREAM)  # fmt: skip
    assert fields[b"user"] == digest("alice").encode()  # the user's digest, not the id
    spool.done(got.entry)
    learner.done.add(got.entry)
    await spool.flushed()
    assert client.xlen(STREAM) == 0
    assert client.xpending(STREAM, GROUP)["pending"] == 0


async def test_a_batch_its_processor_died_holding_is_learned_by_another(
    start: Start, client: valkey_client.Valkey
) -> None:
    dead, held = await start(claim_idle_s=0.5)
    dead.send(batch())
    (lost,) = await until(lambda: held.has(1), 10)
    await kill(dead)

    heir, learner = await start(claim_idle_s=0.5)
    replayed = sample("memory_spool_turns_total", {"event": "replayed"})
    (got,) = await until(taken_over(heir, learner, 1), 10)
    assert got.entry == lost.entry
    assert sample("memory_spool_turns_total", {"event": "replayed"}) == replayed + 1
    heir.done(got.entry)
    await heir.flushed()
    assert client.xlen(STREAM) == 0


async def test_a_live_processors_batches_are_not_claimed(
    start: Start, client: valkey_client.Valkey
) -> None:
    """Its heartbeat claims what it holds again: however long a job runs, it stays its own."""
    live, held = await start(claim_idle_s=0.6)
    live.send(batch())
    await until(lambda: held.has(1), 10)
    sibling, learner = await start(claim_idle_s=0.6)
    await asyncio.sleep(2.0)  # the condition under test: three claim idle times
    await taken_over(sibling, learner, 1)()
    assert learner.got == []
    assert client.xpending(STREAM, GROUP)["consumers"] == [
        {"name": live.consumer.encode(), "pending": 1}
    ]


async def test_a_dead_processors_turns_not_yet_cut_are_learned_by_a_sibling(
    start: Start, client: valkey_client.Valkey
) -> None:
    dead, _ = await start(claim_idle_s=0.5)
    dead.pending("conversation-1", batch(said="I play the cello", reason="idle"))
    dead.pending("conversation-2", batch(said="I play the drums", reason="idle"))
    dead.pending("conversation-2", None)  # cut into a batch meanwhile (kept in the stream)
    await dead.flushed()
    await kill(dead)

    heir, learner = await start(claim_idle_s=0.5)
    (got,) = await until(taken_over(heir, learner, 1), 10)
    assert (got.said, got.reason) == ("I play the cello", "recovered")
    assert client.xrange(STREAM)[0][1][b"user"] == digest("alice").encode()
    assert not client.exists(f"{PENDING}{dead.consumer}")
    assert client.zscore(CONSUMERS, dead.consumer) is None
    heir.take_over()
    await heir.flushed()
    await until(lambda: _no_consumer(client, dead.consumer), 10)  # it held nothing: it left


async def test_a_gone_processor_leaves_the_group_only_once_it_holds_nothing(
    start: Start, client: valkey_client.Valkey
) -> None:
    """XGROUP DELCONSUMER drops what a consumer holds: it waits until that was claimed."""
    dead, held = await start(claim_idle_s=0.5)
    dead.send(batch())
    await until(lambda: held.has(1), 10)
    await kill(dead)
    heir, learner = await start(claim_idle_s=0.5, at_once=0)  # no room: it claims nothing
    await until(lambda: _not_heard(heir, client, dead.consumer), 10)  # its turns moved
    assert await _consumer_holds(client, dead.consumer) == 1  # still in the group, holding

    learner.at_once = 1
    await until(taken_over(heir, learner, 1), 10)
    heir.take_over()
    await heir.flushed()
    assert await _no_consumer(client, dead.consumer)


async def test_a_clean_stop_leaves_its_batches_claimable_at_once(
    start: Start, client: valkey_client.Valkey
) -> None:
    """No waiting for the claim idle time (60 s), nor a delivery counted against the batch."""
    stopped, held = await start()
    stopped.send(batch())
    (left,) = await until(lambda: held.has(1), 10)
    await stopped.aclose()

    successor, learner = await start()  # takes over at start
    (got,) = await until(lambda: learner.has(1), 10)
    assert got.entry == left.entry
    (pending,) = client.xpending_range(STREAM, GROUP, "-", "+", 10)
    assert (pending["consumer"], pending["times_delivered"]) == (successor.consumer.encode(), 1)


async def test_turns_a_run_without_valkey_left_in_its_spool_move_into_the_stream(
    valkey: ValkeyProcess, client: valkey_client.Valkey, tmp_path: Path
) -> None:
    """Turning Valkey on loses none of what the file spool still held."""
    orphan = tmp_path / "left-by-a-run-without-valkey"
    orphan.mkdir()
    (orphan / "b-000000000000.json").write_bytes(encode(batch(said="I play the harp")))
    (orphan / "p-conversation.json").write_bytes(encode(batch(said="I play the oboe")))
    spool = ValkeySpool(valkey.url, timeout_s=1.0, claim_idle_s=60, files=on_disk(tmp_path))
    learner = Learner(10)
    await spool.start(learner.deliver, learner.room)
    try:
        got = await until(lambda: learner.has(2), 10)
        assert sorted((b.said, b.reason) for b in got) == [
            ("I play the harp", "every_n"),
            ("I play the oboe", "recovered"),
        ]
        assert client.xlen(STREAM) == 2
        left = await asyncio.to_thread(lambda: list(tmp_path.glob("*/*.json")))
        assert left == []  # gone from disk, once in the stream
    finally:
        await spool.aclose()


async def test_valkey_down_a_batch_waits_on_disk_and_is_learned_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not from memory only: `make chaos` lost the turns captured while Valkey was down with
    the processors killed before their slow model learned them."""
    monkeypatch.setattr(spool_valkey, "POLL_S", 0.05)
    files = on_disk(tmp_path)
    spool = ValkeySpool(f"valkey://127.0.0.1:{free_port()}/0", timeout_s=0.2, claim_idle_s=60,
                        files=files)  # fmt: skip
    learner = Learner(10)
    await spool.start(learner.deliver, learner.room)
    try:
        spool.send(batch())
        (got,) = await until(lambda: learner.has(1), 10)
        assert got.said == "I play the harp"
        files.flush()
        assert await entries(tmp_path, "b-*.json") == [got.entry]
        spool.done(got.entry)
        files.flush()
        assert await entries(tmp_path, "b-*.json") == []
    finally:
        await spool.aclose()


def logged(caplog: pytest.LogCaptureFixture, words: str) -> Callable[[], Awaitable[bool]]:
    async def said() -> bool:
        return words in caplog.text

    return said


async def test_near_valkeys_maxmemory_batches_wait_on_disk_and_go_to_the_stream_again_after(
    valkey: ValkeyProcess, client: valkey_client.Valkey, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """A backlog must not fill Valkey: full (noeviction), it would refuse the locks and
    acknowledgements that drain the stream too."""
    monkeypatch.setattr(spool_valkey, "POLL_S", 0.05)
    spool = ValkeySpool(valkey.url, timeout_s=1.0, claim_idle_s=0.3,  # a beat every 0.05 s
                        files=on_disk(tmp_path))  # fmt: skip
    learner = Learner(10)
    await spool.start(learner.deliver, learner.room)
    used = int(client.info("memory")["used_memory"])
    try:
        client.config_set("maxmemory", int(used / 0.9))  # writable, but 90 % used
        await until(logged(caplog, "near its maxmemory"), 10)
        spool.send(batch())
        (on_disk_,) = await until(lambda: learner.has(1), 10)
        assert on_disk_.entry.startswith("b-")  # this processor's file spool
        assert client.xlen(STREAM) == 0

        client.config_set("maxmemory", 0)
        await until(logged(caplog, "has room again"), 10)
        spool.send(batch(said="I play the oboe"))
        got = await until(lambda: learner.has(2), 10)
        assert got[1].said == "I play the oboe"
        assert got[1].entry[0].isdigit()  # a stream id
    finally:
        client.config_set("maxmemory", 0)
        await spool.aclose()


def own_valkey(
    tmp_path: Path, port: int, monkeypatch: pytest.MonkeyPatch | None = None
) -> ValkeyProcess:
    """A Valkey of the test's own, to stop and start again on its files; with ``monkeypatch``,
    the spool tries it again at once after a failure and reads often."""
    if monkeypatch is not None:
        monkeypatch.setattr(valkey_calls, "PAUSE_S", 0.0)
        monkeypatch.setattr(spool_valkey, "POLL_S", 0.05)
    server = ValkeyProcess(tmp_path / "valkey", port)
    server.wait_ready()
    return server


async def test_a_clean_stop_leaves_what_waited_on_disk_in_the_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pod's own disk (an emptyDir) may go with it: the next processor is anyone's."""
    server = own_valkey(tmp_path, free_port(), monkeypatch)
    files = on_disk(tmp_path / "spool")
    spool = ValkeySpool(server.url, timeout_s=0.5, claim_idle_s=60, files=files)
    learner = Learner(0)  # its worker takes nothing more: what is kept stays kept
    await spool.start(learner.deliver, learner.room)
    try:
        server.stop()
        spool.send(batch())  # Valkey down: kept on disk, handed to the worker
        spool.pending("conversation", batch(said="I play the oboe"))
        await spool.flushed()
        files.flush()  # its writes are on their own thread
        assert len(await entries(tmp_path / "spool", "[bp]-*.json")) == 2
        server = own_valkey(tmp_path, server.port)  # on its append-only file
        await spool.aclose()
        assert await entries(tmp_path / "spool", "*.json") == []
        with valkey_client.Valkey(port=server.port) as client:
            kept = client.xrange(STREAM)
        said = sorted(decode(fields[b"batch"]).said for _, fields in kept)
        assert said == ["I play the harp", "I play the oboe"]
    finally:
        server.stop()


async def test_what_waited_on_disk_goes_into_the_stream_at_the_next_start(
    valkey: ValkeyProcess, client: valkey_client.Valkey, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A batch and a conversation's uncut turns kept on disk while Valkey was down, their
    processor stopped before learning them: the next one learns both through the stream."""
    monkeypatch.setattr(spool_valkey, "POLL_S", 0.05)
    down = ValkeySpool(f"valkey://127.0.0.1:{free_port()}/0", timeout_s=0.2, claim_idle_s=60,
                       files=on_disk(tmp_path))  # fmt: skip
    await down.start(lambda batch: None, lambda: 0)  # its worker learns nothing
    down.send(batch())
    down.pending("conversation", batch(said="I play the oboe"))
    await down.flushed()
    await down.aclose()
    assert len(await entries(tmp_path, "[bp]-*.json")) == 2

    spool = ValkeySpool(valkey.url, timeout_s=1.0, claim_idle_s=60, files=on_disk(tmp_path))
    learner = Learner(10)
    await spool.start(learner.deliver, learner.room)
    try:
        got = await until(lambda: learner.has(2), 10)
        assert sorted((b.said, b.reason) for b in got) == [
            ("I play the harp", "every_n"),
            ("I play the oboe", "recovered"),
        ]
        assert all(b.entry.count("-") == 1 and b.entry[0].isdigit() for b in got)  # stream ids
        await spool.flushed()
        left = await asyncio.to_thread(lambda: list(tmp_path.glob("*/*.json")))
        assert left == []  # gone from disk, once in the stream
    finally:
        await spool.aclose()


async def test_valkey_down_a_batch_is_learned_from_memory_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spool_valkey, "POLL_S", 0.05)
    spool = ValkeySpool(f"valkey://127.0.0.1:{free_port()}/0", timeout_s=0.2, claim_idle_s=60)
    learner = Learner(10)
    not_kept = sample("memory_spool_turns_total", {"event": "not_kept"})
    errors = sample("memory_shared_state_errors_total", {"operation": "keep"})
    await spool.start(learner.deliver, learner.room)
    try:
        spool.send(batch())
        (got,) = await until(lambda: learner.has(1), 10)
        assert got.entry == ""  # from memory only (Delivery names it m-…)
        assert got.said == "I play the harp"
        assert sample("memory_spool_turns_total", {"event": "not_kept"}) == not_kept + 1
        assert sample("memory_shared_state_errors_total", {"operation": "keep"}) == errors + 1
    finally:
        await spool.aclose()


async def test_a_batch_learned_while_valkey_was_down_leaves_the_stream_when_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not claimed and learned again a claim idle time later: acknowledged at the next beat."""
    server = own_valkey(tmp_path, free_port(), monkeypatch)
    spool = ValkeySpool(server.url, timeout_s=0.5, claim_idle_s=0.6)  # a beat every 0.1 s
    learner = Learner(10)
    await spool.start(learner.deliver, learner.room)
    try:
        spool.send(batch())
        (got,) = await until(lambda: learner.has(1), 10)
        server.stop()  # its append-only file keeps the entry, and that we hold it
        errors = sample("memory_shared_state_errors_total", {"operation": "ack"})
        spool.done(got.entry)
        await spool.flushed()
        assert sample("memory_shared_state_errors_total", {"operation": "ack"}) == errors + 1

        server = own_valkey(tmp_path, server.port)  # on its append-only file
        with valkey_client.Valkey(port=server.port) as client:
            assert client.xpending(STREAM, GROUP)["pending"] == 1  # still ours after the restart
            await until(lambda: _empty(client), 10)
    finally:
        await spool.aclose()
        server.stop()


async def test_a_batch_whose_holders_keep_dying_is_dropped(
    start: Start, client: valkey_client.Valkey
) -> None:
    client.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
    fields = {"batch": encode(batch(said="I play the harp")), "user": digest("alice")}
    poison = client.xadd(STREAM, fields)
    fields = {"batch": encode(batch(said="I play the flute")), "user": digest("alice")}
    healthy = client.xadd(STREAM, fields)
    client.xreadgroup(GROUP, "dead", {STREAM: ">"})
    # delivered as often as the limit (poison) or once fewer; the next claim is one more
    for entry, times in ((poison, MAX_DELIVERIES), (healthy, MAX_DELIVERIES - 1)):
        client.xclaim(STREAM, GROUP, "dead", 0, [entry], idle=10**9, retrycount=times,
                      justid=True)  # fmt: skip
    dropped = sample("memory_extraction_dropped_total", {"reason": "failed"})

    _, learner = await start()  # takes over at start
    (got,) = await until(lambda: learner.has(1), 10)
    assert got.said == "I play the flute"
    assert sample("memory_extraction_dropped_total", {"reason": "failed"}) == dropped + 1
    assert [entry for entry, _ in client.xrange(STREAM)] == [healthy]


async def test_a_forget_drops_the_users_batches_waiting_for_the_worker(
    valkey: ValkeyProcess, client: valkey_client.Valkey
) -> None:
    """Delivery.drop's batches leave the stream; those the worker holds are dropped by it (a
    stack test: test_forget_pending.py)."""
    spool = ValkeySpool(valkey.url, timeout_s=1.0, claim_idle_s=60)
    delivery = Delivery(lambda item: False, spool)  # the worker's queue is full
    await spool.start(delivery.deliver, lambda: delivery.room(10))
    try:
        spool.send(batch("alice"))
        spool.send(batch("bob"))
        await until(lambda: _pending(client, 2), 10)
        assert sorted(b.user_id for b in delivery.left()) == ["alice", "bob"]  # waiting
        assert delivery.drop(lambda b: b.user_id == "alice") == 1
        await spool.flushed()
        ((_, fields),) = client.xrange(STREAM)
        assert fields[b"user"] == digest("bob").encode()
        assert client.xpending(STREAM, GROUP)["pending"] == 1
    finally:
        await spool.aclose()


async def _empty(client: valkey_client.Valkey) -> bool:
    return bool(client.xlen(STREAM) == 0 and client.xpending(STREAM, GROUP)["pending"] == 0)


async def _pending(client: valkey_client.Valkey, count: int) -> bool:
    return bool(client.xpending(STREAM, GROUP)["pending"] == count)


async def _not_heard(heir: ValkeySpool, client: valkey_client.Valkey, consumer: str) -> bool:
    heir.take_over()
    await heir.flushed()
    return client.zscore(CONSUMERS, consumer) is None


async def _consumer_holds(client: valkey_client.Valkey, consumer: str) -> int | None:
    for found in client.xinfo_consumers(STREAM, GROUP):
        if found["name"].decode() == consumer:
            return int(found["pending"])
    return None


async def _no_consumer(client: valkey_client.Valkey, consumer: str) -> bool:
    return await _consumer_holds(client, consumer) is None
