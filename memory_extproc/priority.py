"""Cooperative priority: background work steps aside while retrievals are in flight.

The hot path marks retrievals in flight (on its loop); background steps (embedding a fact, a
Milvus call, on the background loop) first wait until none is, for a bounded time. Under light
load background work slips into the gaps; under sustained load it still makes progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator


class HotPath:
    def __init__(self) -> None:
        self._active = 0  # written by the hot path's loop only; read from anywhere

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        self._active += 1
        try:
            yield
        finally:
            self._active -= 1

    async def yield_to(self, max_wait_s: float = 0.05) -> None:
        deadline = time.monotonic() + max_wait_s
        while self._active and time.monotonic() < deadline:  # noqa: ASYNC110 - another loop sets it
            await asyncio.sleep(0.001)
