"""The request-path edge: run the plan against the embedder and the store, within one budget.

Whatever goes wrong here (timeout, Milvus down, embedder error) the request proceeds unchanged:
memory is an enhancement, never a dependency. Every request ends with exactly one outcome.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from memory_extproc import metrics, tracing
from memory_extproc.clock import now_ms
from memory_extproc.compression.plan import Compression, NotCompressed, tokens
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.identity import HeaderSignals
from memory_extproc.languages import language_of
from memory_extproc.llm_api.json_splice import SpliceError
from memory_extproc.llm_api.requests import (
    ChatRequest,
    with_memory_context,
    without_memory_fields,
)
from memory_extproc.memories.retention import UsageTracker
from memory_extproc.retrieval.compression import RequestCompression, counted
from memory_extproc.retrieval.context import format_context, format_conversation
from memory_extproc.retrieval.decision import Skip
from memory_extproc.retrieval.own_life import Own, asked, says
from memory_extproc.retrieval.plan import (
    RetrievalPolicy,
    SearchPlan,
    plan_retrieval,
)
from memory_extproc.retrieval.rank import preferences_held, rank, with_own_life, with_preferences
from memory_extproc.retrieval.rewrite import REWRITE_SHARE, QueryRewriter
from memory_extproc.store.model import (
    MemoryType,
    ScoredMemory,
    SearchRequest,
    Store,
    StoreUnavailableError,
)
from memory_extproc.tracing import traced

log = logging.getLogger(__name__)

# The nearest memories to "Where does the user live?" read for the one that says it: a German
# user's home was among the 5 nearest of 61 scenario memories, a relative's home before it
OWN_LIFE_CANDIDATES = 5


class EmbeddingError(RuntimeError):
    """The model failed on this query."""


class Outcome(StrEnum):
    INJECTED = "injected"
    NO_RESULTS = "no_results"
    TIMEOUT = "timeout"
    STORE_UNAVAILABLE = "store_unavailable"
    EMBEDDING_ERROR = "embedding_error"
    ERROR = "error"
    INVALID_BODY = "invalid_body"
    NOT_EDITABLE = "not_editable"  # read, but not rewritable byte for byte: passed through
    TOO_LARGE = "too_large"  # over ServerConfig.max_body_bytes: passed through unread


@dataclass(frozen=True, slots=True)
class Compressed:
    """What compression did to a request, for its receipt."""

    replaced: int  # messages left out
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True, slots=True)
class RetrievalResult:
    outcome: Outcome | Skip
    body: bytes | None  # the body to forward, or None to forward the original unchanged
    recalled: tuple[str, ...] = ()  # the memories injected: the answer may echo them
    ids: tuple[str, ...] = ()  # …and their ids, for the receipt (extproc/receipt.py)
    # asked for compression: what it did, or why not (None: not asked), and the conversation
    compression: Compressed | NotCompressed | None = None
    conversation: str = ""


@dataclass(slots=True)
class _Recall:
    """The memory search's part of a request: what it found, and the question's vector."""

    outcome: Outcome | Skip
    memories: list[ScoredMemory] = dataclasses.field(default_factory=list)
    vector: np.ndarray | None = None
    started: float | None = None


class MemoryRetrieval:
    def __init__(
        self,
        embedder: Embeddings,
        store: Store,
        policy: RetrievalPolicy,
        budget_s: float,
        usage: UsageTracker | None = None,
        rewriter: QueryRewriter | None = None,
        compression: RequestCompression | None = None,
    ) -> None:
        self._embedder = embedder
        self._store = store
        self.policy = policy
        self._budget = budget_s
        self._usage = usage
        self._rewriter = rewriter
        self._compression = compression
        # own_life's questions, embedded once for each language they are asked in
        self._asked: dict[tuple[str, str], np.ndarray] = {}

    async def process(self, request: ChatRequest, signals: HeaderSignals) -> RetrievalResult:
        compression = self._compression
        reading = None
        if compression is not None and compression.wanted(request, signals):
            reading = compression.begin(request, signals)  # read beside the search
        recall = await self._recall(request, signals)
        planned = None
        if compression is not None and reading is not None:
            started = recall.started or time.perf_counter()
            left = self._budget - (time.perf_counter() - started)
            planned = await compression.end(reading, request.query, recall.vector, left)
        result = self._finish(request, signals, recall, planned)
        if reading is not None and reading.conversation:
            result = dataclasses.replace(result, conversation=reading.conversation)
        return result

    async def _recall(self, request: ChatRequest, signals: HeaderSignals) -> _Recall:
        with traced("memory.decision") as span:
            decision = plan_retrieval(request, signals, self.policy)
            span.set_attribute("memory.decision", getattr(decision, "value", "search"))
        if isinstance(decision, Skip):
            return _Recall(decision)
        if not self._store.available:
            return _Recall(Outcome.STORE_UNAVAILABLE)
        started = time.perf_counter()
        found = _Recall(Outcome.NO_RESULTS, started=started)
        try:
            async with asyncio.timeout(self._budget):
                found.memories = await self._search(decision, signals, request, started, found)
        except TimeoutError:
            log.warning("Memory search timeout, skipping", extra={"budget_ms": self._budget * 1e3})
            found.outcome = Outcome.TIMEOUT
        except StoreUnavailableError as exc:
            log.warning("Memory search failed, skipping: %s", type(exc.__cause__).__name__)
            found.outcome = Outcome.STORE_UNAVAILABLE
        except EmbeddingError:
            log.warning("Embedding failed, skipping memory", exc_info=True)
            found.outcome = Outcome.EMBEDDING_ERROR
        except Exception:
            log.exception("Memory retrieval failed, skipping")
            found.outcome = Outcome.ERROR
        return found

    async def _search(
        self,
        plan: SearchPlan,
        signals: HeaderSignals,
        request: ChatRequest,
        started: float,
        found: _Recall,
    ) -> list[ScoredMemory]:
        query = plan.query
        if plan.vague and self._rewriter is not None:
            left = self._budget * REWRITE_SHARE - (time.perf_counter() - started)
            rewritten = await self._rewriter.rewrite(
                request.earlier_user_messages, request.query, left
            )
            query = rewritten or query
        language = language_of(query)  # told once: the model that reads it, the words ranked
        try:
            with traced("memory.embedding"):
                vector = await self._embedder.query(query, language=language)
        except Exception as exc:
            raise EmbeddingError from exc
        found.vector = vector  # compression scores the conversation's messages with it
        ranking = self.policy.ranking
        project = signals.project_id or None  # a project header scopes the search
        search = SearchRequest(
            user_id=signals.user_id,
            vector=vector,
            limit=ranking.candidate_limit(plan.limit),
            threshold=ranking.candidate_floor(plan.threshold),
            types=plan.types,
            project_id=project,
        )
        with traced(tracing.SEARCH_MEMORY) as span:
            candidates = await self._store.retrieve(search)
            span.set_attribute(tracing.OPERATION, tracing.SEARCH_MEMORY)
            span.set_attribute(tracing.RECORD_COUNT, len(candidates))
        preferences: list[ScoredMemory] = []
        if plan.preferences:  # the user's standing preferences nearest to the request
            held = preferences_held(candidates, search.limit, search.threshold, ranking)
            preferences = held if held is not None else await self._preferences(search)
        own = [m for o in plan.about if (m := await self._own_life(o, language, search))]
        # A request that raised the threshold gets exactly that bar: narrowing never widens.
        rescue = plan.threshold <= self.policy.threshold
        with traced("memory.ranking"):
            ranked = rank(query, candidates, plan.threshold, plan.limit, ranking, rescue=rescue,
                          language=language)  # fmt: skip
            ranked = with_own_life(ranked, own, plan.limit)
            return with_preferences(ranked, preferences, plan.limit, ranking)

    async def _preferences(self, search: SearchRequest) -> list[ScoredMemory]:
        """A search of their own, when the request's did not hold them: best effort, the
        request keeps what it matched itself."""
        ranking = self.policy.ranking
        try:
            with traced(tracing.SEARCH_MEMORY) as span:
                found = await self._store.retrieve(
                    dataclasses.replace(
                        search, limit=ranking.preference_limit, threshold=ranking.preference_floor,
                        types=(MemoryType.PREFERENCE,),
                    )
                )  # fmt: skip
                span.set_attribute(tracing.OPERATION, tracing.SEARCH_MEMORY)
                span.set_attribute(tracing.RECORD_COUNT, len(found))
                span.set_attribute("memory.search.types", MemoryType.PREFERENCE.value)
                return found
        except Exception as exc:  # the store counted it (memory_store_errors)
            log.warning("Preference search failed: %s", type(exc).__name__)
            return []

    async def _own_life(
        self, own: Own, language: str, search: SearchRequest
    ) -> ScoredMemory | None:
        """The memory that says the user's home or job, for a request that refers to it: the
        nearest to the question of it that says it. Best effort, as preferences."""
        question = asked(own, language)
        try:
            vector = self._asked.get((question, language))
            if vector is None:
                vector = await self._embedder.query(question, language=language)
                self._asked[question, language] = vector
            with traced(tracing.SEARCH_MEMORY) as span:
                found = await self._store.retrieve(
                    dataclasses.replace(
                        search, vector=vector, limit=OWN_LIFE_CANDIDATES,
                        threshold=self.policy.ranking.preference_floor,
                    )
                )  # fmt: skip
                span.set_attribute(tracing.OPERATION, tracing.SEARCH_MEMORY)
                span.set_attribute(tracing.RECORD_COUNT, len(found))
                span.set_attribute("memory.search.about", own.value)
        except Exception as exc:  # the store counted it (memory_store_errors)
            log.warning("Search for the user's %s failed: %s", own.value, type(exc).__name__)
            return None
        return next((m for m in found if says(own, m.memory.content)), None)

    def _finish(
        self,
        request: ChatRequest,
        signals: HeaderSignals,
        recall: _Recall,
        planned: Compression | NotCompressed | None,
    ) -> RetrievalResult:
        """One body for both edits (the memories injected, the conversation compressed), and
        exactly one outcome per request."""
        outcome, context = recall.outcome, ""
        injected: list[ScoredMemory] = []
        if recall.memories:
            with traced("memory.context"):
                context, injected = format_context(recall.memories, self.policy.max_context_chars)
        outcome = Outcome.INJECTED if injected else outcome
        summary, replaced = "", tuple[tuple[int, int], ...]()
        if isinstance(planned, Compression):
            summary = format_conversation(planned.replaced, planned.quotes, planned.summary)
            replaced = planned.runs
        body = None
        if context or summary:
            try:
                with traced("memory.injection") as span:
                    body = with_memory_context(
                        request, context, replaced=replaced, summary=summary,
                    )  # fmt: skip
                    span.set_attribute("memory.injected", len(injected))
            except SpliceError as exc:
                log.warning("Request body not editable exactly, passed through: %s", exc)
                outcome, injected = Outcome.NOT_EDITABLE, []
                planned = NotCompressed.NOT_EDITABLE if summary else planned
        if injected:
            if self._usage is not None:
                self._usage.record(signals.user_id, (m.memory for m in injected), now_ms())
            metrics.INJECTED_MEMORIES.observe(len(injected))
            metrics.INJECTED_CHARS.observe(len(context))
        if recall.started is not None:
            metrics.RETRIEVAL_SECONDS.observe(time.perf_counter() - recall.started)
        if body is None and request.had_memory_fields and outcome is not Outcome.NOT_EDITABLE:
            try:  # memory_config / memory_context never reach the LLM
                body = without_memory_fields(request)
            except SpliceError as exc:
                log.warning("Request body not editable exactly, passed through: %s", exc)
                outcome = Outcome.NOT_EDITABLE
        metrics.RETRIEVAL_OUTCOMES.labels(outcome.value).inc()
        told: Compressed | NotCompressed | None = None
        if isinstance(planned, Compression):
            counted(planned)
            told = Compressed(planned.replaced, planned.tokens_before,
                              planned.tokens_after + tokens(summary))  # fmt: skip
        elif planned is not None:
            counted(planned)
            told = planned
        return RetrievalResult(
            outcome, body, tuple(m.memory.content for m in injected),
            tuple(m.memory.id for m in injected), told,
        )  # fmt: skip
