"""Wiring only: build the components from the configuration and serve until told to stop."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import start_http_server

from memory_extproc import metrics
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.api.service import MemoryApi
from memory_extproc.config import Config
from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder, model_files
from memory_extproc.embedding.quantize import DEFAULT_CACHE, int8_model
from memory_extproc.extproc.exchange import ProcessorDeps
from memory_extproc.extproc.servicer import ExternalProcessor
from memory_extproc.extraction.facts import FactLimits
from memory_extproc.extraction.llm_client import ChatClient
from memory_extproc.extraction.pool import WorkerPool
from memory_extproc.extraction.service import BatchProcessor, ExtractionService
from memory_extproc.extraction.writer import MemoryWriter
from memory_extproc.retention.usage import UsageTracker
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import RankPolicy
from memory_extproc.retrieval.rewrite import QueryRewriter
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.milvus import MilvusStore

log = logging.getLogger(__name__)
SERVICE_NAME = "envoy.service.ext_proc.v3.ExternalProcessor"


def build_embedder(config: Config) -> OnnxEmbedder:
    emb = config.memory.embedding
    files = model_files(emb.model_path, emb.tokenizer_path)
    if emb.precision == "int8" and not emb.model_path:
        files = int8_model(files, Path(emb.cache_dir) if emb.cache_dir else DEFAULT_CACHE)
    return OnnxEmbedder(files, threads=emb.threads)


def build_store(config: Config, client_name: str = "query") -> MilvusStore:
    milvus = config.memory.milvus
    return MilvusStore(
        milvus.uri,
        milvus.collection,
        milvus.dimension,
        token=milvus.token,
        timeout_s=milvus.timeout_seconds,
        client_name=client_name,
    )


def extraction_model(config: Config) -> ChatClient | None:
    model = config.memory.model("memory_extraction")
    return ChatClient(model, retries=config.memory.extraction.retries) if model else None


def query_rewriter(config: Config) -> QueryRewriter | None:
    """No retries: a rewrite that is not back within the budget is not waited for."""
    model = config.memory.model("memory_rewrite")
    return QueryRewriter(ChatClient(model, retries=0)) if model else None


def build_extraction(config: Config, usage: UsageTracker | None = None) -> ExtractionService:
    """The processor's side of the worker process (extraction, usage renewals, pruning)."""
    llm = config.memory.model("memory_extraction") is not None
    every = config.memory.extraction_batch_size if llm else 1  # episodic: every turn
    return ExtractionService(
        config=config, tracker_every=every, mode="llm" if llm else "episodic", usage=usage
    )


def fact_limits(config: Config) -> FactLimits:
    settings = config.memory.extraction
    return FactLimits(settings.min_fact_chars, settings.max_fact_chars, settings.max_facts)


def build_processor(config: Config) -> BatchProcessor:
    """The worker's side: LLM extraction when a memory_extraction model is configured, else
    episodic Q/A chunks of every substantive turn; its own Milvus client and embedder."""
    settings = config.memory.extraction
    client = extraction_model(config)
    limits = fact_limits(config)
    store = build_store(config, "extraction")
    embedder = EmbeddingBatcher(build_embedder(config), name="extraction")
    return BatchProcessor(
        pool=WorkerPool(
            queue_size=settings.queue_size,
            concurrency=settings.concurrency,
            job_timeout_s=settings.job_timeout_seconds,
        ),
        writer=build_writer(config, store, embedder, client),
        store=store,
        extractor=client,
        limits=limits,
        retention=config.memory.retention,
    )


def build_writer(
    config: Config, store: MilvusStore, embedder: EmbeddingBatcher, judge: ChatClient | None
) -> MemoryWriter:
    retention = config.memory.retention
    return MemoryWriter(
        store,
        embedder,
        judge,
        ttl_ms=retention.ttl_ms,
        max_per_user=retention.max_memories_per_user,
    )


def build_api(config: Config, store: MilvusStore, embedder: EmbeddingBatcher) -> MemoryApi:
    """Explicit adds dedup (hash, restatement) but are not reconciled by a model: the user
    said it, and an API call must not wait on an LLM."""
    return MemoryApi(
        store,
        embedder,
        build_writer(config, store, embedder, None),
        default_threshold=config.memory.default_similarity_threshold,
    )


def retrieval_policy(config: Config) -> RetrievalPolicy:
    memory = config.memory
    return RetrievalPolicy(
        limit=memory.default_retrieval_limit,
        threshold=memory.default_similarity_threshold,
        max_context_chars=memory.retrieval.max_context_chars,
        excluded_paths=frozenset(memory.retrieval.excluded_paths),
        excluded_models=frozenset(memory.retrieval.excluded_models),
        ranking=RankPolicy(hybrid=memory.retrieval.hybrid),
    )


async def serve(config: Config) -> None:
    memory = config.memory
    store: MilvusStore | None = None
    batcher: EmbeddingBatcher | None = None
    retrieval = None
    extraction: ExtractionService | None = None
    worker: ExtractionService | None = None
    api: MemoryApi | None = None
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
        api = build_api(config, store, batcher)
        # The worker process also renews used memories and prunes expired ones: it runs even
        # when nothing is learned from answers (auto_store: false).
        worker = build_extraction(config, usage)
        await worker.start()
        if memory.auto_store:
            extraction = worker
    else:
        log.warning("memory.enabled is false: every request passes through unchanged")

    max_bytes = config.server.max_message_mb * 1024 * 1024
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_bytes),
            ("grpc.max_send_message_length", max_bytes),
            ("grpc.so_reuseport", 0),  # a second server must fail to bind, not share the port
        ]
    )
    deps = ProcessorDeps(
        retrieval=retrieval,
        identity=memory.identity,
        signals=memory.signals,
        extraction=extraction,
        date_header=memory.extraction.date_header,
        api=api,
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
            "learning": extraction.mode if extraction is not None else "off",
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
    if worker is not None:
        await worker.stop(memory.extraction.drain_seconds)
    metrics_server.shutdown()
    if store is not None:
        await store.close()
    if batcher is not None:
        batcher.close()
    log.info("stopped")
