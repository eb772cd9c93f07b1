"""Conversation state every replica can read, in Valkey (``memory.valkey.url``): what
learning/shared.py keeps in the spool directory, for a fleet with no shared volume.

Per user (``u``, a digest of the user id; braces keep a user's keys in one cluster slot):

* ``memory-extproc:{u}:c:<conversation>``: a hash, ``turn`` and ``entry`` (the state and its
  project, JSON), written by a script that never puts an older turn over a newer one;
* ``memory-extproc:{u}:r:<response id digest>``: the conversation a Responses API answer
  belongs to;
* ``memory-extproc:{u}:x:<receipt id>``: a hash, ``entry`` (the receipt as the turn was
  captured, and its project, JSON) and ``done`` (what became of it, JSON: receipts.py);
* ``memory-extproc:{u}:s:<conversation>``: a hash, what compressing it reads: a chunk per
  batch (compression/state.py) by its first message, and ``entry`` (its project);
* ``memory-extproc:{u}:index``: the set of the user's keys, for a forget.

And a channel, ``memory-extproc:forgotten``: a replica that forgot memories says so there, and
every other empties its caches of memory texts (and its worker's). Pub/sub keeps nothing for a
replica cut off meanwhile, so one that (re)subscribes empties its caches too: it may have
missed a forget.

Each expires ``KEEP_S`` after its last write (no pruning of ours). Calls go out one at a time,
in order, from one task (learning/valkey_calls.py): a read sees this process's writes before
it, and a write never overtakes an earlier one of the same turn. Valkey down or slow: a read
finds nothing (the turn is counted from the request alone, as with no state) and a write is
skipped, each counted and logged once; the next call after a pause tries again.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import orjson
import valkey.asyncio as valkey
from valkey.exceptions import ValkeyError

from memory_extproc import metrics
from memory_extproc.digests import digest, valkey_user
from memory_extproc.learning.shared import KEEP_S
from memory_extproc.learning.turns import Elsewhere, Reads
from memory_extproc.learning.valkey_calls import PAUSE_S, OrderedCalls

log = logging.getLogger(__name__)
QUIET_S = 30.0  # a listener that heard nothing for this long checks its connection
FORGOTTEN = "memory-extproc:forgotten"

# KEYS: the conversation's hash, the user's index; ARGV: turn, entry, seconds to keep
_SAVE = """
local held = redis.call('HGET', KEYS[1], 'turn')
if held and tonumber(held) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'turn', ARGV[1], 'entry', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
"""

# KEYS: a receipt's hash; ARGV: what became of it. A receipt a forget removed stays removed.
_DONE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'done', ARGV[1])
return 1
"""


def _response(user_id: str, response_id: str) -> str:
    return f"{valkey_user(user_id)}:r:{digest(response_id)}"


class ValkeyConversations:
    def __init__(self, url: str, timeout_s: float, chunks_keep_s: float = KEEP_S) -> None:
        self._chunks_keep_s = int(chunks_keep_s)
        self._client = valkey.Valkey.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._save = self._client.register_script(_SAVE)
        self._done = self._client.register_script(_DONE)
        self._calls = OrderedCalls("conversation state not shared")
        self._me = uuid.uuid4().hex  # our own announcements come back to us: not a forget
        self._listener: asyncio.Task[None] | None = None
        # a subscriber waits for messages as long as none come: no read timeout of its own
        self._subscriber = valkey.Valkey.from_url(url, socket_connect_timeout=timeout_s)

    def announce_forget(self) -> None:
        """Tell every other replica that memories were forgotten (their caches go)."""
        self._calls.submit("forget", functools.partial(self._client.publish, FORGOTTEN, self._me))

    def on_forgotten_elsewhere(self, clear: Callable[[], None]) -> None:
        """``clear`` runs when another replica forgot memories, and after any gap in hearing
        them (Valkey down or restarted)."""
        self._listener = asyncio.get_running_loop().create_task(self._listen(clear))

    async def _listen(self, clear: Callable[[], None]) -> None:
        while True:
            try:
                async with self._subscriber.pubsub() as channel:
                    await channel.subscribe(FORGOTTEN)
                    clear()  # what was forgotten before we listened may be cached here
                    while True:
                        message = await channel.get_message(timeout=QUIET_S)
                        if message is None:
                            await channel.ping()  # a connection gone quietly fails here
                        elif forgotten_elsewhere(message, self._me):
                            clear()
            except (ValkeyError, OSError) as exc:
                metrics.SHARED_STATE_ERRORS.labels("listen").inc()
                log.error("Valkey unreachable: forgets of other replicas not heard for %.0f s",
                          PAUSE_S, extra={"error": str(exc)})  # fmt: skip
            except Exception:  # a bug of ours: listen again all the same
                log.exception("Listening for other replicas' forgets failed")
            await asyncio.sleep(PAUSE_S)  # then subscribe again

    def save(
        self, user_id: str, project_id: str, key: str, state: dict[str, Any], response_id: str
    ) -> None:
        entry = orjson.dumps({"project_id": project_id, "state": state})
        user = valkey_user(user_id)
        keys = [f"{user}:c:{key}", f"{user}:index"]
        write = functools.partial(self._write, keys, state["turn"], entry, user_id, key)
        self._calls.submit("write", functools.partial(write, response_id=response_id))

    async def _write(
        self, keys: list[str], turn: int, entry: bytes, user_id: str, key: str, response_id: str
    ) -> None:
        await self._save(keys=keys, args=[turn, entry, int(KEEP_S)])
        if response_id:
            named = _response(user_id, response_id)
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.set(named, key, ex=int(KEEP_S)).sadd(keys[1], named)
                await pipe.expire(keys[1], int(KEEP_S)).execute()

    def save_chunk(self, user_id: str, project_id: str, key: str, first: int, chunk: bytes) -> None:
        user = valkey_user(user_id)
        name, index = f"{user}:s:{key}", f"{user}:index"
        entry = orjson.dumps({"project_id": project_id})
        self._calls.submit("write", functools.partial(
            self._write_chunk, name, index, {str(first): chunk, "entry": entry}
        ))  # fmt: skip

    async def _write_chunk(self, name: str, index: str, fields: dict[str, bytes]) -> None:
        keep = max(self._chunks_keep_s, 1)
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.hset(name, mapping=fields).expire(name, keep)
            await pipe.sadd(index, name).expire(index, max(keep, int(KEEP_S))).execute()

    async def chunks(self, user_id: str, key: str) -> list[bytes]:
        """Read straight away, not behind this process's writes: the request path waits."""
        name = f"{valkey_user(user_id)}:s:{key}"
        try:
            held = await self._client.hgetall(name)
        except (ValkeyError, OSError) as exc:
            metrics.SHARED_STATE_ERRORS.labels("read").inc()
            log.warning("Compression state unreadable: %s", type(exc).__name__)
            return []
        return [value for field, value in held.items() if field != b"entry"]

    async def forget_chunks(self, user_id: str, key: str) -> bool:
        """After this process's writes before it: True when there was something to remove."""
        user = valkey_user(user_id)
        name = f"{user}:s:{key}"

        async def remove() -> bool:
            removed = await self._client.delete(name)
            await self._client.srem(f"{user}:index", name)
            return bool(removed)

        return bool(await self._calls.call("forget", remove, False))

    def receipt(
        self, user_id: str, project_id: str, receipt_id: str, record: dict[str, Any]
    ) -> None:
        entry = orjson.dumps({"project_id": project_id, "receipt": record})
        user = valkey_user(user_id)
        self._calls.submit("write", functools.partial(
            self._write_receipt, f"{user}:x:{receipt_id}", f"{user}:index", entry
        ))  # fmt: skip

    async def _write_receipt(self, name: str, index: str, entry: bytes) -> None:
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.hset(name, "entry", entry).expire(name, int(KEEP_S))
            await pipe.sadd(index, name).expire(index, int(KEEP_S)).execute()

    def receipts_done(
        self, user_id: str, receipt_ids: Sequence[str], update: dict[str, Any]
    ) -> None:
        """``update`` into each of these receipts still held (not one a forget removed)."""
        user, done = valkey_user(user_id), orjson.dumps(update)
        for receipt_id in filter(None, receipt_ids):
            write = functools.partial(self._done, keys=[f"{user}:x:{receipt_id}"], args=[done])
            self._calls.submit("write", write)

    async def read_receipt(self, user_id: str, receipt_id: str) -> dict[str, Any] | None:
        name = f"{valkey_user(user_id)}:x:{receipt_id}"
        return await self._calls.call("read", lambda: self._read_receipt(name), None)

    async def _read_receipt(self, name: str) -> dict[str, Any] | None:
        entry, done = await self._client.hmget(name, ["entry", "done"])
        receipt = _entry(entry).get("receipt")
        if not isinstance(receipt, dict):
            return None
        return receipt | _entry(done)

    async def elsewhere(self, reads: Reads) -> Elsewhere:
        """What recording a turn wants to know (``TurnTracker.reads``)."""
        return await self._calls.call("read", lambda: self._elsewhere(reads), Elsewhere())

    async def states(self, wanted: Iterable[tuple[str, str]]) -> dict[str, dict[str, Any]]:
        """The states held of these conversations (user id, key), by key."""
        asked = list(wanted)
        return await self._calls.call("read", lambda: self._states(asked), {})

    async def _elsewhere(self, reads: Reads) -> Elsewhere:
        chain = None
        if reads.response_id:
            found = await self._client.get(_response(reads.user_id, reads.response_id))
            chain = found.decode() if found is not None else None
        keys = [*reads.keys, chain] if chain is not None else list(reads.keys)
        return Elsewhere(chain, await self._states([(reads.user_id, k) for k in keys]))

    async def _states(self, wanted: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
        if not wanted:
            return {}
        async with self._client.pipeline(transaction=False) as pipe:
            for user_id, key in wanted:
                pipe.hget(f"{valkey_user(user_id)}:c:{key}", "entry")
            entries = await pipe.execute()
        found = {key: _entry(e).get("state") for (_, key), e in zip(wanted, entries, strict=True)}
        return {key: state for key, state in found.items() if isinstance(state, dict)}

    async def forget(self, user_id: str, project_id: str | None) -> None:
        """The user's state (of one project, or all), removed before it returns; carried
        through if the caller stops waiting."""
        await self._calls.call("forget", lambda: self._forget(user_id, project_id), None)

    async def _forget(self, user_id: str, project_id: str | None) -> None:
        index = f"{valkey_user(user_id)}:index"
        members = [m.decode() for m in await self._client.smembers(index)]
        if project_id is None:
            await self._client.delete(index, *members)
            return
        # a project in each entry
        states = [m for m in members if any(f":{kind}:" in m for kind in "cxs")]
        async with self._client.pipeline(transaction=False) as pipe:
            for name in states:
                pipe.hget(name, "entry")
            entries = await pipe.execute()
        gone = [
            n for n, e in zip(states, entries, strict=True)
            if _entry(e).get("project_id") == project_id
        ]  # fmt: skip
        if gone:
            await self._client.delete(*gone)
            await self._client.srem(index, *gone)

    async def flushed(self) -> None:
        """Every call asked for so far is done."""
        await self._calls.flushed()

    def prune(self) -> None:
        """Nothing to do: every key expires by itself."""

    async def aclose(self) -> None:
        await self._calls.aclose()
        if self._listener is not None:
            self._listener.cancel()
        await self._client.aclose()
        await self._subscriber.aclose()


def forgotten_elsewhere(message: dict[str, Any], me: str) -> bool:
    """A forget another replica announced: ours come back to us too, and so do the channel's
    confirmations of our subscription."""
    return message.get("type") == "message" and message.get("data") != me.encode()


def _entry(raw: bytes | None) -> dict[str, Any]:
    """A conversation's entry as written, or {} when there is none or it is damaged."""
    try:
        held = orjson.loads(raw) if raw is not None else None
    except orjson.JSONDecodeError:
        return {}
    return held if isinstance(held, dict) else {}
