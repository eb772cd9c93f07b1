"""Builders shared by the two processes and the tools: the processor (server.py), the worker
(worker/main.py), the CLI and the doctor each compose their parts from these."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memory_extproc.api.service import ConversationStates, ForgetHook, MemoryApi, ReceiptReader
from memory_extproc.config import Config
from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder, model_files
from memory_extproc.embedding.model import ModelIntegrityError
from memory_extproc.embedding.multilingual import MODEL_NAME as MULTILINGUAL_MODEL
from memory_extproc.embedding.multilingual import MultilingualEmbedder
from memory_extproc.embedding.quantize import DEFAULT_CACHE, int8_model
from memory_extproc.embedding.spaces import DIMENSION, Embeddings
from memory_extproc.llm_client import ChatClient
from memory_extproc.memories.facts import FactLimits
from memory_extproc.memories.redaction import CLASSES, RedactionPolicy
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import RankPolicy
from memory_extproc.retrieval.rewrite import QueryRewriter
from memory_extproc.store.locks import FileLocks, ProcessLocks
from memory_extproc.store.locks_valkey import ValkeyLocks
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Confidence

STORE_LOCKS = ".store-locks"  # without Valkey, in the spool_dir all processes share; spools skip it


def build_embedder(config: Config) -> OnnxEmbedder:
    emb = config.memory.embedding
    files = model_files(emb.model_path, emb.tokenizer_path)
    if emb.precision == "int8" and not emb.model_path:
        files = int8_model(files, Path(emb.cache_dir) if emb.cache_dir else DEFAULT_CACHE)
    try:
        return OnnxEmbedder(files, threads=emb.threads)
    except ModelIntegrityError:
        raise
    except Exception as exc:  # onnxruntime's and tokenizers' own errors: a damaged file
        raise ModelIntegrityError(f"cannot load {files.onnx} / {files.tokenizer}: {exc}") from exc


def build_multilingual(config: Config) -> MultilingualEmbedder:
    emb = config.memory.embedding
    cache = Path(emb.cache_dir) if emb.cache_dir else DEFAULT_CACHE
    try:
        return MultilingualEmbedder(threads=emb.threads, precision=emb.precision, cache_dir=cache)
    except (ModelIntegrityError, OSError):  # OSError: a cache it cannot write, said as it is
        raise
    except Exception as exc:  # onnxruntime's and tokenizers' own errors: a damaged file
        raise ModelIntegrityError(f"cannot load {MULTILINGUAL_MODEL}: {exc}") from exc


def build_embeddings(config: Config, name: str) -> Embeddings:
    """Both models, each behind its own micro-batcher (``name`` labels their metrics)."""
    return Embeddings(
        EmbeddingBatcher(build_embedder(config), name=name),
        EmbeddingBatcher(build_multilingual(config), name=f"{name}_multilingual"),
    )


def build_store(config: Config, client_name: str = "query") -> MilvusStore:
    milvus = config.memory.milvus
    return MilvusStore(
        milvus.uri,
        milvus.collection,
        DIMENSION,
        partitions=milvus.partitions,
        token=milvus.token,
        timeout_s=milvus.timeout_seconds,
        client_name=client_name,
        locks=store_locks(config),
    )


def store_locks(config: Config) -> ProcessLocks:
    """Where every process writing the collection takes its write locks: Valkey when replicas
    share one (no shared volume needed), else the spool directory the processor and its worker
    share."""
    valkey = config.memory.valkey
    if valkey.url:
        return ValkeyLocks(valkey.url, timeout_s=valkey.timeout_seconds)
    return FileLocks(config.memory.extraction.spool_path / STORE_LOCKS)


def extraction_model(config: Config) -> ChatClient | None:
    model = config.memory.model("memory_extraction")
    return ChatClient(model, retries=config.memory.extraction.retries) if model else None


def query_rewriter(config: Config) -> QueryRewriter | None:
    """No retries: a rewrite that is not back within the budget is not waited for."""
    model = config.memory.model("memory_rewrite")
    return QueryRewriter(ChatClient(model, retries=0)) if model else None


def fact_limits(config: Config) -> FactLimits:
    settings = config.memory.extraction
    return FactLimits(settings.min_fact_chars, settings.max_fact_chars, settings.max_facts)


def redaction_policy(config: Config) -> RedactionPolicy:
    """``memory.redaction``: one key per class of the detector."""
    settings = config.memory.redaction
    return RedactionPolicy({kind: getattr(settings, kind) for kind in CLASSES})


def build_writer(
    config: Config, store: MilvusStore, embedder: Embeddings, judge: ChatClient | None
) -> MemoryWriter:
    retention, review = config.memory.retention, config.memory.review
    return MemoryWriter(
        store,
        embedder,
        judge,
        ttl_ms=retention.ttl_ms,
        max_per_user=retention.max_memories_per_user,
        hold_below=None if review.hold_below == "none" else Confidence(review.hold_below),
        pending_ms=review.pending_ms,
    )


def build_api(
    config: Config,
    store: MilvusStore,
    embedder: Embeddings,
    source: str = "api",
    on_forget: ForgetHook | None = None,
    on_texts_forgotten: Callable[[], None] | None = None,
    receipts: ReceiptReader | None = None,
    conversations: ConversationStates | None = None,
) -> MemoryApi:
    """Explicit adds dedup (hash, restatement) but are not reconciled by a model: the user
    said it, and an API call must not wait on an LLM."""
    return MemoryApi(
        store,
        embedder,
        build_writer(config, store, embedder, None),
        default_threshold=config.memory.default_similarity_threshold,
        redaction=redaction_policy(config),
        source=source,
        on_forget=on_forget,
        on_texts_forgotten=on_texts_forgotten,
        receipts=receipts,
        conversations=conversations,
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
        preferences=memory.retrieval.preferences,
    )
