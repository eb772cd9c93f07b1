"""InMemoryStore: the Store protocol in a dict, for unit tests and tiny experiments.

Not durable, not shared between processes; integration tests and `make run` use Milvus.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from memory_extproc.clock import now_ms
from memory_extproc.store.model import (
    Memory,
    MemoryType,
    MemoryUse,
    ScoredMemory,
    SearchRequest,
    audit_copy,
    by_replacement,
    evictions,
    is_alive,
    newest_first,
    renewed,
    same_version,
    validate_scope_value,
)


class InMemoryStore:
    def __init__(self) -> None:
        self._rows: dict[str, tuple[Memory, np.ndarray]] = {}
        self._forgets: dict[tuple[str, str | None], int] = {}  # (user, project|None) → ms

    @property
    def available(self) -> bool:
        return True

    async def store(self, memory: Memory, vector: np.ndarray) -> None:
        self._rows[memory.id] = (memory, np.asarray(vector, dtype=np.float32))

    async def stored_under(self, user_id: str) -> list[tuple[Memory, np.ndarray]]:
        return [(m, v) for m, v in self._rows.values() if self._in_scope(m, user_id, None, ())]

    async def rekey(self, memory: Memory, vector: np.ndarray) -> bool:
        current = await self.get(memory.user_id, memory.id)
        if current is None or not same_version(current, memory):
            return False
        await self.store(current, vector)
        return True

    async def retrieve_many(self, requests: Sequence[SearchRequest]) -> list[list[ScoredMemory]]:
        return [await self.retrieve(r) for r in requests]

    async def store_many(
        self, items: Sequence[tuple[Memory, np.ndarray]], *, wait_visible: bool = True
    ) -> None:
        for memory, vector in items:
            await self.store(memory, vector)

    async def retrieve(self, request: SearchRequest) -> list[ScoredMemory]:
        validate_scope_value(request.user_id)
        scored = [
            ScoredMemory(memory, float(np.dot(vector, request.vector)))
            for memory, vector in self._rows.values()
            if self._in_scope(memory, request.user_id, request.project_id, request.types)
        ]
        scored.sort(key=lambda s: s.score, reverse=True)
        return [s for s in scored[: request.limit] if s.score >= request.threshold]

    async def get(self, user_id: str, memory_id: str) -> Memory | None:
        row = self._rows.get(memory_id)
        return row[0] if row and row[0].user_id == user_id else None

    async def list(
        self,
        user_id: str,
        *,
        limit: int = 100,
        types: Sequence[MemoryType] = (),
        project_id: str | None = None,
        before: tuple[int, str] | None = None,
        pending: bool = False,
    ) -> list[Memory]:
        rows = [
            m
            for m, _ in self._rows.values()
            if self._in_scope(m, user_id, project_id, types, pending=pending)
        ]
        return newest_first(rows, limit, before)

    async def amend(self, memory: Memory) -> bool:
        current = await self.get(memory.user_id, memory.id)
        if current is None or not same_version(current, memory):
            return False
        await self.store(memory, self._rows[memory.id][1])
        return True

    async def existing_hashes(self, user_id: str, digests: Sequence[str]) -> dict[str, Memory]:
        wanted = set(digests)
        return {
            m.content_hash: m
            for m, _ in self._rows.values()
            if m.user_id == user_id and m.content_hash in wanted and is_alive(m, now_ms())
        }

    async def revise(
        self, memory: Memory, vector: np.ndarray, reason: str, *, wait_visible: bool = True
    ) -> bool:
        if memory.id not in self._rows:
            return False
        old, old_vector = self._rows[memory.id]
        audit = audit_copy(old, reason)
        self._rows[audit.id] = (audit, old_vector)
        await self.store(memory, vector)
        return True

    async def retire(self, user_id: str, memory_id: str, by: str, reason: str) -> bool:
        loser, winner = await self.get(user_id, memory_id), await self.get(user_id, by)
        if loser is None or winner is None or loser.superseded_by or winner.superseded_by:
            return False
        for kept, vector in list(self._rows.values()):
            if kept.superseded_by == memory_id:
                self._rows[kept.id] = (dataclasses.replace(kept, superseded_by=by), vector)
        audit = audit_copy(loser, reason, by)
        self._rows[audit.id] = (audit, self._rows.pop(memory_id)[1])
        return True

    async def history(self, user_id: str, memory_id: str) -> Sequence[Memory]:
        return by_replacement(
            m
            for m, _ in self._rows.values()
            if m.user_id == user_id and m.superseded_by == memory_id
        )

    async def forget(self, user_id: str, memory_id: str) -> bool:
        if await self.get(user_id, memory_id) is None:
            return False
        doomed = [m.id for m, _ in self._rows.values() if memory_id in (m.id, m.superseded_by)]
        for doomed_id in doomed:
            del self._rows[doomed_id]
        return True

    async def forget_by_scope(self, user_id: str, project_id: str | None = None) -> int:
        self._forgets[(user_id, project_id)] = now_ms()
        doomed = [
            m.id
            for m, _ in self._rows.values()
            if m.user_id == user_id and (project_id is None or m.project_id == project_id)
        ]
        for memory_id in doomed:
            del self._rows[memory_id]
        return len(doomed)

    async def settled(self, user_id: str, project_id: str) -> int:
        return await self.forgotten_at(user_id, project_id)

    async def forgotten_at(self, user_id: str, project_id: str) -> int:
        scopes = ((user_id, None), (user_id, project_id))
        return max(self._forgets.get(scope, 0) for scope in scopes)

    async def record_use(self, uses: Sequence[MemoryUse], at_ms: int, ttl_ms: int) -> int:
        changed = 0
        for user_id, memory_id, count in uses:
            memory = await self.get(user_id, memory_id)
            if memory is not None and not memory.superseded_by:
                vector = self._rows[memory_id][1]
                self._rows[memory_id] = (renewed(memory, count, at_ms, ttl_ms), vector)
                changed += 1
        return changed

    async def prune_expired(self, at_ms: int) -> int:
        doomed = [i for i, (m, _) in self._rows.items() if 0 < m.expires_at <= at_ms]
        for memory_id in doomed:
            del self._rows[memory_id]
        return len(doomed)

    async def trim(self, user_id: str, keep: int) -> int:
        active = [m for m, _ in self._rows.values() if m.user_id == user_id and not m.superseded_by]
        doomed = {m.id for m in evictions(active, keep)}
        for memory_id in [i for i, (m, _) in self._rows.items() if {i, m.superseded_by} & doomed]:
            del self._rows[memory_id]
        return len(doomed)

    async def close(self) -> None:
        self._rows.clear()

    @staticmethod
    def _in_scope(
        memory: Memory,
        user_id: str,
        project_id: str | None,
        types: Sequence[MemoryType],
        *,
        pending: bool = False,
    ) -> bool:
        if memory.pending != pending:
            return False
        if pending:  # held for review: alive but for that
            memory = dataclasses.replace(memory, superseded_by="")
        return (
            memory.user_id == user_id
            and is_alive(memory, now_ms())
            and (project_id is None or memory.project_id == project_id)
            and (not types or memory.type in types)
        )
