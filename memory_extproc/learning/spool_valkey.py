"""Captured turns in Valkey until learned (``memory.valkey.url``): what learning/spool.py keeps
in ``spool_dir``, for a fleet with no shared volume. The taking over of a dead replica's turns
is the engine's (a stream's consumer group), not a protocol of ours on a file system.

* ``memory-extproc:turns``: a stream, one entry per batch (``batch``: encoded as the spool writes
  it; ``user``: the user's digest, never the id), never trimmed: an entry goes when it is
  learned (or given up on). Consumer group ``learners``; each processor is a consumer with a
  random name and reads (``XREADGROUP >``) only when its worker has room, so the load spreads
  over the replicas; a batch's ``entry`` is its stream id. Done: ``XACK`` and ``XDEL``. Failed:
  offered again here (Delivery), the entry still in our pending list.
* ``memory-extproc:pending:<consumer>``: a hash, each conversation's turns not yet cut into a
  batch (``<conversation>``: the batch an idle flush would cut, ``<conversation>:u``: its user's
  digest), replaced as turns come, removed once they are in the stream.
* ``memory-extproc:consumers``: a sorted set, each consumer by its last heartbeat (server time).

Every ``claim_idle_seconds / 6`` a consumer beats: its heartbeat, and its held entries claimed
by itself again (``XCLAIM … JUSTID``), which resets their idle time. Every few seconds each one
takes over what the gone left (``take_over``): the pending hash of a consumer silent for
``claim_idle_seconds`` goes into the stream as "recovered" batches (one script: only if still
silent, so one sibling does it); entries idle that long are claimed (``XAUTOCLAIM``), as many as
its worker has room for; a consumer that is gone and holds nothing leaves the group (``XGROUP
DELCONSUMER`` would drop what it held). A clean stop makes what it holds claimable at once.

An entry delivered more than ``MAX_DELIVERIES`` times (its holders died with it, each time) is
dropped and logged: one batch that kills its processor must not go round the fleet forever.
A batch delivered twice is harmless: its facts are deduplicated (memories/writer.py).

The file spool on this machine's disk (``spool_dir``, learning/spool.py) stays beside it, for
when Valkey cannot take a batch. Valkey down or slow (calls in order, learning/valkey_calls.py):
a batch, and a conversation's uncut turns, are kept there instead and the batch is handed to
this processor's worker, so learning goes on and a processor that dies meanwhile loses nothing
(measured by `make chaos`: handed over from memory only, the turns captured while Valkey was
down were lost with the processors killed soon after). What is held waits for Valkey to be
back, and what was learned meanwhile is acknowledged at the next heartbeat. What the files hold
when a processor starts (its own last run's, a dead sibling's sharing the directory, or a run's
without Valkey) goes into the stream, and the files go once it is there.
Near Valkey's ``maxmemory`` (``FULL_SHARE`` of it, read at each heartbeat) batches wait on disk
too: a backlog never fills Valkey, which (``noeviction``) would then refuse the locks and
acknowledgements that drain the stream.
Valkey's own crash loses what its persistence had not written: with ``appendfsync everysec``
(devstack/valkey.py), up to the last second of appends.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

import valkey.asyncio as valkey
from valkey.exceptions import ResponseError

from memory_extproc import metrics
from memory_extproc.digests import digest
from memory_extproc.handoff import Batch
from memory_extproc.learning.spool import Deliver, Spool, decode, encode, is_spooled
from memory_extproc.learning.valkey_calls import OrderedCalls

log = logging.getLogger(__name__)
T = TypeVar("T")

STREAM = "memory-extproc:turns"
GROUP = "learners"
PENDING = "memory-extproc:pending:"  # + consumer
CONSUMERS = "memory-extproc:consumers"
USER = ":u"  # a pending conversation's field + this: its user's digest
MAX_DELIVERIES = 5  # an entry whose holders died with it this often is not handed on again
HEARTBEATS = 6  # per claim idle time: a live consumer's entries are never that idle
POLL_S = 1.0  # how soon a batch another replica kept is read here, when this one has room
# Of Valkey's maxmemory, what the stream may fill: the rest stays for what drains it (locks,
# acknowledgements, conversation state), which a full Valkey (noeviction) would refuse too.
FULL_SHARE = 0.8
_STREAM_ID = re.compile(r"\d+-\d+")

# KEYS: consumers; ARGV: consumer. Server time: replicas' clocks may disagree.
_BEAT = """
local now = redis.call('TIME')
redis.call('ZADD', KEYS[1], now[1] * 1000 + math.floor(now[2] / 1000), ARGV[1])
return 1
"""

# KEYS: consumers, the consumer's pending hash, the stream; ARGV: consumer, claim idle ms.
# Returns the batches moved (none when it beat since, or a sibling moved them first).
_RECOVER = """
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
local now = redis.call('TIME')
if not seen or tonumber(seen) > now[1] * 1000 + math.floor(now[2] / 1000) - ARGV[2] then
  return {}
end
redis.call('ZREM', KEYS[1], ARGV[1])
local held = redis.call('HGETALL', KEYS[2])
local fields = {}
for i = 1, #held, 2 do fields[held[i]] = held[i + 1] end
local moved = {}
for i = 1, #held, 2 do
  if string.sub(held[i], -2) ~= ':u' then
    local user = fields[held[i] .. ':u'] or ''
    redis.call('XADD', KEYS[3], '*', 'batch', held[i + 1], 'user', user)
    moved[#moved + 1] = held[i + 1]
  end
end
redis.call('DEL', KEYS[2])
return moved
"""

# KEYS: consumers, the stream; ARGV: consumer, group. Only a consumer that is gone (no
# heartbeat on record) and holds nothing: DELCONSUMER drops what a consumer holds.
_DEPART = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if #redis.call('XPENDING', KEYS[2], ARGV[2], '-', '+', 1, ARGV[1]) > 0 then return 0 end
redis.call('XGROUP', 'DELCONSUMER', KEYS[2], ARGV[2], ARGV[1])
return 1
"""


def is_stream_id(entry: str) -> bool:
    return _STREAM_ID.fullmatch(entry) is not None


def read_entry(entry_id: str, fields: Mapping[bytes, bytes]) -> Batch:
    """The batch a stream entry holds, named by its id; ValueError when it cannot be read."""
    raw = fields.get(b"batch")
    if raw is None:
        raise ValueError("no batch in the stream entry")
    try:
        batch = decode(raw)
    except (KeyError, TypeError, AttributeError) as exc:  # valid JSON, not a batch
        raise ValueError(f"not a batch: {exc!r}") from exc
    return replace(batch, entry=entry_id, attempt=0)


def stale(heard: Iterable[tuple[bytes | str, float]], now_ms: float, idle_ms: int,
          me: str) -> list[str]:  # fmt: skip
    """Consumers (name, last heartbeat in ms) silent for ``idle_ms``, not counting ``me``."""
    names = ((_text(name), at) for name, at in heard)
    return [name for name, at in names if name != me and at <= now_ms - idle_ms]


def departed(group: Iterable[Mapping[str, Any]], heard: set[str], me: str) -> list[str]:
    """Consumers of the group (``XINFO CONSUMERS``) with no heartbeat on record that hold
    nothing: what can leave the group."""
    names = ((_text(c["name"]), c["pending"]) for c in group)
    return [name for name, held in names if held == 0 and name not in heard and name != me]


def near_full(used: int, maxmemory: int) -> bool:
    """Whether the stream must stop growing (no maxmemory: Valkey's memory is not ours to
    bound)."""
    return maxmemory > 0 and used >= FULL_SHARE * maxmemory


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ValkeySpool:
    def __init__(
        self, url: str, *, timeout_s: float, claim_idle_s: float, files: Spool | None = None
    ) -> None:
        """``files``: the spool on this machine's disk, for what Valkey cannot take (without
        one, such a batch is learned from memory only)."""
        self._client = valkey.Valkey.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._beat_script = self._client.register_script(_BEAT)
        self._recover = self._client.register_script(_RECOVER)
        self._depart = self._client.register_script(_DEPART)
        self._calls = OrderedCalls("captured turns not kept there")
        self.consumer = uuid.uuid4().hex[:16]
        self._pending = f"{PENDING}{self.consumer}"
        self._idle_s = claim_idle_s
        self._idle_ms = int(claim_idle_s * 1000)
        self._held: set[str] = set()  # entries of ours not yet done: waiting, running, retried
        self._unacked: set[str] = set()  # done while Valkey was unreachable: acked at next beat
        self._deliver: Deliver = lambda batch: None
        self._room: Callable[[], int] = lambda: 0
        self._wake = asyncio.Event()  # a batch was kept, or room was made: read now
        self._tasks: list[asyncio.Task[None]] = []
        self._files = files
        self._full = False  # Valkey near its maxmemory (at the last heartbeat)

    async def start(self, deliver: Deliver, room: Callable[[], int]) -> None:
        self._deliver, self._room = deliver, room
        await self._calls.call("start", self._join, None)
        log.info("Captured turns wait in Valkey", extra={"consumer": self.consumer})
        if self._files is not None:
            try:
                self._to_stream(self._files.open())
            except OSError as exc:  # learning goes on, from memory only when Valkey is down
                log.error("Spool directory not usable: %s", exc)
                self._files = None
        self.take_over()  # what a predecessor left claimable, at once
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._take_loop()), loop.create_task(self._beat_loop())]

    def send(self, batch: Batch) -> None:
        if self._full:  # kept on this processor's disk and learned here, as with Valkey down
            self._not_kept(batch)
            return
        fields: dict[str, bytes | str] = {"batch": encode(batch), "user": digest(batch.user_id)}
        self._calls.submit("keep", functools.partial(self._add, fields, batch.new_turns),
                           functools.partial(self._not_kept, batch))  # fmt: skip

    def pending(self, conversation: str, batch: Batch | None) -> None:
        """In order after the batches sent before: turns leave the disk only once the batch
        that took them is kept (in the stream, or on disk)."""
        if batch is None:
            self._calls.submit(
                "pending",
                functools.partial(self._clear_pending, conversation),
                functools.partial(self._on_disk, conversation, None),
            )
            return
        kept: dict[str, bytes | str] = {  # as a sibling would cut it if we died
            conversation: encode(replace(batch, reason="recovered")),
            f"{conversation}{USER}": digest(batch.user_id),
        }
        self._calls.submit(
            "pending",
            functools.partial(self._keep_pending, conversation, kept),
            functools.partial(self._on_disk, conversation, batch),
        )

    async def _keep_pending(self, conversation: str, kept: dict[str, bytes | str]) -> None:
        await self._client.hset(self._pending, mapping=kept)
        self._on_disk(conversation, None)  # kept there while Valkey was away: older now

    async def _clear_pending(self, conversation: str) -> None:
        await self._client.hdel(self._pending, conversation, f"{conversation}{USER}")
        self._on_disk(conversation, None)

    def _on_disk(self, conversation: str, batch: Batch | None) -> None:
        if self._files is not None:
            self._files.pending(conversation, batch)
        elif batch is not None:
            self._count_not_kept(batch)

    def done(self, entry: str) -> None:
        if not is_stream_id(entry):
            if self._files is not None and is_spooled(entry):
                self._files.done(entry)  # kept on disk while Valkey was away
            return  # else delivered from memory only
        self._held.discard(entry)
        self._calls.submit("ack", functools.partial(self._remove, entry),
                           functools.partial(self._unacked.add, entry))  # fmt: skip
        self._wake.set()

    def take_over(self) -> None:
        if self._files is not None:  # a dead sibling's files, when it shared the directory
            self._to_stream(self._files.adopt())
        self._calls.submit("adopt", functools.partial(self._grouped, self._take_over))

    async def flushed(self) -> None:
        await self._calls.flushed()

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._files is not None and not self._full:
            # a pod's own disk may go with it (an emptyDir): what waits there, to the stream
            left = self._files.kept()
            if left:
                await self._calls.call("keep", functools.partial(self._hand_off, left), None)
        await self._calls.call("release", self._release, None)
        await self._calls.aclose()
        await self._client.aclose()
        if self._files is not None:
            self._files.close()  # what it still holds goes into the stream at the next start

    async def _hand_off(self, batches: list[Batch]) -> None:
        await self._append(batches)
        assert self._files is not None
        for batch in batches:
            self._files.done(batch.entry)
        log.info("Turns kept on disk are left in the Valkey stream for the next processor",
                 extra={"turns": sum(b.new_turns for b in batches)})  # fmt: skip

    async def _join(self) -> None:
        try:
            await self._client.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        await self._beat_script(keys=[CONSUMERS], args=[self.consumer])

    def _to_stream(self, batches: list[Batch]) -> None:
        """Batches the files hold (under our name), into the stream, then out of the files;
        Valkey down: learned here from the files."""
        if not batches:
            return

        def appended() -> None:
            assert self._files is not None
            for batch in batches:
                self._files.done(batch.entry)
            log.info("Turns kept on disk are in the Valkey stream",
                     extra={"turns": sum(b.new_turns for b in batches)})  # fmt: skip

        async def append() -> None:
            await self._append(batches)
            appended()

        def not_appended() -> None:
            for batch in batches:
                self._deliver(batch)

        self._calls.submit("keep", append, not_appended)

    async def _append(self, batches: list[Batch]) -> bool:
        async with self._client.pipeline(transaction=True) as pipe:
            for batch in batches:
                fields = {"batch": encode(replace(batch, entry="")), "user": digest(batch.user_id)}
                pipe.xadd(STREAM, fields)
            await pipe.execute()
        self._wake.set()
        return True

    async def _grouped(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call``, after the group is made again if Valkey lost it (a restart without its
        append-only file): from the stream's start, so nothing kept is skipped."""
        try:
            return await call()
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
        await self._join()
        return await call()

    async def _add(self, fields: dict[str, bytes | str], turns: int) -> None:
        await self._client.xadd(STREAM, fields)
        metrics.SPOOL_TURNS.labels("spooled").inc(turns)
        self._wake.set()

    def _not_kept(self, batch: Batch) -> None:
        """Valkey unreachable: kept on disk and learned here (from memory only, lost if we die
        first, when there is no room on disk either)."""
        if self._files is not None:
            self._deliver(self._files.keep(batch))  # counts itself, kept or not
            return
        self._count_not_kept(batch)
        self._deliver(batch)

    def _count_not_kept(self, batch: Batch) -> None:
        metrics.SPOOL_TURNS.labels("not_kept").inc(batch.new_turns)

    async def _remove(self, *entries: str) -> None:
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.xack(STREAM, GROUP, *entries).xdel(STREAM, *entries)
            await pipe.execute()

    async def _take_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_S)
            self._wake.clear()
            try:
                if self._room() > 0:
                    await self._calls.call("take", functools.partial(self._grouped, self._take),
                                           None)  # fmt: skip
            except Exception:  # a bug of ours: the next round tries again
                log.exception("Taking batches from the Valkey stream failed")

    async def _take(self) -> None:
        room = self._room()  # asked again: it may have changed while this call waited
        if room <= 0:
            return
        found = await self._client.xreadgroup(GROUP, self.consumer, {STREAM: ">"}, count=room)
        entries = [entry for _, entries in found or [] for entry in entries]
        for entry_id, fields in entries:
            self._hand_over(_text(entry_id), fields, replayed=False)
        if len(entries) == room:
            self._wake.set()  # more may wait

    def _hand_over(self, entry: str, fields: Mapping[bytes, bytes], *, replayed: bool) -> None:
        try:
            batch = read_entry(entry, fields)
        except ValueError as exc:
            log.error("Unreadable stream entry dropped: %s", exc, extra={"entry": entry})
            metrics.SPOOL_TURNS.labels("unreadable").inc()
            self._calls.submit("ack", functools.partial(self._remove, entry))
            return
        self._held.add(entry)
        if replayed:
            metrics.SPOOL_TURNS.labels("replayed").inc(batch.new_turns)
        self._deliver(batch)

    async def _take_over(self) -> None:
        seconds, micros = await self._client.time()
        now_ms = seconds * 1000 + micros // 1000
        heard = await self._client.zrange(CONSUMERS, 0, -1, withscores=True)
        for name in stale(heard, now_ms, self._idle_ms, self.consumer):
            keys = [CONSUMERS, f"{PENDING}{name}", STREAM]
            self._recovered(await self._recover(keys=keys, args=[name, self._idle_ms]))
        await self._claim()
        still = {_text(name) for name in await self._client.zrange(CONSUMERS, 0, -1)}
        group = await self._client.xinfo_consumers(STREAM, GROUP)
        for name in departed(group, still, self.consumer):
            await self._depart(keys=[CONSUMERS, STREAM], args=[name, GROUP])

    def _recovered(self, moved: list[bytes]) -> None:
        turns = 0
        for raw in moved:
            with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
                turns += decode(raw).new_turns  # an unreadable one is said when it is read
        if moved:
            metrics.SPOOL_TURNS.labels("replayed").inc(turns)
            log.info("Turns a replica that is gone had not yet cut into batches are in the "
                     "stream", extra={"turns": turns})  # fmt: skip
            self._wake.set()

    async def _claim(self) -> None:
        """Entries idle for the claim time (their consumer is gone), as many as we have room
        for; each one's deliveries counted so far decide whether it is handed on again."""
        cursor: bytes | str = "0-0"
        while (room := self._room()) > 0:
            cursor, entries, _ = await self._client.xautoclaim(
                STREAM, GROUP, self.consumer, self._idle_ms, cursor, count=room
            )
            if entries:
                await self._claimed(entries)
            if _text(cursor) == "0-0":
                return

    async def _claimed(self, entries: list[tuple[bytes, Mapping[bytes, bytes]]]) -> None:
        async with self._client.pipeline(transaction=False) as pipe:
            for entry_id, _ in entries:
                pipe.xpending_range(STREAM, GROUP, entry_id, entry_id, 1, self.consumer)
            found = await pipe.execute()
        for (entry_id, fields), pending in zip(entries, found, strict=True):
            entry = _text(entry_id)
            if entry in self._held:
                continue  # ours already (a heartbeat did not get through in time)
            deliveries = pending[0]["times_delivered"] if pending else 0
            if deliveries > MAX_DELIVERIES:
                self._give_up(entry, fields, deliveries)
            else:
                self._hand_over(entry, fields, replayed=True)

    def _give_up(self, entry: str, fields: Mapping[bytes, bytes], deliveries: int) -> None:
        metrics.EXTRACTION_DROPPED.labels("failed").inc()
        log.error("A batch whose holders died with it %d times is dropped", deliveries - 1,
                  extra={"entry": entry, "bytes": len(fields.get(b"batch", b""))})  # fmt: skip
        self._calls.submit("ack", functools.partial(self._remove, entry))

    async def _beat_loop(self) -> None:
        while True:
            await asyncio.sleep(self._idle_s / HEARTBEATS)
            self._calls.submit("heartbeat", self._beat)

    async def _beat(self) -> None:
        # what frees memory first: at maxmemory the heartbeat's own write is refused
        await self._ack_late()
        await self._read_memory()
        await self._beat_script(keys=[CONSUMERS], args=[self.consumer])
        if self._held:  # their idle time starts again: nobody claims them from us
            await self._client.xclaim(
                STREAM, GROUP, self.consumer, 0, sorted(self._held), justid=True
            )
        metrics.SPOOL_STREAM_LENGTH.set(await self._client.xlen(STREAM))

    async def _read_memory(self) -> None:
        memory = await self._client.info("memory")
        full = near_full(memory.get("used_memory", 0), memory.get("maxmemory", 0))
        if full != self._full:
            log.warning("Valkey near its maxmemory: batches wait on this processor's disk"
                        if full else "Valkey has room again: batches go to its stream")  # fmt: skip
        self._full = full

    async def _ack_late(self) -> None:
        """Learned while Valkey was unreachable: gone now, not claimed and learned again."""
        if self._unacked:
            await self._remove(*sorted(self._unacked))
            self._unacked.clear()

    async def _release(self) -> None:
        """What we hold, claimable at once, counted as delivered as often as when it came to
        us: a clean handover is no death of its holder."""
        await self._ack_late()
        held = sorted(self._held)
        if held:
            async with self._client.pipeline(transaction=False) as pipe:
                for entry in held:
                    pipe.xpending_range(STREAM, GROUP, entry, entry, 1, self.consumer)
                found = await pipe.execute()
            async with self._client.pipeline(transaction=False) as pipe:
                for entry, pending in zip(held, found, strict=True):
                    if pending:  # still ours
                        again = max(0, pending[0]["times_delivered"] - 1)
                        pipe.xclaim(STREAM, GROUP, self.consumer, 0, [entry],
                                    idle=self._idle_ms, retrycount=again, justid=True)  # fmt: skip
                await pipe.execute()
            log.info("Batches not learned yet are left in Valkey for the next processor",
                     extra={"batches": len(held)})  # fmt: skip
        # silent from now: a sibling moves what is left of our pending turns at once
        await self._client.zadd(CONSUMERS, {self.consumer: 0})
