"""Child processes in their own process group, stopped for real (signal, then SIGKILL), also
when the harness that started them is stopped."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

_T = TypeVar("_T")


class ManagedProcess:
    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        log_path: Path,
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = log_path.open("ab")
        self.proc = subprocess.Popen(
            list(argv),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
            cwd=cwd,
        )

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def wait_until(self, ready: Callable[[], bool], timeout_s: float, poll_s: float = 0.2) -> None:
        """Poll ``ready`` until true; fail fast if the process dies, with its log tail."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.running:
                raise RuntimeError(
                    f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}"
                )
            try:
                if ready():
                    return
            except Exception:
                pass
            time.sleep(poll_s)
        raise TimeoutError(f"{self.name} not ready after {timeout_s:.0f}s:\n{self.log_tail()}")

    def stop(self, sig: int = signal.SIGTERM, grace_s: float = 10.0) -> int | None:
        """``sig``, then SIGKILL to what is left of the group; once: a stopped process's id may
        since name another's group."""
        if self._log.closed:
            return self.proc.returncode
        with contextlib.suppress(ProcessLookupError):
            if self.running:
                os.killpg(self.proc.pid, sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=grace_s)
            # Whatever is left of the group (Milvus' server under its wrapper) goes now.
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._log.close()
        return self.proc.returncode

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def run_harness(main: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """``asyncio.run(main())`` where a stop unwinds ``main``'s ``finally`` blocks, so Milvus,
    Envoy and the model it started stop with it. Its children live in their own process
    groups and never see the signal: a plain SIGTERM (``kill``, or make passing it on) would
    leave them running, as would a SIGINT ignored because the harness started in the
    background."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupted)
    return asyncio.run(main())
