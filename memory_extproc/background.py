"""Background work on its own thread and event loop, at a lower CPU priority.

Learning from answers (LLM calls, embedding facts, Milvus writes) must never delay the hot path.
On a shared event loop every background step runs between hot-path messages; on its own loop and
thread, at nice 10, the kernel serves the hot path first and the GIL is handed back within the
switch interval (0.5 ms, set by the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def lower_thread_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):  # Linux: threads have their own nice
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


class BackgroundLoop:
    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait()

    def _main(self) -> None:
        lower_thread_priority()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    def call(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the background loop, soon; never blocks the caller."""
        assert self._loop is not None, "not started"
        self._loop.call_soon_threadsafe(fn, *args)

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the background loop and await its result from another loop."""
        assert self._loop is not None, "not started"
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self._loop))

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
