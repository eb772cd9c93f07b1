"""Envoy in front of one processor, both on free ports: the stack as the integration tests,
`make bench` (today's side and the baseline's), `make eval`, `make scenarios` and `make prefeval`
run it, so all of them run the same parts the same way. The processor can be stopped and a new
one started behind the same Envoy, on the same port and configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devstack.envoy import REPO_CONFIG, EnvoyProcess, Upstream, render
from devstack.ports import free_port
from devstack.processor import ProcessorProcess, write_config
from devstack.tokens import DevIdentity

DRAIN_S = 3600  # a stop that lets the worker extract every pending batch


class Gateway:
    """Started on construction, like every process here; ``wait_ready`` before use, ``stop``
    after. Files in ``workdir``: config.yaml, processor-N.log (the Nth processor), envoy/, and
    spool/ unless ``memory`` names another spool_dir.

    ``memory``: the config's memory section (its milvus address and collection included).
    ``otlp``: Envoy's traces to that collector (host, port); the processor exports where its
    OTEL_EXPORTER_OTLP_* environment says. ``direct``: a second Envoy listener to the same
    upstream without ext_proc (`direct_url`). ``tree``: another revision's processor and Envoy
    config (devstack/baseline.py) instead of today's."""

    def __init__(
        self,
        workdir: Path,
        memory: dict[str, Any],
        llm_port: int,
        identity: DevIdentity,
        *,
        log_level: str = "WARNING",
        otlp: tuple[str, int] | None = None,
        direct: bool = False,
        tree: Path | None = None,
    ) -> None:
        self.workdir, self.tree = workdir, tree
        self.grpc_port, self.admin_port = free_port(), free_port()
        envoy_port, envoy_admin_port = free_port(), free_port()
        direct_port = free_port() if direct else None
        memory = dict(memory)  # turns wait in the run's own spool, never the user's
        memory["extraction"] = {"spool_dir": str(workdir / "spool"), **memory.get("extraction", {})}
        self.settings: dict[str, Any] = {
            "memory": memory,
            "server": {"grpc_port": self.grpc_port, "admin_port": self.admin_port,
                       "log_level": log_level, "grace_seconds": 2},
        }  # fmt: skip
        self.config_path = write_config(workdir / "config.yaml", self.settings)
        self.envoy_source = REPO_CONFIG if tree is None else tree / "envoy" / "envoy.yaml"
        self.url = f"http://127.0.0.1:{envoy_port}"
        self.chat_url = f"{self.url}/v1/chat/completions"
        self.direct_url = (
            f"http://127.0.0.1:{direct_port}/v1/chat/completions" if direct_port else ""
        )
        self.metrics_url = f"http://127.0.0.1:{self.admin_port}/metrics"
        self.envoy_admin_url = f"http://127.0.0.1:{envoy_admin_port}"
        self._started = 0
        self.processor = self._processor()
        self.envoy = EnvoyProcess(
            render(
                listen_port=envoy_port, admin_port=envoy_admin_port,
                processor_ports=[self.grpc_port], upstream=Upstream("127.0.0.1", llm_port),
                jwks_path=identity.jwks_path, direct_port=direct_port, source=self.envoy_source,
                otlp=otlp,
            ),
            workdir / "envoy",
        )  # fmt: skip

    def _processor(self) -> ProcessorProcess:
        self._started += 1
        log = self.workdir / f"processor-{self._started}.log"
        return ProcessorProcess(self.config_path, self.grpc_port, log, self.tree)

    def wait_ready(self, *, memory_on: bool = True) -> None:
        """Both serve; with ``memory_on``, memory is on too (Milvus reached, its collection
        ready). Without: a test that starts the processor with Milvus down."""
        self.processor.wait_ready()
        if memory_on:
            self.processor.wait_memory_enabled(self.admin_port)
        self.envoy.wait_ready()

    def start_processor(self) -> None:
        """A new processor after the last one stopped (or was killed), ready with memory on."""
        self.processor = self._processor()
        self.processor.wait_ready()
        self.processor.wait_memory_enabled(self.admin_port)

    def stop_processor(self, grace_s: float = DRAIN_S) -> None:
        """SIGTERM: the worker extracts every pending batch before the process exits."""
        self.processor.stop(grace_s)

    def stop(self) -> None:
        """Envoy, then the processor, given 15 s: what is still pending is not waited for."""
        self.envoy.stop()
        self.processor.stop()
