"""Who may write a user's rows at once, in this process.

A revision is delete + insert of one primary key: two of one memory at once both delete, then
both insert, and the memory is stored twice. So writes of one memory take turns; writes of
different memories of one user run side by side (24 concurrent edits of one user took 10 s in
a row, Envoy's API timeout); a write of the whole user (a forget of a scope, a trim) waits for
all of them and holds the others back until it is done, so nothing it deleted is written back.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Iterable


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


class WriteLocks:
    """A SharedLock per user and a lock per memory, each alive while someone holds it."""

    def __init__(self) -> None:
        self._users: weakref.WeakValueDictionary[str, SharedLock] = weakref.WeakValueDictionary()
        self._memories: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    @contextlib.asynccontextmanager
    async def memories(self, user_id: str, memory_ids: Iterable[str]) -> AsyncIterator[None]:
        """Some memories of a user: beside writes of the user's other memories."""
        user = self._user(user_id)
        locks = [self._memory(m) for m in sorted(set(memory_ids))]  # one order: no deadlock
        async with user.shared(), contextlib.AsyncExitStack() as held:
            for lock in locks:
                await held.enter_async_context(lock)
            yield

    @contextlib.asynccontextmanager
    async def user(self, user_id: str) -> AsyncIterator[None]:
        """All of a user's rows: alone."""
        async with self._user(user_id).exclusive():
            yield

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
