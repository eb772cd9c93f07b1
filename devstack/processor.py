"""The processor as a child process (`memory-extproc serve`), ready when gRPC health says so."""

from __future__ import annotations

import signal
import sys
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc

from devstack import baseline
from devstack.process import ManagedProcess


def write_config(path: Path, settings: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(settings, sort_keys=False))
    return path


def serving(grpc_port: int) -> bool:
    """gRPC health says the server on that port serves."""
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=1
        )
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


class ProcessorProcess:
    """``tree``: run another revision's processor (devstack/baseline.py) instead of today's."""

    def __init__(
        self, config_path: Path, grpc_port: int, log_path: Path, tree: Path | None = None
    ) -> None:
        self.grpc_port = grpc_port
        self._process = ManagedProcess(
            "memory-extproc" if tree is None else f"memory-extproc ({tree.name[:8]})",
            [sys.executable, "-m", "memory_extproc", "--config", str(config_path), "serve"],
            log_path,
            env=None if tree is None else baseline.environment(tree),
            cwd=tree,
        )

    def wait_ready(self, timeout_s: float = 60) -> None:
        self._process.wait_until(lambda: serving(self.grpc_port), timeout_s)

    def wait_memory_enabled(self, metrics_port: int, timeout_s: float = 120) -> None:
        """Milvus replays its log after a restart; memory turns on when it has caught up."""

        def enabled() -> bool:
            url = f"http://127.0.0.1:{metrics_port}/metrics"
            with urllib.request.urlopen(url, timeout=1) as response:
                return b'memory_store_available{client="query"} 1.0' in response.read()

        self._process.wait_until(enabled, timeout_s, poll_s=0.5)

    @property
    def running(self) -> bool:
        return self._process.running

    def log_tail(self, lines: int = 30) -> str:
        return self._process.log_tail(lines)

    def kill(self) -> int | None:
        """kill -9, the processor and its worker: nothing runs its shutdown."""
        return self._process.stop(signal.SIGKILL, grace_s=0)

    def stop(self, grace_s: float = 15) -> int | None:
        return self._process.stop(signal.SIGTERM, grace_s=grace_s)
