"""Prometheus metrics. Labels are small closed sets: never a user id, memory id or text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

_LATENCY_BUCKETS = (
    0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5, 1.0,
)  # fmt: skip

EXTPROC_STREAMS = Counter(
    "memory_extproc_streams_total", "ext_proc streams opened by Envoy (one per HTTP request)"
)
EXTPROC_ERRORS = Counter(
    "memory_extproc_errors_total",
    "Internal errors answered with CONTINUE (fail open), by the message being processed",
    ["phase"],
)
REQUESTS = Counter(
    "memory_extproc_requests_total",
    "HTTP requests seen, by API (chat_completions, responses, memory_api, other)",
    ["api"],
)
RETRIEVAL_OUTCOMES = Counter(
    "memory_retrieval_outcomes_total",
    "What memory did for each LLM request: injected, no_results, a skip reason, timeout or error",
    ["outcome"],
)
COMPRESSION = Counter(
    "memory_compression_total",
    "Requests that asked for compression, by outcome: compressed, or why they went as sent "
    "(short, no_state, diverged, nothing_old, not_editable, unavailable)",
    ["outcome"],
)
CONVERSATION_STATES = Counter(
    "memory_conversation_states_total",
    "Running states of conversations that asked for compression, written by the extraction "
    "model as the worker learned a batch, or failed (the state before is kept)",
    ["outcome"],
)
COMPRESSION_TOKENS_SAVED = Counter(
    "memory_compression_tokens_saved_total",
    "Tokens of conversation compressed requests did not send (estimated: characters / 4, a "
    "CJK character one)",
)
RETRIEVAL_SECONDS = Histogram(
    "memory_retrieval_seconds",
    "Time spent on retrieval for requests that searched (decision, embedding, search, injection)",
    buckets=_LATENCY_BUCKETS,
)
INJECTED_MEMORIES = Histogram(
    "memory_injected_memories",
    "Memories injected per request that received any",
    buckets=(1, 2, 3, 4, 5, 6, 8, 10, 15, 20),
)
INJECTED_CHARS = Histogram(
    "memory_injected_chars",
    "Size of the injected memory context, in characters",
    buckets=(100, 250, 500, 1000, 2000, 4000, 8000),
)
REWRITES = Counter(
    "memory_rewrite_total",
    "Query rewrites of vague messages: rewritten, or why not (timeout, error, unusable, no_time)",
    ["outcome"],
)
EMBEDDING_SECONDS = Histogram(
    "memory_embedding_seconds",
    "Time of one embedding model run, by embedder (hot path or background)",
    ["embedder"],
    buckets=_LATENCY_BUCKETS,
)
EMBEDDING_BATCH_SIZE = Histogram(
    "memory_embedding_batch_size",
    "Texts per embedding model run",
    ["embedder"],
    buckets=(1, 2, 4, 8, 16, 32, 64),
)
STORE_ERRORS = Counter(
    "memory_store_errors_total", "Failed store (Milvus) operations, by operation", ["operation"]
)
SHARED_STATE_ERRORS = Counter(
    "memory_shared_state_errors_total",
    "Calls to what processor replicas share in Valkey that failed or were skipped while it was "
    "unreachable, by operation: conversation state (read, write, forget, listen), pending turns "
    "(keep, pending, take, ack, adopt, heartbeat, release, start), the store's write locks "
    "(lock, lock_renew, lock_release)",
    ["operation"],
)
STORE_SECONDS = Histogram(
    "memory_store_seconds", "Store (Milvus) operation latency", ["operation"],
    buckets=_LATENCY_BUCKETS,
)  # fmt: skip
STORE_AVAILABLE = Gauge(
    "memory_store_available",
    "1 while the memory store is connected and usable, else 0, by client (query, extraction)",
    ["client"],
)
MEMORIES_REMOVED = Counter(
    "memory_retention_removed_total",
    "Memories removed by retention: expired (TTL) or over_user_cap (least recently used)",
    ["reason"],
)
MEMORIES_CASCADED = Counter(
    "memory_cascaded_total",
    "Memories a move ended with it: the user's local life in the place they left",
)
MEMORIES_REVIEWED = Counter(
    "memory_review_total",
    "Learned memories under the confidence bar: held for review, confirmed by a second "
    "observation or by the user, rejected by the user",
    ["event"],  # held, observed_again, confirmed, rejected
)
MEMORIES_OVERRULED = Counter(
    "memory_overruled_total",
    "Memories retired into a newer one's history when it was written: it changed, corrected or "
    "ended them, or said the same thing and more",
)
MEMORIES_RENEWED = Counter(
    "memory_retention_renewed_total", "Memories whose use was recorded (count and TTL renewed)"
)
USAGE_DROPPED = Counter(
    "memory_usage_dropped_total", "Memory uses not recorded: the usage buffer was full"
)
API_REQUESTS = Counter(
    "memory_api_requests_total",
    "Memory API (/v1/memory) calls, by method and status",
    ["method", "status"],
)

# Response path
TURNS = Counter(
    "memory_turns_total",
    "Answers seen by the response path: captured, or why not (not_2xx, no_text, aborted, …)",
    ["outcome"],
)
TURNS_FORGOTTEN = Counter(
    "memory_turns_forgotten_total",
    "Captured turns a forget of their user or project cancelled before they were learned: "
    "pending (dropped by the processor), job (skipped by the worker), written (taken back)",
    ["stage"],
)
EXTRACTION_BATCHES = Counter(
    "memory_extraction_batches_total",
    "Batches of turns handed to the extraction worker, by trigger (every_n, idle)",
    ["reason"],
)
EXTRACTION_QUEUE_DEPTH = Gauge("memory_extraction_queue_depth", "Extraction jobs waiting")
EXTRACTION_DROPPED = Counter(
    "memory_extraction_dropped_total",
    "Extraction jobs dropped, by reason (queue_full, timeout, shutdown, failed: given up on)",
    ["reason"],
)
SPOOL_TURNS = Counter(
    "memory_spool_turns_total",
    "Captured turns and the spool: spooled (kept on disk or in Valkey until learned), replayed "
    "(delivered again after a restart, a worker death or a dead replica), not_kept (spool full, "
    "or Valkey unreachable), unreadable",
    ["event"],
)
SPOOL_BYTES = Gauge("memory_spool_bytes", "Bytes of captured turns waiting in the spool")
SPOOL_STREAM_LENGTH = Gauge(
    "memory_spool_stream_length",
    "Batches in the Valkey stream of captured turns (memory.valkey.url), read or not, until "
    "learned: the fleet's backlog, as this replica last saw it",
)
EXTRACTION_JOBS = Counter(
    "memory_extraction_jobs_total",
    "Finished extraction jobs: ok, or the failure (llm_error, parse_error, store_error, …)",
    ["outcome"],
)
EXTRACTION_FACTS = Counter(
    "memory_extraction_facts_total",
    "What happened to each extracted fact: stored, updated, deduped, deleted, noop, rejected_*",
    ["outcome"],
)
REDACTIONS = Counter(
    "memory_redactions_total",
    "Secrets and personal data kept out of memory, by class (api_key, card, email, …) and where "
    "found: turn (a captured message, before extraction or notes), fact (a memory the model or "
    "a note wrote), api (a /v1/memory write). Never a value",
    ["class", "where"],
)
EXTRACTION_JOB_SECONDS = Histogram(
    "memory_extraction_job_seconds",
    "Time of one extraction job, from start to its last write",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
)
LLM_SECONDS = Histogram(
    "memory_llm_seconds",
    "Calls to the memory models, by role, task (the answer's schema: memory_facts, "
    "memory_still_true, …) and outcome",
    ["role", "task", "outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
LLM_TOKENS = Counter(
    "memory_llm_tokens_total",
    "Tokens of the memory models' calls as the endpoint reports them: prompt, cached_prompt "
    "(the part served from its prompt cache), completion",
    ["role", "task", "kind"],
)
LEARNING_LAG = Histogram(
    "memory_learning_lag_seconds",
    "From a turn's request until the worker has learned from it and its memories are "
    "searchable (batching, queueing, extraction, writing)",
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600),
)
LLM_FORMAT_FALLBACKS = Counter(
    "memory_llm_format_fallbacks_total",
    "response_format kinds an endpoint refused (400); later calls ask with the next one",
    ["role", "refused"],
)
LLM_ANSWERS = Counter(
    "memory_llm_answers_total",
    "How the memory models' answers read: clean, repaired (fenced, embedded in prose, bare list,"
    " renamed key, defaulted type) or unusable (truncated, invalid_json, wrong_shape)",
    ["role", "outcome"],
)
EXTRACTION_WORKER_RESTARTS = Counter(
    "memory_extraction_worker_restarts_total", "Times the extraction worker process died"
)


# The extraction worker is a separate process: it sends its memory_* samples every second and
# the processor exports them added to its own (one scrape target, one set of names).
WorkerSample = tuple[str, str, tuple[tuple[str, str], ...], float]  # family, sample, labels, value


class WorkerSamples(Collector):
    """The processor's metrics plus the worker's latest samples."""

    def __init__(self, source: CollectorRegistry) -> None:
        self._source = source
        self._latest: list[WorkerSample] = []

    def update(self, samples: list[WorkerSample]) -> None:
        self._latest = samples

    def collect(self) -> Iterator[Metric]:
        return iter(merge(self._source.collect(), self._latest))


def merge(families: Iterable[Metric], extra: list[WorkerSample]) -> list[Metric]:
    """Each family with the extra samples added: same series summed, new series appended."""
    by_family: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = {}
    for family_name, name, labels, value in extra:
        by_family.setdefault(family_name, {})[(name, labels)] = value
    merged: list[Metric] = []
    for family in families:
        more = by_family.get(family.name)
        if not more:
            merged.append(family)
            continue
        out = Metric(family.name, family.documentation, family.type, family.unit)
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            out.add_sample(sample.name, sample.labels, sample.value + more.pop(key, 0.0))
        for (name, labels), value in more.items():
            out.add_sample(name, dict(labels), value)
        merged.append(out)
    return merged


WORKER = WorkerSamples(REGISTRY)
EXPORTED = CollectorRegistry(auto_describe=False)
EXPORTED.register(WORKER)
