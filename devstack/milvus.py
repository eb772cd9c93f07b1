"""Milvus standalone (PyPI `milvus`) as a child process with its data in a folder of ours."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from pymilvus import MilvusClient

from devstack.process import ManagedProcess


class MilvusProcess:
    def __init__(self, data_dir: Path, port: int) -> None:
        self.port = port
        self.uri = f"http://127.0.0.1:{port}"
        data_dir.mkdir(parents=True, exist_ok=True)
        self._process = ManagedProcess(
            "milvus",
            [sys.executable, "-m", "devstack.milvus_child",
             "--data", str(data_dir), "--port", str(port)],
            data_dir / "milvus-wrapper.log",
        )  # fmt: skip

    def wait_ready(self, timeout_s: float = 180) -> None:
        def ready() -> bool:
            client = MilvusClient(uri=self.uri, timeout=2)
            try:
                client.list_collections(timeout=2)
            finally:
                client.close()
            return True

        self._process.wait_until(ready, timeout_s, poll_s=0.5)

    def stop(self) -> None:
        # Milvus ignores SIGTERM for >10 s; the wrapper stops it, then the group is killed.
        self._process.stop(signal.SIGINT, grace_s=5)
