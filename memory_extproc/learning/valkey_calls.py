"""Calls to Valkey one at a time, in order, from one task, as what replicas share there needs
(learning/shared_valkey.py, learning/spool_valkey.py): a read sees this process's writes before
it, and a write never overtakes an earlier one (a batch is in the stream before the turns it
took leave the pending state).

Valkey down or slow: a call fails, is counted in ``memory_shared_state_errors_total{operation}``
and logged once, then the calls of the next ``PAUSE_S`` are skipped (counted, not logged): the
caller gets what it gave for a failure. The next call after the pause tries again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from valkey.exceptions import ValkeyError

from memory_extproc import metrics

log = logging.getLogger(__name__)
T = TypeVar("T")
PAUSE_S = 5.0  # after a failed call, calls wait this long before trying Valkey again


class OrderedCalls:
    def __init__(self, unshared: str) -> None:
        self._unshared = unshared  # what a failure means, for the log: "turns not kept there"
        self._calls: asyncio.Queue[Callable[[], Awaitable[None]]] | None = None
        self._caller: asyncio.Task[None] | None = None
        self._paused_until = 0.0

    async def call(self, operation: str, call: Callable[[], Awaitable[T]], failed: T) -> T:
        """``call`` in its turn after every call asked before it; ``failed`` if Valkey is
        down or paused. The caller giving up does not take the call back."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        async def run() -> None:
            try:
                result = await self._guarded(operation, call, failed)
            except Exception as exc:  # a bug of ours: told to the caller, who must not hang
                if not future.done():
                    future.set_exception(exc)
                raise
            if not future.done():
                future.set_result(result)

        self._queue().put_nowait(run)
        return await asyncio.shield(future)

    def submit(
        self,
        operation: str,
        call: Callable[[], Awaitable[object]],
        failed: Callable[[], None] | None = None,
    ) -> None:
        """``call`` in its turn, not waited for; ``failed()`` then if Valkey was down or paused."""

        async def run() -> None:
            if not await self._guarded(operation, _done(call), False) and failed is not None:
                failed()

        self._queue().put_nowait(run)

    async def flushed(self) -> None:
        """Every call asked for so far is done."""
        if self._calls is not None:
            await self._calls.join()

    async def aclose(self) -> None:
        await self.flushed()
        if self._caller is not None:
            self._caller.cancel()

    async def _guarded(self, operation: str, call: Callable[[], Awaitable[T]], failed: T) -> T:
        if time.monotonic() < self._paused_until:
            metrics.SHARED_STATE_ERRORS.labels(operation).inc()
            return failed
        try:
            return await call()
        except (ValkeyError, OSError) as exc:  # once per pause: then calls skip it a while
            metrics.SHARED_STATE_ERRORS.labels(operation).inc()
            log.error("Valkey unreachable: %s for %.0f s", self._unshared,
                      PAUSE_S, extra={"operation": operation, "error": str(exc)})  # fmt: skip
            self._paused_until = time.monotonic() + PAUSE_S
            return failed

    def _queue(self) -> asyncio.Queue[Callable[[], Awaitable[None]]]:
        if self._calls is None:
            self._calls = asyncio.Queue()
            self._caller = asyncio.get_running_loop().create_task(self._take_calls())
        return self._calls

    async def _take_calls(self) -> None:
        assert self._calls is not None
        while True:
            call = await self._calls.get()
            try:
                await call()
            except Exception:  # a bug in one call must not stop the others
                log.exception("A Valkey call failed")
            finally:
                self._calls.task_done()


def _done(call: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[bool]]:
    async def run() -> bool:
        await call()
        return True

    return run
