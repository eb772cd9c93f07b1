"""The processor's shutdown order: health checks told first, in-flight streams let finish,
the worker drained, then the rest closed (a store closed before the drain would lose what the
worker was writing)."""

from __future__ import annotations

from typing import Any

from grpc_health.v1 import health_pb2

from memory_extproc import config as config_module
from memory_extproc.extproc.servicer import SERVICE_NAME
from memory_extproc.server import Processor


class Part:
    """Any part of the processor: records each call, in order, in one shared log."""

    def __init__(self, name: str, log: list[str]) -> None:
        self._name, self._log = name, log

    def __getattr__(self, method: str) -> Any:
        def call(*args: object) -> Any:
            self._log.append(f"{self._name}.{method}{args if method == 'set' else ''}")
            return self._done()

        return call

    async def _awaited(self) -> None:
        return None

    def _done(self) -> Any:
        return self._awaited() if self._name not in ("metrics", "embeddings") else None


async def test_stopping_tells_envoy_first_and_drains_the_worker_before_closing_the_store() -> None:
    log: list[str] = []
    config = config_module.load(None)
    processor = Processor(
        config,
        server=Part("server", log),  # type: ignore[arg-type]
        health=Part("health", log),
        store=Part("store", log),  # type: ignore[arg-type]
        embeddings=Part("embeddings", log),  # type: ignore[arg-type]
        supervisor=Part("supervisor", log),  # type: ignore[arg-type]
        metrics_server=Part("metrics", log),
    )
    await processor.stop()
    assert [entry.split("(")[0] for entry in log] == [
        "health.set", "health.set",  # not serving, for the whole server and for ext_proc
        "server.stop",  # in-flight streams finish within the grace period
        "supervisor.stop",  # the worker drains: it writes to the store
        "metrics.shutdown",
        "store.close",
        "embeddings.close",
    ]  # fmt: skip
    not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
    assert log[:2] == [f"health.set{('', not_serving)}", f"health.set{(SERVICE_NAME, not_serving)}"]
