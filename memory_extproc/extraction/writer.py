"""Write one fact so memory stays consistent: no duplicates, updates instead of contradictions.

1. Exact duplicate (normalized content hash) of an active memory: nothing to do.
2. Near-identical (cosine >= 0.9) to an existing memory: it is that memory, reworded: revise it.
3. Related memories exist (cosine >= 0.4): similarity cannot tell "$10,000" from "now $15,000"
   (MiniLM scores them ~0.55), so the model decides ADD / UPDATE / DELETE / NOOP against them,
   seeing them as 0..k, never as ids.
4. Otherwise: a new memory.
Revisions keep the memory's id and creation time and leave the old text as an audit row.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from enum import StrEnum

import numpy as np

from memory_extproc import metrics
from memory_extproc.embedding.batcher import EmbeddingBatcher
from memory_extproc.extraction.facts import ExtractionParseError, Fact, FactLimits
from memory_extproc.extraction.llm_client import ChatClient, LlmError
from memory_extproc.extraction.prompts import reconcile_messages
from memory_extproc.extraction.reconcile import Action, parse_decision
from memory_extproc.store.model import (
    Memory,
    ScoredMemory,
    SearchRequest,
    Store,
    content_hash,
    now_ms,
)

log = logging.getLogger(__name__)

SAME_MEMORY = 0.9
RELATED = 0.4
CANDIDATES = 10


class Written(StrEnum):
    STORED = "stored"
    UPDATED = "updated"
    DEDUPED = "deduped"
    DELETED = "deleted"
    NOOP = "noop"
    STORED_UNRECONCILED = "stored_unreconciled"  # the model's decision was unusable: kept as new


class MemoryWriter:
    def __init__(
        self,
        store: Store,
        embedder: EmbeddingBatcher,
        reconciler: ChatClient | None,
        limits: FactLimits,
        *,
        ttl_ms: int = 0,
        max_per_user: int = 0,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._reconciler = reconciler
        self._limits = limits
        self._ttl_ms = ttl_ms
        self._max_per_user = max_per_user

    async def write(
        self,
        user_id: str,
        project_id: str,
        fact: Fact,
        at_ms: int,
        *,
        source: str,
        reconcile: bool = True,
    ) -> Written:
        (written,) = await self.write_batch(
            user_id, project_id, [fact], at_ms, source=source, reconcile=reconcile
        )
        return written

    async def write_batch(
        self,
        user_id: str,
        project_id: str,
        facts: Sequence[Fact],
        at_ms: int,
        *,
        source: str,
        reconcile: bool = True,
    ) -> list[Written]:
        """One job's facts with few Milvus calls: one hash lookup, one search for all of them,
        one insert (and visibility wait) for what is new; updates one by one (rare)."""
        digests = [content_hash(f.content) for f in facts]
        existing = await self._store.existing_hashes(user_id, digests)
        results: list[Written] = [Written.DEDUPED] * len(facts)
        todo = [i for i, d in enumerate(digests) if d not in existing]
        vectors = list(await self._embedder.embed_many([facts[i].content for i in todo]))
        kept: list[tuple[int, np.ndarray]] = []
        for i, vector in zip(todo, vectors, strict=True):
            # the same fact twice in one job, reworded: keep the first
            if not any(float(np.dot(vector, other)) >= SAME_MEMORY for _, other in kept):
                kept.append((i, vector))
        similar: list[list[ScoredMemory]] = [[] for _ in kept]
        if reconcile and kept:
            similar = await self._store.retrieve_many(
                [
                    SearchRequest(
                        user_id, v, limit=CANDIDATES, threshold=RELATED, project_id=project_id
                    )
                    for _, v in kept
                ]
            )
        new: list[tuple[Memory, np.ndarray]] = []
        for (i, vector), candidates in zip(kept, similar, strict=True):
            fact = facts[i]
            results[i] = await self._place(fact, vector, candidates)
            if results[i] in (Written.STORED, Written.STORED_UNRECONCILED):
                new.append((self._new(user_id, project_id, fact, at_ms, source), vector))
        await self._store.store_many(new)
        if new:
            await self._enforce_cap(user_id)
        return results

    async def _place(self, fact: Fact, vector: np.ndarray, similar: list[ScoredMemory]) -> Written:
        """STORED / STORED_UNRECONCILED mean: to be inserted by the caller."""
        if similar and similar[0].score >= SAME_MEMORY:
            await self._revise(similar[0], fact.content, vector, "restated")
            return Written.UPDATED
        if not similar or self._reconciler is None:
            return Written.STORED
        try:
            answer = await self._reconciler.complete(
                reconcile_messages([s.memory for s in similar], fact.content)
            )
            decision = parse_decision(answer, len(similar), self._limits)
        except (LlmError, ExtractionParseError) as exc:
            log.warning("Reconcile decision unusable, fact stored as new: %s", exc)
            return Written.STORED_UNRECONCILED
        if decision.action is Action.ADD:
            return Written.STORED
        if decision.action is Action.NOOP:
            return Written.NOOP
        target = similar[decision.index or 0]  # parse_decision always sets it for these two
        if decision.action is Action.DELETE:
            await self._store.retire(
                target.memory.user_id, target.memory.id, "contradicted by a newer memory"
            )
            return Written.DELETED
        content = decision.content or fact.content
        if content != fact.content:
            vector = await self._embedder.embed(content)
        await self._revise(target, content, vector, "updated by a newer memory")
        return Written.UPDATED

    async def add(
        self, user_id: str, project_id: str, fact: Fact, at_ms: int, *, source: str
    ) -> tuple[Written, Memory]:
        """An explicit add (API, CLI): the same fact or a restatement of one already held
        returns or revises that memory; anything else is stored as said, without asking a model."""
        vector = await self._embedder.embed(fact.content)
        same = await self._store.retrieve(
            SearchRequest(user_id, vector, limit=1, threshold=SAME_MEMORY, project_id=project_id)
        )
        if same:
            current = await self._store.get(user_id, same[0].memory.id)
            if current is not None and current.content_hash == content_hash(fact.content):
                return Written.DEDUPED, current
            revised = await self._revise(same[0], fact.content, vector, "restated")
            if revised is not None:
                return Written.UPDATED, revised
        memory = self._new(user_id, project_id, fact, at_ms, source)
        await self._store.store(memory, vector)
        await self._enforce_cap(user_id)
        return Written.STORED, memory

    def _new(self, user_id: str, project_id: str, fact: Fact, at_ms: int, source: str) -> Memory:
        """Expiry counts from when it was learned, not from the (maybe replayed) turn's date."""
        expires_at = now_ms() + self._ttl_ms if self._ttl_ms else 0
        return Memory.new(
            user_id, fact.content, fact.type, project_id=project_id, source=source,
            created_at=at_ms, expires_at=expires_at,
        )  # fmt: skip

    async def _enforce_cap(self, user_id: str) -> None:
        if self._max_per_user:
            evicted = await self._store.trim(user_id, self._max_per_user)
            if evicted:
                metrics.MEMORIES_REMOVED.labels("over_user_cap").inc(evicted)
                log.info("Per-user cap reached: least recently used memories removed",
                         extra={"evicted": evicted})  # fmt: skip

    async def _revise(
        self, target: ScoredMemory, content: str, vector: np.ndarray, reason: str
    ) -> Memory | None:
        current = await self._store.get(target.memory.user_id, target.memory.id)
        if current is None:
            return None
        revised = dataclasses.replace(
            current, content=content, content_hash=content_hash(content), updated_at=now_ms()
        )
        await self._store.revise(revised, vector, reason)
        return revised
