"""Who may write a user's rows at once, in this process and across processes.

A revision is delete + insert of one primary key: two of one memory at once both delete, then
both insert, and the memory is stored twice; a read between the two finds nothing. (Milvus
2.3's upsert would do both at once, but on this partition-key collection it files the row under
the wrong partition: a search of its user never finds it again.) So writes of one memory take
turns; writes of different memories of one user run side by side (24 concurrent edits of one
user took 10 s in a row, Envoy's API timeout); a write of the whole user (a forget of a scope, a
trim) waits for all of them and holds the others back until it is done, so nothing it deleted
is written back.

Across processes (the worker beside the processor, replicas) the same locks are held where
they all see them (``ProcessLocks``, chosen in wiring.py): ``flock``s on stripe files in the
spool directory they share (``FileLocks``), or, with ``memory.valkey.url``, leases in Valkey
(store/locks_valkey.py: no shared volume). A lock not granted within a minute, or one that
cannot be asked for (a lock file that cannot be opened, Valkey unreachable), is the store being
unavailable: the write fails like one Milvus refused, never waits forever.

A lock held yields a ``Fence``: the store checks it before each insert or delete under it. A
``flock`` and an in-process lock cannot be lost while the process lives; a Valkey lease can.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import time
import weakref
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

from memory_extproc.store.model import StoreUnavailableError

log = logging.getLogger(__name__)

STRIPES = 1024  # lock files per kind: a file per memory could never be removed safely
_POLL_S = (0.001, 0.02)  # first and longest wait between tries of a lock another process holds
WAIT_S = 60.0  # longest wait for one lock file: a holder stuck that long is a failure
MANY_MEMORIES = 32  # a write of more memories than this locks the whole user


class Fence(Protocol):
    def check(self) -> None:
        """Raises StoreUnavailableError when the lock may no longer be ours: no write then."""


class _Kept:
    """A lock nobody can take from this process while it lives (asyncio, flock)."""

    def check(self) -> None:
        pass


KEPT: Fence = _Kept()


class ProcessLocks(Protocol):
    """The locks of WriteLocks for other processes: ``memories`` holds the user shared and each
    memory exclusively; ``user`` holds the user exclusively, and a taker waiting for it holds
    later shared ones back (a forget is not starved by a stream of edits of other processes)."""

    def memories(
        self, user_id: str, memory_ids: Iterable[str]
    ) -> AbstractAsyncContextManager[Fence]: ...

    def user(self, user_id: str) -> AbstractAsyncContextManager[Fence]: ...

    async def aclose(self) -> None: ...


class SharedLock:
    """Held by many in shared mode or by one exclusively; a waiting exclusive holder goes
    before later shared ones (a forget is never starved by a stream of edits). Releases take
    no await, so a cancellation cannot leave the lock held."""

    def __init__(self) -> None:
        self._shared = 0
        self._exclusive = False
        self._waiting = 0  # exclusive holders waiting
        self._changed = asyncio.Event()

    def _notify(self) -> None:
        self._changed.set()  # wakes whoever waits on it; they re-check and wait on the next
        self._changed = asyncio.Event()

    @contextlib.asynccontextmanager
    async def shared(self) -> AsyncIterator[None]:
        while self._exclusive or self._waiting:
            await self._changed.wait()
        self._shared += 1
        try:
            yield
        finally:
            self._shared -= 1
            self._notify()

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        self._waiting += 1
        try:
            while self._exclusive or self._shared:
                await self._changed.wait()
        finally:
            self._waiting -= 1
            self._notify()  # a cancelled waiter no longer holds shared ones back
        self._exclusive = True
        try:
            yield
        finally:
            self._exclusive = False
            self._notify()


class FileLocks:
    """The locks of WriteLocks for other processes: a user's stripe file locked shared or
    exclusive, then the stripe files of the memories, exclusive, in one order (no deadlock).
    The kernel releases the locks of a process that dies. Another process's lock is waited for
    by trying again (flock cannot be awaited); this process's own holders queue in WriteLocks
    first, so the files see one holder per process at a time.

    flock has no queue, so a user's exclusive lock waiting for shared holders (edits of users of
    its stripe, in other processes) could wait for as long as new ones keep coming. A gate file
    per stripe orders them: the exclusive taker holds the gate while it waits, a shared taker
    passes through the gate before it takes its lock."""

    def __init__(self, directory: Path, wait_s: float = WAIT_S) -> None:
        self._dir = directory
        self._wait_s = wait_s

    def _stripe(self, kind: str, name: str) -> Path:
        digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=4).digest()
        return self._dir / f"{kind}-{int.from_bytes(digest, 'big') % STRIPES:04d}"

    @contextlib.asynccontextmanager
    async def memories(self, user_id: str, memory_ids: Iterable[str]) -> AsyncIterator[Fence]:
        stripes = sorted({self._stripe("memory", m) for m in memory_ids})
        user = self._stripe("user", user_id)
        async with contextlib.AsyncExitStack() as held:
            async with self._held([(self._gate(user), fcntl.LOCK_EX)]):
                await held.enter_async_context(self._held([(user, fcntl.LOCK_SH)]))
            await held.enter_async_context(self._held([(s, fcntl.LOCK_EX) for s in stripes]))
            yield KEPT

    @contextlib.asynccontextmanager
    async def user(self, user_id: str) -> AsyncIterator[Fence]:
        user = self._stripe("user", user_id)
        async with contextlib.AsyncExitStack() as held:
            async with self._held([(self._gate(user), fcntl.LOCK_EX)]):
                await held.enter_async_context(self._held([(user, fcntl.LOCK_EX)]))
            yield KEPT

    async def aclose(self) -> None:
        """Nothing to close: each lock's file is closed with it."""

    @staticmethod
    def _gate(stripe: Path) -> Path:
        return stripe.with_name(f"gate-{stripe.name}")

    @contextlib.asynccontextmanager
    async def _held(self, wanted: list[tuple[Path, int]]) -> AsyncIterator[None]:
        fds: list[int] = []
        try:
            for path, mode in wanted:
                fds.append(await self._lock(path, mode))
            yield
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)  # releases its lock

    async def _lock(self, path: Path, mode: int) -> int:
        fd = self._open(path)
        wait, longest = _POLL_S
        deadline = time.monotonic() + self._wait_s
        try:
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        log.error("Write lock %s not granted in %.0f s", path.name, self._wait_s)
                        raise StoreUnavailableError(f"write lock {path.name} not granted") from None
                    await asyncio.sleep(wait)
                    wait = min(2 * wait, longest)
                except OSError as exc:
                    raise self._unusable(path, exc) from exc
        except BaseException:
            os.close(fd)
            raise

    def _open(self, path: Path) -> int:
        """Read-write where it may (NFS locks exclusively only what is open for writing), else
        read-only: a file another user created (a CLI run as root) locks as well locally."""
        flags = os.O_CREAT | os.O_CLOEXEC
        try:
            try:
                return os.open(path, os.O_RDWR | flags, 0o666)
            except FileNotFoundError:
                self._dir.mkdir(parents=True, exist_ok=True)
                return os.open(path, os.O_RDWR | flags, 0o666)
            except PermissionError:
                return os.open(path, os.O_RDONLY | flags, 0o666)
        except OSError as exc:
            raise self._unusable(path, exc) from exc

    def _unusable(self, path: Path, exc: OSError) -> StoreUnavailableError:
        log.error("Write lock %s unusable in %s: %s", path.name, self._dir, exc.strerror)
        return StoreUnavailableError(f"write lock {path.name}: {exc.strerror}")


class WriteLocks:
    """A SharedLock per user and a lock per memory, each alive while someone holds it; with
    ``across``, the same locks across processes."""

    def __init__(self, across: ProcessLocks | None = None) -> None:
        self._across = across
        self._users: weakref.WeakValueDictionary[str, SharedLock] = weakref.WeakValueDictionary()
        self._memories: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    @contextlib.asynccontextmanager
    async def memories(self, user_id: str, memory_ids: Iterable[str]) -> AsyncIterator[Fence]:
        """Some memories of a user: beside writes of the user's other memories. Many at once
        (a bulk insert) take the whole user: a lock file per memory stripe would hold up to
        1,024 descriptors at once."""
        ids = sorted(set(memory_ids))
        if len(ids) > MANY_MEMORIES:
            async with self.user(user_id) as fence:
                yield fence
            return
        user = self._user(user_id)
        locks = [self._memory(m) for m in ids]  # one order: no deadlock
        async with user.shared(), contextlib.AsyncExitStack() as held:
            for lock in locks:
                await held.enter_async_context(lock)
            fence = KEPT
            if self._across is not None:
                fence = await held.enter_async_context(self._across.memories(user_id, ids))
            yield fence

    @contextlib.asynccontextmanager
    async def user(self, user_id: str) -> AsyncIterator[Fence]:
        """All of a user's rows: alone."""
        async with self._user(user_id).exclusive(), contextlib.AsyncExitStack() as held:
            fence = KEPT
            if self._across is not None:
                fence = await held.enter_async_context(self._across.user(user_id))
            yield fence

    async def aclose(self) -> None:
        if self._across is not None:
            await self._across.aclose()

    def _user(self, user_id: str) -> SharedLock:
        lock = self._users.get(user_id)
        if lock is None:
            lock = self._users[user_id] = SharedLock()
        return lock

    def _memory(self, memory_id: str) -> asyncio.Lock:
        lock = self._memories.get(memory_id)
        if lock is None:
            lock = self._memories[memory_id] = asyncio.Lock()
        return lock
