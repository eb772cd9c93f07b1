"""Cooperative priority between the hot path and background work sharing one event loop.

Retrievals mark themselves in flight; background steps (embedding a fact, a Milvus call) first
wait until none is, for a bounded time. Under light load the background work slips into the
gaps; under sustained load it still makes progress, a step at most every ``max_wait_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator


class HotPath:
    def __init__(self) -> None:
        self._active = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        self._active += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self._active -= 1
            if self._active == 0:
                self._quiet.set()

    async def yield_to(self, max_wait_s: float = 0.05) -> None:
        """Let in-flight retrievals finish first (background work calls this between steps)."""
        if self._active:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max_wait_s):
                    await self._quiet.wait()
