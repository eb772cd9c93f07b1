"""Envoy in front of one processor, both on free ports: what `make eval` and `make scenarios`
run the product as. The processor can be stopped (SIGTERM: it extracts what is pending) and
started again behind the same Envoy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devstack.envoy import EnvoyProcess, Upstream, render
from devstack.ports import free_port
from devstack.processor import ProcessorProcess, write_config
from devstack.tokens import DevIdentity


class Gateway:
    def __init__(
        self,
        workdir: Path,
        memory: dict[str, Any],
        llm_port: int,
        identity: DevIdentity,
        *,
        log_level: str = "WARNING",
    ) -> None:
        self.workdir = workdir
        self.grpc_port, self.admin_port, envoy_port = free_port(), free_port(), free_port()
        memory = dict(memory)  # turns wait in the run's own spool, never the user's
        memory["extraction"] = {"spool_dir": str(workdir / "spool"), **memory.get("extraction", {})}
        settings = {
            "memory": memory,
            "server": {"grpc_port": self.grpc_port, "admin_port": self.admin_port,
                       "log_level": log_level, "grace_seconds": 2},
        }  # fmt: skip
        self.config = write_config(workdir / "config.yaml", settings)
        self.processor: ProcessorProcess | None = None
        self.envoy = EnvoyProcess(
            render(
                listen_port=envoy_port, admin_port=free_port(), processor_ports=[self.grpc_port],
                upstream=Upstream("127.0.0.1", llm_port), jwks_path=identity.jwks_path,
            ),
            workdir / "envoy",
        )  # fmt: skip
        self.url = f"http://127.0.0.1:{envoy_port}"
        self.chat_url = f"{self.url}/v1/chat/completions"
        self.metrics_url = f"http://127.0.0.1:{self.admin_port}/metrics"

    def start(self) -> None:
        self.envoy.wait_ready()
        self.start_processor(1)

    def start_processor(self, run: int) -> None:
        self.processor = ProcessorProcess(
            self.config, self.grpc_port, self.workdir / f"processor-{run}.log"
        )
        self.processor.wait_ready()
        self.processor.wait_memory_enabled(self.admin_port)

    def stop_processor(self) -> None:
        """SIGTERM: the worker extracts every pending batch before the process exits."""
        if self.processor is not None:
            self.processor.stop(grace_s=3600)
            self.processor = None

    def stop(self) -> None:
        self.stop_processor()
        self.envoy.stop()
