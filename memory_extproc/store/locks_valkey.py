"""The store's write locks across processes in Valkey (``memory.valkey.url``): what FileLocks
(store/locks.py) keeps as ``flock``-ed stripe files in ``spool_dir``, for a fleet with no shared
volume. Same locks, same order of takers: a write of some memories holds its user shared and
each memory exclusively, a write of the whole user holds it exclusively.

Per user (``u``, a digest of the user id; the braces keep a user's keys in one cluster slot, so
one script sees all of them):

* ``memory-extproc:{u}:lock:shared``: a sorted set, the token of each shared holder by the end
  of its lease (server time, ms);
* ``memory-extproc:{u}:lock:user``: the exclusive holder's token, its lease as the key's TTL;
* ``memory-extproc:{u}:lock:gate``: the token of an exclusive taker waiting for shared holders
  to leave; while it is there no new shared holder comes in (the file locks' gate file);
* ``memory-extproc:{u}:lock:m:<memory id digest>``: the token of the memory's holder.

A grant is one script: every lock of the write or none, so there is no order to keep and no
deadlock. Each grant has a token of its own; a renewal or a release by anyone else's token does
nothing (compare, then extend or delete, in the script). Valkey cannot be waited on: a lock held
elsewhere is asked for again, backing off (1 ms to 50 ms), for up to ``WAIT_S``.

Leases. A holder that dies must not hold a lock forever: each lock lives a lease (``Leases``:
15 s) unless renewed, and a task per held lock set renews it every 3 s. The holder counts on its
lease only until the lease less a margin (5 s) has passed since the last grant or renewal Valkey
confirmed, counted from when that call was sent (the server's lease ends later); a renewal that
finds its token gone marks the lease lost. Before each Milvus insert or delete under the lock the
store checks the lease, with no round trip (store/milvus.py): a lease lost or not confirmed in
time is StoreUnavailableError, before anything is written.

Fencing: why leases checked before each write, not a fencing token checked at write, nor all of
one user's jobs on one consumer. Milvus has no conditional write, so no token can be checked by
the store written to. The stream spreads batches over the replicas, and API writes, renewals of
used memories and trims come from every replica outside it, so one consumer per user would not
serialize them: the locks are needed anyway. What remains: a write that passed its check and
reaches Milvus more than the margin later (the process paused, or its call stuck, that long)
may overlap the next holder's; and after a Valkey crash lost a lease (``appendfsync everysec``:
the last second of writes), its old holder may write until its next renewal finds the token
gone (at most 3 s). A revision may then be stored twice, as without the locks.

Valkey unreachable: a lock cannot be asked for, so the write fails at once with
StoreUnavailableError (the learning path retries the job, the API answers 503), counted in
``memory_shared_state_errors_total{operation="lock"}`` and logged once per ``LOG_EVERY_S``.
A renewal or a release that fails is counted too (``lock_renew``, ``lock_release``); an
unreleased lock ends with its lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

import valkey.asyncio as valkey
from valkey.commands.core import AsyncScript
from valkey.exceptions import ValkeyError

from memory_extproc import metrics
from memory_extproc.digests import digest, valkey_user
from memory_extproc.store.locks import WAIT_S, Fence
from memory_extproc.store.model import StoreUnavailableError

log = logging.getLogger(__name__)

_POLL_S = (0.001, 0.05)  # first and longest wait between tries of a lock held elsewhere
LOG_EVERY_S = 5.0  # Valkey unreachable is logged once this often, counted every time

SHARED = "shared"
EXCLUSIVE = "user"

# KEYS (every script): shared set, user key, gate, memory keys...
_NOW = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
"""

# ARGV: token, lease ms. The user shared and every memory, or nothing (0).
_MEMORIES = f"""{_NOW}
if redis.call('EXISTS', KEYS[2], KEYS[3]) > 0 then return 0 end
for i = 4, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
redis.call('ZADD', KEYS[1], now + ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
for i = 4, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2]) end
return 1
"""

# ARGV: token, lease ms. The user exclusively (1); else 0, holding the gate once no other
# exclusive holder or taker is before it, so no new shared holder comes in meanwhile.
_USER = f"""{_NOW}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local gate = redis.call('GET', KEYS[3])
if gate and gate ~= ARGV[1] then return 0 end
if redis.call('ZCARD', KEYS[1]) > 0 then
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
  return 0
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[3])
return 1
"""

# ARGV: token, lease ms, mode. 1 and every lock of the grant extended, or 0: one is no longer
# ours (its lease ended, Valkey lost it), and none is extended.
_RENEW = f"""{_NOW}
if ARGV[3] == '{EXCLUSIVE}' then
  if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return 1
end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
for i = 4, #KEYS do
  if redis.call('GET', KEYS[i]) ~= ARGV[1] then return 0 end
end
redis.call('ZADD', KEYS[1], 'XX', now + ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
for i = 4, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
"""

# ARGV: token. Whatever of the grant (or of a try that may have been granted) is still ours.
_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
for i = 2, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1
"""


@dataclass(frozen=True)
class Leases:
    lease_s: float = 15.0  # a dead holder's locks are granted again this long after it renewed
    renew_s: float = 3.0  # one renewal lost to a Valkey blip does not end a lease
    margin_s: float = 5.0  # no write starts in a lease's last seconds: a call's time to land

    def __post_init__(self) -> None:
        if not 0 < self.renew_s < self.lease_s - self.margin_s:
            raise ValueError("a lease must be renewed before a holder stops counting on it")


def lock_keys(user_id: str, memory_ids: Iterable[str] = ()) -> list[str]:
    """The keys a grant's scripts touch: the user's three, then its memories' in one order."""
    user = f"{valkey_user(user_id)}:lock"
    memories = sorted({f"{user}:m:{digest(m)}" for m in memory_ids})
    return [f"{user}:shared", f"{user}:user", f"{user}:gate", *memories]


@dataclass
class Lease:
    """What a holder knows of its lease without asking Valkey: it is ours until ``valid_s``
    after the last grant or renewal Valkey confirmed (counted from when that was sent)."""

    confirmed_at: float  # time.monotonic() when the confirmed call was sent
    valid_s: float  # the lease less its margin
    lost: bool = False

    def confirm(self, sent_at: float) -> None:
        self.confirmed_at = max(self.confirmed_at, sent_at)

    def check(self, now: float | None = None) -> None:
        if self.lost:
            raise StoreUnavailableError("write lock lost: another process may hold it")
        elapsed = (time.monotonic() if now is None else now) - self.confirmed_at
        if elapsed > self.valid_s:
            raise StoreUnavailableError(f"write lock not renewed for {elapsed:.0f} s")


def backoff(first: float, longest: float) -> Iterable[float]:
    """The waits between tries of a lock held elsewhere: doubling from ``first`` to ``longest``."""
    wait = first
    while True:
        yield wait
        wait = min(2 * wait, longest)


class ValkeyLocks:
    """ProcessLocks (store/locks.py) in Valkey: see the module docstring."""

    def __init__(
        self, url: str, *, timeout_s: float, wait_s: float = WAIT_S, leases: Leases = Leases()
    ) -> None:
        self._client = valkey.Valkey.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._scripts: dict[str, AsyncScript] = {
            SHARED: self._client.register_script(_MEMORIES),
            EXCLUSIVE: self._client.register_script(_USER),
        }
        self._renew = self._client.register_script(_RENEW)
        self._release = self._client.register_script(_RELEASE)
        self._wait_s = wait_s
        self._leases = leases
        self._logged_at = -LOG_EVERY_S
        self._tasks: set[asyncio.Task[None]] = set()  # renewals and releases under way

    @contextlib.asynccontextmanager
    async def memories(self, user_id: str, memory_ids: Iterable[str]) -> AsyncIterator[Fence]:
        async with self._held(SHARED, lock_keys(user_id, memory_ids)) as lease:
            yield lease

    @contextlib.asynccontextmanager
    async def user(self, user_id: str) -> AsyncIterator[Fence]:
        async with self._held(EXCLUSIVE, lock_keys(user_id)) as lease:
            yield lease

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._client.aclose()

    @contextlib.asynccontextmanager
    async def _held(self, mode: str, keys: list[str]) -> AsyncIterator[Lease]:
        token = uuid.uuid4().hex
        try:
            lease = await self._take(mode, keys, token)
        except BaseException:  # a try may have been granted unseen, or left our gate
            await self._let_go(keys, token)
            raise
        renewing = self._background(self._renew_loop(mode, keys, token, lease))
        try:
            yield lease
        finally:
            renewing.cancel()
            await self._let_go(keys, token)

    async def _take(self, mode: str, keys: list[str], token: str) -> Lease:
        deadline = time.monotonic() + self._wait_s
        for wait in backoff(*_POLL_S):
            sent = time.monotonic()
            try:
                granted = await self._scripts[mode](keys=keys, args=[token, self._lease_ms])
            except (ValkeyError, OSError) as exc:
                raise self._unreachable("lock", exc) from exc
            if granted:
                return Lease(sent, self._leases.lease_s - self._leases.margin_s)
            if time.monotonic() > deadline:
                log.error("Write lock not granted in %.0f s", self._wait_s, extra={"mode": mode})
                raise StoreUnavailableError(f"{mode} write lock not granted")
            await asyncio.sleep(wait)
        raise AssertionError("backoff never ends")

    async def _renew_loop(self, mode: str, keys: list[str], token: str, lease: Lease) -> None:
        while True:
            await asyncio.sleep(self._leases.renew_s)
            sent = time.monotonic()
            try:
                held = await self._renew(keys=keys, args=[token, self._lease_ms, mode])
            except (ValkeyError, OSError) as exc:
                self._unreachable("lock_renew", exc)
                continue  # the lease lasts a while yet: the next renewal may get through
            if not held:
                lease.lost = True
                log.error("Write lock lost: its lease ended or Valkey lost it; no more writes "
                          "under it", extra={"mode": mode})  # fmt: skip
                return
            lease.confirm(sent)

    async def _let_go(self, keys: list[str], token: str) -> None:
        """Released before it returns, also if the caller is cancelled meanwhile."""
        await asyncio.shield(self._background(self._release_now(keys, token)))

    async def _release_now(self, keys: list[str], token: str) -> None:
        try:
            await self._release(keys=keys, args=[token])
        except (ValkeyError, OSError) as exc:
            self._unreachable("lock_release", exc)  # its lease ends it

    @property
    def _lease_ms(self) -> int:
        return int(self._leases.lease_s * 1000)

    def _background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _unreachable(self, operation: str, exc: Exception) -> StoreUnavailableError:
        metrics.SHARED_STATE_ERRORS.labels(operation).inc()
        if time.monotonic() - self._logged_at >= LOG_EVERY_S:
            self._logged_at = time.monotonic()
            log.error("Valkey unreachable: store writes fail for want of their locks",
                      extra={"operation": operation, "error": str(exc)})  # fmt: skip
        return StoreUnavailableError(f"write lock: Valkey unreachable: {exc}")
