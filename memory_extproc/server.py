"""The processor: compose its parts from the configuration and serve until told to stop.

The entry point of `memory-extproc serve`; nothing else imports it (shared builders: wiring.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import start_http_server

from memory_extproc import metrics, tracing
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.config import Config
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.extproc.servicer import SERVICE_NAME, ExternalProcessor
from memory_extproc.extproc.stream import ProcessorDeps
from memory_extproc.learning.service import LearningService
from memory_extproc.memories.retention import UsageTracker
from memory_extproc.retrieval.compression import RequestCompression
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.wiring import (
    build_api,
    build_embeddings,
    build_store,
    query_rewriter,
    redaction_policy,
    retrieval_policy,
)

log = logging.getLogger(__name__)


def build_learning(config: Config, usage: UsageTracker | None = None) -> LearningService:
    """The processor's side of the worker process (extraction, usage renewals, pruning)."""
    llm = config.memory.model("memory_extraction") is not None
    every = config.memory.extraction_batch_size if llm else 1  # notes: every turn
    return LearningService(
        config=config, tracker_every=every, mode="llm" if llm else "notes", usage=usage,
        redaction=redaction_policy(config),
    )  # fmt: skip


@dataclasses.dataclass
class Processor:
    """The processor's parts, built in one place; ``start`` and ``stop`` bring them up and down
    in order. Stopping: tell Envoy's health checks first, let in-flight streams finish, then
    drain the worker (what it holds is learned or stays in the spool), then close the rest."""

    config: Config
    server: grpc.aio.Server
    health: health.aio.HealthServicer  # type: ignore[name-defined]
    store: MilvusStore | None = None
    embeddings: Embeddings | None = None
    supervisor: LearningService | None = None  # of the worker, which also does retention
    learning: LearningService | None = None  # learns from answers (auto_store)
    metrics_server: Any = None

    @classmethod
    def build(cls, config: Config) -> Processor:
        memory = config.memory
        store = embeddings = retrieval = supervisor = memory_api = None
        if memory.enabled:
            embeddings = build_embeddings(config, "query")
            store = build_store(config)
            ttl_ms = memory.retention.ttl_ms
            usage = UsageTracker(ttl_ms) if ttl_ms else None
            # The worker process also renews used memories and prunes expired ones: it runs
            # even when nothing is learned from answers (auto_store: false).
            supervisor = build_learning(config, usage)
            retrieval = MemoryRetrieval(
                embeddings,
                store,
                retrieval_policy(config),
                budget_s=memory.retrieval.time_budget_ms / 1000,
                usage=usage,
                rewriter=query_rewriter(config),
                # what the worker read of each conversation, kept where replicas share it
                compression=RequestCompression(supervisor.chunks, memory.compression),
            )
            memory_api = build_api(
                config,
                store,
                embeddings,
                on_forget=supervisor.forget,
                on_texts_forgotten=supervisor.forget_cached_texts,
                receipts=supervisor.receipt,
                conversations=supervisor,
            )
            supervisor.when_forgotten_elsewhere(memory_api.forget_cached_texts_here)
        else:
            log.warning("memory.enabled is false: every request passes through unchanged")
        learning = supervisor if memory.auto_store else None
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", config.server.max_message_bytes),
                # a reply is a body we read plus the memory block (up to max_context_chars)
                ("grpc.max_send_message_length", -1),
                ("grpc.so_reuseport", 0),  # a second server must fail to bind, not share the port
            ]
        )
        deps = ProcessorDeps(
            retrieval=retrieval,
            identity=memory.identity,
            signals=memory.signals,
            learning=learning,
            date_header=memory.extraction.date_header,
            memory_api=memory_api,
            max_body_bytes=config.server.max_body_bytes,
        )
        pb_grpc.add_ExternalProcessorServicer_to_server(ExternalProcessor(deps), server)
        health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        return cls(config, server, health_servicer, store, embeddings, supervisor, learning)

    async def start(self) -> None:
        config = self.config
        if self.store is not None:
            await self.store.start()
        if self.supervisor is not None:
            await self.supervisor.start()
        port = self.server.add_insecure_port(f"{config.server.host}:{config.server.grpc_port}")
        self.metrics_server, _ = start_http_server(
            config.server.admin_port, config.server.admin_host, registry=metrics.EXPORTED
        )
        await self.server.start()
        await self._health(health_pb2.HealthCheckResponse.SERVING)
        log.info(
            "memory-extproc serving",
            extra={
                "grpc_port": port,
                "admin_port": self.metrics_server.server_port,
                "memory": "enabled" if config.memory.enabled else "disabled",
                "learning": self.learning.mode if self.learning is not None else "off",
            },
        )

    async def stop(self) -> None:
        log.info("shutting down", extra={"grace_seconds": self.config.server.grace_seconds})
        await self._health(health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.server.stop(self.config.server.grace_seconds)
        if self.supervisor is not None:
            await self.supervisor.stop(self.config.memory.extraction.drain_seconds)
        if self.metrics_server is not None:
            self.metrics_server.shutdown()
        if self.store is not None:
            await self.store.close()
        if self.embeddings is not None:
            self.embeddings.close()
        log.info("stopped")

    async def _health(self, status: Any) -> None:
        for name in ("", SERVICE_NAME):
            await self.health.set(name, status)


async def serve(config: Config) -> None:
    """Serve until SIGTERM or SIGINT."""
    tracing.configure()
    processor = Processor.build(config)
    await processor.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await processor.stop()
    tracing.shutdown()
