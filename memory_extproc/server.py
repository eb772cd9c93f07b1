"""The processor: compose its parts from the configuration and serve until told to stop.

The entry point of `memory-extproc serve`; nothing else imports it (shared builders: wiring.py).
"""

from __future__ import annotations

import asyncio
import logging
import signal

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import start_http_server

from memory_extproc import metrics, tracing
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.api.service import MemoryApi
from memory_extproc.config import Config
from memory_extproc.embedding import EmbeddingBatcher
from memory_extproc.extproc.servicer import SERVICE_NAME, ExternalProcessor
from memory_extproc.extproc.stream import ProcessorDeps
from memory_extproc.learning.service import LearningService
from memory_extproc.memories.retention import UsageTracker
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.wiring import (
    build_api,
    build_embedder,
    build_store,
    query_rewriter,
    retrieval_policy,
)

log = logging.getLogger(__name__)


def build_learning(config: Config, usage: UsageTracker | None = None) -> LearningService:
    """The processor's side of the worker process (extraction, usage renewals, pruning)."""
    llm = config.memory.model("memory_extraction") is not None
    every = config.memory.extraction_batch_size if llm else 1  # notes: every turn
    return LearningService(
        config=config, tracker_every=every, mode="llm" if llm else "notes", usage=usage
    )


async def serve(config: Config) -> None:
    memory = config.memory
    store: MilvusStore | None = None
    batcher: EmbeddingBatcher | None = None
    retrieval = None
    learning: LearningService | None = None  # learns from answers (auto_store)
    supervisor: LearningService | None = None  # of the worker, which also does retention
    memory_api: MemoryApi | None = None
    tracing.configure()
    if memory.enabled:
        batcher = EmbeddingBatcher(build_embedder(config), name="query")
        store = build_store(config)
        await store.start()
        ttl_ms = memory.retention.ttl_ms
        usage = UsageTracker(ttl_ms) if ttl_ms else None
        retrieval = MemoryRetrieval(
            batcher,
            store,
            retrieval_policy(config),
            budget_s=memory.retrieval.time_budget_ms / 1000,
            usage=usage,
            rewriter=query_rewriter(config),
        )
        # The worker process also renews used memories and prunes expired ones: it runs even
        # when nothing is learned from answers (auto_store: false).
        supervisor = build_learning(config, usage)
        await supervisor.start()
        memory_api = build_api(
            config,
            store,
            batcher,
            on_forget=supervisor.forget,
            on_texts_forgotten=supervisor.forget_cached_texts,
        )
        if memory.auto_store:
            learning = supervisor
    else:
        log.warning("memory.enabled is false: every request passes through unchanged")

    max_bytes = config.server.max_message_bytes
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_bytes),
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
    address = f"{config.server.host}:{config.server.grpc_port}"
    port = server.add_insecure_port(address)
    metrics_server, _ = start_http_server(
        config.server.admin_port, config.server.admin_host, registry=metrics.EXPORTED
    )
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info(
        "memory-extproc serving",
        extra={
            "grpc_port": port,
            "admin_port": metrics_server.server_port,
            "memory": "enabled" if memory.enabled else "disabled",
            "learning": learning.mode if learning is not None else "off",
        },
    )

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

    log.info("shutting down", extra={"grace_seconds": config.server.grace_seconds})
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    await server.stop(config.server.grace_seconds)
    if supervisor is not None:
        await supervisor.stop(memory.extraction.drain_seconds)
    metrics_server.shutdown()
    if store is not None:
        await store.close()
    if batcher is not None:
        batcher.close()
    tracing.shutdown()
    log.info("stopped")
