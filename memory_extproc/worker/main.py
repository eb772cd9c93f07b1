"""The extraction worker: a child process (nice 10) that turns batches into memories.

Learning from answers costs CPU (LLM calls, embedding facts, Milvus round trips) and, in Python,
the GIL. Measured on the 2-core bench: sharing the processor's event loop made retrieval p99 1.4x
worse while the pool was busy, a thread of the same process 1.8-2x (the GIL, and a niced thread
holding it); the same work in a separate niced process: 1.02x. So it runs here, with its own
Milvus client, embedder and LLM client, fed through a bounded queue. Its Prometheus samples are
sent back every second and exported by the processor (memory_extproc/metrics.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import queue
import signal
from multiprocessing.context import SpawnProcess
from typing import Any

from prometheus_client import REGISTRY

from memory_extproc import logs, metrics, tracing
from memory_extproc.config import Config
from memory_extproc.handoff import Batch, ForgetCachedTexts
from memory_extproc.memories.retention import UsageBatch
from memory_extproc.receipts import Learned
from memory_extproc.wiring import (
    build_embeddings,
    build_store,
    build_writer,
    extraction_model,
    fact_limits,
    redaction_policy,
)
from memory_extproc.worker.jobs import LearningJobs
from memory_extproc.worker.pool import WorkerPool

log = logging.getLogger(__name__)

METRICS_PERIOD_S = 1.0


def snapshot() -> list[metrics.WorkerSample]:
    """This process's memory_* samples (cumulative), to be added to the processor's."""
    return [
        (family.name, sample.name, tuple(sorted(sample.labels.items())), sample.value)
        for family in REGISTRY.collect()
        if family.name.startswith("memory_")
        for sample in family.samples
        if not sample.name.endswith("_created")
    ]


def spawn(config: Config, batches: Any, events: Any, stop: Any) -> SpawnProcess:
    process = multiprocessing.get_context("spawn").Process(
        target=main, args=(config, batches, events, stop, os.getpid()),
        name="memory-extraction", daemon=True,
    )  # fmt: skip
    process.start()
    return process


def main(config: Config, batches: Any, events: Any, stop: Any, parent: int) -> None:
    os.nice(10)  # the kernel serves the hot path first
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the processor decides when to stop
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logs.setup(config.server.log_level)
    tracing.configure()
    try:
        asyncio.run(_serve(config, batches, events, stop, parent))
    finally:
        tracing.shutdown()


def build_jobs(config: Config) -> LearningJobs:
    """LLM extraction when a memory_extraction model is configured, else notes of every
    substantive turn; with its own Milvus client and embedder."""
    settings = config.memory.extraction
    client = extraction_model(config)
    store = build_store(config, "extraction")
    embedder = build_embeddings(config, "extraction")
    return LearningJobs(
        pool=WorkerPool(
            queue_size=settings.queue_size,
            concurrency=settings.concurrency,
            job_timeout_s=settings.job_timeout_seconds,
        ),
        writer=build_writer(config, store, embedder, client),
        store=store,
        extractor=client,
        limits=fact_limits(config),
        retention=config.memory.retention,
        redaction=redaction_policy(config),
        embedder=embedder,
        state_words=config.memory.compression.state_words,
    )


async def _serve(config: Config, batches: Any, events: Any, stop: Any, parent: int) -> None:
    """Take batches while the pool has room (the rest wait in the processor's spool) until the
    processor says stop, then drain within the grace period. Each finished batch is reported
    ("done", (entry, what was learned)) so the spool can let it go and its receipts tell what
    became of it; an unfinished one ("failed", entry) is delivered again later."""
    jobs = build_jobs(config)
    await jobs.start()
    pump = asyncio.get_running_loop().create_task(_send_metrics(events, parent))

    def done(entry: str, learned: Learned | None) -> None:
        events.put(("failed", entry) if learned is None else ("done", (entry, learned)))

    stopping = False
    while True:
        try:
            item = await asyncio.to_thread(batches.get, True, 0.2 if stopping else 0.5)
        except queue.Empty:
            if stopping:
                break  # everything sent before the stop is in the pool (or left to the spool)
            stopping = stop.is_set()
            continue
        if isinstance(item, Batch):
            while not jobs.submit(item, done):  # full: wait for room
                if stopping:
                    break  # the spool keeps it for the next start
                await jobs.room(0.5)
                stopping = stop.is_set()
        elif isinstance(item, UsageBatch):
            jobs.record_use(item)
        elif isinstance(item, ForgetCachedTexts):
            jobs.forget_cached_texts()
        stopping = stopping or stop.is_set()
    await jobs.stop(config.memory.extraction.drain_seconds)
    pump.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pump
    events.put(("metrics", snapshot()))


async def _send_metrics(events: Any, parent: int) -> None:
    while True:
        events.put(("metrics", snapshot()))
        if os.getppid() != parent:  # the processor was killed: its successor delivers again
            log.error("Processor gone, extraction worker exits")
            os._exit(1)
        await asyncio.sleep(METRICS_PERIOD_S)


def drain_events(events: Any, timeout_s: float) -> list[Any]:
    """Everything the worker sent, waiting up to ``timeout_s`` for the first item."""
    items = []
    with contextlib.suppress(queue.Empty):
        items.append(events.get(timeout=timeout_s))
        while True:
            items.append(events.get_nowait())
    return items
