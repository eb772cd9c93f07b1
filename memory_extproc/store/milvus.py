"""MilvusStore: the Store protocol on Milvus (pymilvus' AsyncMilvusClient).

* ``user_id`` is the partition key, so a search touches one user's partition, not everyone's.
* Consistency is chosen per call. Hot-path searches read at "Eventually" and never wait; every
  write ends with a "Strong" read of what it wrote (a visibility barrier, ~one Milvus time tick,
  off the hot path), so a memory stored or forgotten is seen by the very next search, from any
  processor that uses this Milvus.
* Writes of one memory take turns, in this process and across processes (store/locks.py);
  each insert and delete under a lock first checks it is still held (a Valkey lease can end).

The collection's shape and rows: milvus_schema.py; the client's life: milvus_connection.py.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np
from pymilvus import AsyncMilvusClient

from memory_extproc.clock import now_ms
from memory_extproc.store import filters
from memory_extproc.store import milvus_schema as schema
from memory_extproc.store.locks import KEPT, Fence, ProcessLocks, WriteLocks
from memory_extproc.store.milvus_connection import MilvusConnection
from memory_extproc.store.milvus_schema import OUTPUT_FIELDS, SEARCH_FIELDS
from memory_extproc.store.model import (
    Memory,
    MemoryType,
    MemoryUse,
    ScoredMemory,
    SearchRequest,
    audit_copy,
    by_replacement,
    evictions,
    is_memory_id,
    new_memory_id,
    newest_first,
    renewed,
    same_version,
)

_HEX = re.compile(r"[0-9a-f]{64}")
T = TypeVar("T")

LIST_SCAN_LIMIT = 16384  # Milvus' largest query window
DELETE_ATTEMPTS = 3
_COPIES = 4  # rows read per memory id, so a key stored twice (see one_per_id) is still found
# the lock of the write under way in this task (``_write``): checked before its inserts, deletes
_FENCE: ContextVar[Fence] = ContextVar("fence", default=KEPT)


class IncompleteDeleteError(RuntimeError):
    """Rows survived every delete: reported as a store failure, never as done."""


_GONE_KEPT = 65_536  # ids this client deleted, newest kept (~5 MB)


class MilvusStore:
    def __init__(
        self,
        uri: str,
        collection: str,
        dimension: int,
        *,
        partitions: int = 64,
        token: str = "",
        timeout_s: float = 5.0,
        reconnect_interval_s: float = 1.0,
        client_name: str = "query",
        locks: ProcessLocks | None = None,  # shared by every process writing this collection
    ) -> None:
        self.connection = MilvusConnection(
            uri, collection, dimension, partitions=partitions, token=token, timeout_s=timeout_s,
            reconnect_interval_s=reconnect_interval_s, client_name=client_name,
        )  # fmt: skip
        self._collection = collection
        self._dimension = dimension
        self._timeout = timeout_s
        # who writes which rows at once (store/locks.py)
        self._locks = WriteLocks(locks)
        # Milvus 2.3 answers a delete with timestamp 0, so a Session read after this client's
        # own delete still saw the row (a retired memory retired again, or revised back to
        # life) until a later insert's timestamp was recorded. The ids it deleted and has not
        # written since are known gone here (reading them Strong cost each write after a
        # retirement a time tick); after a delete by filter, whose ids it does not know, its
        # reads are Strong until an insert sent after it covers it (when it ended, monotonic)
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._delete_unseen = 0.0

    @property
    def available(self) -> bool:
        return self.connection.available

    async def start(self, wait_s: float = 10.0) -> None:
        await self.connection.start(wait_s)

    async def wait_available(self, timeout_s: float) -> bool:
        return await self.connection.wait_available(timeout_s)

    async def close(self) -> None:
        await self.connection.close()
        await self._locks.aclose()

    async def _call(self, operation: str, fn: Callable[[AsyncMilvusClient], Awaitable[T]]) -> T:
        return await self.connection.call(operation, fn)

    async def _write(
        self,
        user_id: str,
        operation: str,
        fn: Callable[[AsyncMilvusClient], Awaitable[T]],
        memory_ids: Sequence[str] | None = None,  # None: any of the user's rows
    ) -> T:
        held = (
            self._locks.user(user_id)
            if memory_ids is None
            else self._locks.memories(user_id, memory_ids)
        )
        async with held as fence:
            under = _FENCE.set(fence)
            try:
                return await self._call(operation, fn)
            finally:
                _FENCE.reset(under)

    async def _insert(self, client: AsyncMilvusClient, rows: list[dict[str, Any]]) -> None:
        """The one way rows are written: not once the write's lock may be someone else's."""
        _FENCE.get().check()
        sent = time.monotonic()
        await client.insert(self._collection, rows, timeout=self._timeout)
        for row in rows:
            self._gone.pop(row["id"], None)
        if sent > self._delete_unseen:
            self._delete_unseen = 0.0

    async def _delete(self, client: AsyncMilvusClient, **which: Any) -> int:
        """The one way rows are deleted (``ids=`` or ``filter=``), as ``_insert``."""
        _FENCE.get().check()
        result = await client.delete(self._collection, timeout=self._timeout, **which)
        if "ids" in which:
            self._gone.update(dict.fromkeys(which["ids"]))
            while len(self._gone) > _GONE_KEPT:
                self._gone.popitem(last=False)
        else:
            self._delete_unseen = time.monotonic()
        return int(result.get("delete_count", 0))

    def _own_writes(self) -> str:
        """The consistency that sees this client's own writes: Session, unless a delete by
        filter is not recorded (``_delete_unseen``)."""
        return "Strong" if self._delete_unseen else "Session"

    def _seen(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows a read returned, without those this client deleted (``_gone``)."""
        return [r for r in rows if r["id"] not in self._gone] if self._gone else rows

    async def _query(
        self,
        client: AsyncMilvusClient,
        expr: str,
        fields: Sequence[str],
        *,
        limit: int | None,
        consistency: str | None = None,  # None: the collection's (Session)
    ) -> list[dict[str, Any]]:
        """The one way rows are read by filter."""
        options: dict[str, Any] = {"timeout": self._timeout}
        if limit is not None:
            options["limit"] = limit
        if consistency is not None:
            options["consistency_level"] = consistency
        return list(
            await client.query(self._collection, filter=expr, output_fields=list(fields), **options)
        )

    async def _visible(self, client: AsyncMilvusClient, memory_id: str) -> None:
        """Wait until every query node has applied our writes (see module docstring)."""
        await self._strong_barrier(client, f"id == {filters.quote(memory_id)}")

    async def _strong_barrier(self, client: AsyncMilvusClient, expr: str) -> None:
        await self._query(client, expr, ["id"], limit=1, consistency="Strong")

    async def _replace(self, client: AsyncMilvusClient, entity: dict[str, Any]) -> None:
        """Delete then insert: Milvus 2.3's upsert on this (partition-key) collection drops the
        row it writes (tests/integration/test_store.py). A search between the two calls may miss
        the memory; no search ever sees two versions."""
        await self._delete(client, ids=[entity["id"]])
        await self._insert(client, [entity])

    async def store(self, memory: Memory, vector: np.ndarray) -> None:
        await self.store_many([(memory, vector)])

    async def store_many(
        self, items: Sequence[tuple[Memory, np.ndarray]], *, wait_visible: bool = True
    ) -> None:
        if not items:
            return
        rows = [schema.row(m, v) for m, v in items]

        async def op(client: AsyncMilvusClient) -> None:
            await self._insert(client, rows)
            if wait_visible:
                await self._visible(client, rows[-1]["id"])

        users = sorted({m.user_id for m, _ in items})
        if len(users) == 1:
            await self._write(users[0], "insert", op, [m.id for m, _ in items])
        else:  # bulk loads (bench, eval): new ids only, nothing to race with
            await self._call("insert", op)

    async def stored_under(self, user_id: str) -> list[tuple[Memory, np.ndarray]]:
        expr = filters.user_scope(user_id, alive_at=now_ms())

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            fields = [*OUTPUT_FIELDS, "embedding"]
            return await self._query(client, expr, fields, limit=LIST_SCAN_LIMIT)

        rows = schema.one_per_id(await self._call("stored_under", op), user_id)
        return [(schema.memory_of(r), np.asarray(r["embedding"], np.float32)) for r in rows]

    async def rekey(self, memory: Memory, vector: np.ndarray) -> bool:
        async def op(client: AsyncMilvusClient) -> bool:
            current = await self._with_vector(client, memory.user_id, memory.id)
            if current is None or not same_version(current[0], memory):
                return False
            await self._replace(client, schema.row(current[0], vector))  # its uses since, kept
            return True

        return await self._write(memory.user_id, "rekey", op, [memory.id])

    async def amend(self, memory: Memory) -> bool:
        async def op(client: AsyncMilvusClient) -> bool:
            current = await self._with_vector(client, memory.user_id, memory.id)
            if current is None or not same_version(current[0], memory):
                return False
            await self._replace(client, schema.row(memory, np.asarray(current[1])))
            await self._visible(client, memory.id)
            return True

        return await self._write(memory.user_id, "amend", op, [memory.id])

    async def retrieve(self, request: SearchRequest) -> list[ScoredMemory]:
        return (await self.retrieve_many([request]))[0]

    async def retrieve_many(self, requests: Sequence[SearchRequest]) -> list[list[ScoredMemory]]:
        """One search call for many vectors of the same scope (user, project, types, limit)."""
        if not requests:
            return []
        first = requests[0]

        def scope_of(r: SearchRequest) -> tuple[object, ...]:
            return (r.user_id, r.project_id, tuple(r.types), r.limit, r.complete)

        scope = scope_of(first)
        if any(scope_of(r) != scope for r in requests):
            raise ValueError("retrieve_many needs requests of one scope")
        expr = filters.user_scope(
            first.user_id, project_id=first.project_id, types=first.types, alive_at=now_ms()
        )
        vectors = [r.vector.astype(np.float32).tolist() for r in requests]

        async def op(client: AsyncMilvusClient) -> list[list[dict[str, Any]]]:
            return await client.search(
                self._collection,
                data=vectors,
                filter=expr,
                limit=first.limit,
                output_fields=OUTPUT_FIELDS if first.complete else SEARCH_FIELDS,
                search_params={"metric_type": "IP"},
                consistency_level="Eventually",
                timeout=self._timeout,
            )

        found = await self._call("search", op)
        return [schema.scored(hits, request) for hits, request in zip(found, requests, strict=True)]

    async def get(self, user_id: str, memory_id: str) -> Memory | None:
        expr = filters.one_memory(user_id, memory_id)

        def op(consistency: str) -> Callable[[AsyncMilvusClient], Awaitable[list[dict]]]:
            return lambda client: self._query(
                client, expr, OUTPUT_FIELDS, limit=_COPIES, consistency=consistency
            )

        rows = schema.one_per_id(
            self._seen(await self._call("get", op(self._own_writes()))), user_id
        )
        if not rows:
            # Not found may be a revision's delete-then-insert half done, here or in another
            # process (a PUT answered 404 in a flood of them): ask again behind its writers.
            async with self._locks.memories(user_id, [memory_id]):
                rows = schema.one_per_id(await self._call("get", op("Strong")), user_id)
        return schema.memory_of(rows[0]) if rows else None

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
        """Milvus cannot sort a query: read the keys of the user's rows (bounded by the per-user
        cap, at most LIST_SCAN_LIMIT), pick the page here, then fetch just that page.

        A memory revised between the two reads (deleted, then inserted again) is missing from
        the second: it is read again behind its writers. One forgotten meanwhile is replaced by
        the next key, so a page is short only at the end (a short page read as the last one
        ended listings at 15 of 30 memories while one was being edited)."""
        expr = filters.user_scope(
            user_id, project_id=project_id, types=types, pending=pending, alive_at=now_ms()
        )

        async def fetch(
            client: AsyncMilvusClient, ids: list[str], consistency: str
        ) -> list[dict[str, Any]]:
            listed = ", ".join(filters.quote(i) for i in ids)
            rows = await self._query(
                client, f"{expr} and id in [{listed}]", OUTPUT_FIELDS,
                limit=min(LIST_SCAN_LIMIT, _COPIES * len(ids)), consistency=consistency,
            )  # fmt: skip
            return schema.one_per_id(rows, user_id)

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            keys = await self._query(client, expr, ["user_id", "created_at"], limit=LIST_SCAN_LIMIT)
            stubs = [
                Memory(id=k["id"], user_id=user_id, type=MemoryType.SEMANTIC, content="",
                       created_at=k["created_at"])
                for k in schema.one_per_id(keys, user_id)
            ]  # fmt: skip
            ordered = [m.id for m in newest_first(stubs, len(stubs), before)]
            found: list[dict[str, Any]] = []
            while len(found) < limit and ordered:
                page, ordered = ordered[: limit - len(found)], ordered[limit - len(found) :]
                rows = await fetch(client, page, "Session")
                got = {r["id"] for r in rows}
                missing = [i for i in page if i not in got]
                if missing:
                    async with self._locks.memories(user_id, missing):
                        rows += await fetch(client, missing, "Strong")
                found += rows
            return found

        rows = await self._call("list", op)
        return newest_first([schema.memory_of(r) for r in schema.one_per_id(rows, user_id)], limit)

    async def existing_hashes(self, user_id: str, digests: Sequence[str]) -> dict[str, Memory]:
        if not digests:
            return {}
        if not all(_HEX.fullmatch(d) for d in digests):
            raise ValueError("not a content hash")
        listed = ", ".join(filters.quote(d) for d in digests)
        expr = f"{filters.user_scope(user_id, alive_at=now_ms())} and content_hash in [{listed}]"

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            return await self._query(client, expr, OUTPUT_FIELDS, limit=_COPIES * len(digests))

        rows = schema.one_per_id(await self._call("existing_hashes", op), user_id)
        return {r["content_hash"]: schema.memory_of(r) for r in rows}

    async def _with_vector(
        self, client: AsyncMilvusClient, user_id: str, memory_id: str
    ) -> tuple[Memory, Sequence[float]] | None:
        """Read under the memory's write lock. Not found may be another process's revision
        not yet visible to this client (Session sees its own writes, ``_own_writes``): ask
        again, Strong."""
        if memory_id in self._gone:  # deleted here, and under its lock: not written since
            return None
        for consistency in dict.fromkeys((self._own_writes(), "Strong")):
            rows = schema.one_per_id(
                await self._query(
                    client, filters.one_memory(user_id, memory_id),
                    [*OUTPUT_FIELDS, "embedding"], limit=_COPIES, consistency=consistency,
                ),
                user_id,
            )  # fmt: skip
            if rows:
                return schema.memory_of(rows[0]), rows[0]["embedding"]
        return None

    async def revise(
        self, memory: Memory, vector: np.ndarray, reason: str, *, wait_visible: bool = True
    ) -> bool:
        async def op(client: AsyncMilvusClient) -> bool:
            current = await self._with_vector(client, memory.user_id, memory.id)
            if current is None:
                return False  # forgotten meanwhile
            old, old_vector = current
            audit = audit_copy(old, reason)
            await self._insert(client, [schema.row(audit, np.asarray(old_vector))])
            await self._replace(client, schema.row(memory, vector))
            if wait_visible:
                await self._visible(client, memory.id)
            return True

        return await self._write(memory.user_id, "revise", op, [memory.id])

    async def retire(self, user_id: str, memory_id: str, by: str, reason: str) -> bool:
        """Its rows are copied under ``by`` (new ids), then deleted: no moment without them."""

        async def op(client: AsyncMilvusClient) -> bool:
            loser = await self._with_vector(client, user_id, memory_id)
            winner = await self._with_vector(client, user_id, by)
            if loser is None or winner is None or loser[0].superseded_by or winner[0].superseded_by:
                return False
            rows = await self._query(
                client, filters.history_of(user_id, memory_id), [*OUTPUT_FIELDS, "embedding"],
                limit=LIST_SCAN_LIMIT, consistency="Strong",
            )  # fmt: skip
            kept = [schema.row(audit_copy(loser[0], reason, by), np.asarray(loser[1]))] + [
                schema.row(
                    dataclasses.replace(schema.memory_of(r), id=new_memory_id(), superseded_by=by),
                    np.asarray(r["embedding"]),
                )
                for r in schema.one_per_id(rows, user_id)
            ]
            await self._insert(client, kept)
            # by id: every row is known, read Strong under the memory's lock (a filtered delete
            # would wait two time ticks more)
            await self._delete(client, ids=[memory_id, *{r["id"] for r in rows}])
            return True

        return await self._write(user_id, "retire", op, [memory_id, by])

    async def history(self, user_id: str, memory_id: str) -> Sequence[Memory]:
        expr = filters.history_of(user_id, memory_id)

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            return await self._query(client, expr, OUTPUT_FIELDS, limit=LIST_SCAN_LIMIT)

        rows = await self._call("history", op)
        return by_replacement(schema.memory_of(r) for r in rows if r["user_id"] == user_id)

    async def forget(self, user_id: str, memory_id: str) -> bool:
        """True for the one forget that found the memory: of two at once, the second finds it
        gone (behind the first's lock) and answers not found."""
        if await self.get(user_id, memory_id) is None:
            return False
        expr = filters.memory_with_history(user_id, memory_id)

        async def op(client: AsyncMilvusClient) -> bool:
            if await self._with_vector(client, user_id, memory_id) is None:
                return False  # forgotten meanwhile
            await self._delete_all(client, expr)
            return True

        return await self._write(user_id, "delete", op, [memory_id])

    async def forget_by_scope(self, user_id: str, project_id: str | None = None) -> int:
        """A forget record (a row of the collection: when, and of what scope, filed under
        digests of the user and project ids; no content, never active, so no read of memories
        sees it) is written and visible before anything is deleted: a worker that writes after
        it sees it (``settled``, after its writes), and one that wrote before it is covered by
        the delete."""
        record = Memory(  # not a memory id: no API call can name it
            id=f"fgt_{uuid.uuid4().hex}", user_id=filters.forget_digest(user_id),
            type=MemoryType.SEMANTIC, content="",
            project_id=filters.forget_digest(project_id, "project id") if project_id else "",
            source="forget", created_at=now_ms(), superseded_by=filters.FORGOTTEN,
            meta={"scope": "user" if project_id is None else "project"},
        )  # fmt: skip
        row = schema.row(record, np.eye(1, self._dimension, dtype=np.float32)[0])  # any unit vector
        expr = filters.whole_scope(user_id, project_id)

        async def op(client: AsyncMilvusClient) -> int:
            await self._insert(client, [row])
            await self._visible(client, record.id)
            return await self._delete_all(client, expr)

        return await self._write(user_id, "delete_scope", op)

    async def forgotten_at(self, user_id: str, project_id: str) -> int:
        return await self._forgotten_at(user_id, project_id, "Eventually")

    async def settled(self, user_id: str, project_id: str) -> int:
        """A Strong read of the forget records is also the visibility barrier of this
        collection: one Milvus time tick (~200 ms here) for both."""
        return await self._forgotten_at(user_id, project_id, "Strong")

    async def _forgotten_at(self, user_id: str, project_id: str, consistency: str) -> int:
        expr = filters.forget_records(user_id, project_id)

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            return await self._query(
                client, expr, ["user_id", "created_at"], limit=LIST_SCAN_LIMIT,
                consistency=consistency,
            )  # fmt: skip

        rows = await self._call("forgotten_at", op)
        owner = filters.forget_digest(user_id)
        return max((int(r["created_at"]) for r in rows if r["user_id"] == owner), default=0)

    async def _delete_all(self, client: AsyncMilvusClient, expr: str) -> int:
        """Delete every row ``expr`` matches and prove none is left: Milvus resolves a filtered
        delete against what its query nodes already see, so a row written moments before (an
        audit row of a revision from another process) could survive. A forget must be complete
        when it answers, or fail."""
        deleted = 0
        for _ in range(DELETE_ATTEMPTS):
            await self._strong_barrier(client, expr)
            deleted += await self._delete(client, filter=expr)
            left = await self._query(client, expr, ["id"], limit=1, consistency="Strong")
            if not left:
                return deleted
        raise IncompleteDeleteError(f"rows still match after {DELETE_ATTEMPTS} deletes")

    async def record_use(self, uses: Sequence[MemoryUse], at_ms: int, ttl_ms: int) -> int:
        """Renewals are revisions too (delete + insert), under the locks of their memories."""
        counts: dict[str, dict[str, int]] = {}
        for user_id, memory_id, count in uses:
            if is_memory_id(memory_id):
                counts.setdefault(user_id, {})[memory_id] = count
        changed = 0
        for user_id, wanted in counts.items():
            renew = functools.partial(
                self._renew, user_id=user_id, wanted=wanted, at_ms=at_ms, ttl_ms=ttl_ms
            )
            changed += await self._write(user_id, "record_use", renew, list(wanted))
        return changed

    async def _renew(
        self, client: AsyncMilvusClient, user_id: str, wanted: dict[str, int], at_ms: int,
        ttl_ms: int,
    ) -> int:  # fmt: skip
        ids = list(wanted)
        changed = 0
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            listed = ", ".join(filters.quote(i) for i in chunk)
            rows = schema.one_per_id(
                await self._query(
                    client, f"{filters.user_scope(user_id)} and id in [{listed}]",
                    [*OUTPUT_FIELDS, "embedding"], limit=_COPIES * len(chunk),
                ),
                user_id,
            )  # fmt: skip
            if not rows:
                continue
            updated = [
                schema.row(
                    renewed(schema.memory_of(r), wanted[r["id"]], at_ms, ttl_ms),
                    np.asarray(r["embedding"]),
                )
                for r in rows
            ]
            found = [r["id"] for r in rows]
            await self._delete(client, ids=found)
            await self._insert(client, updated)
            await self._visible(client, found[-1])
            changed += len(rows)
        return changed

    async def prune_expired(self, at_ms: int) -> int:
        expr = filters.expired(at_ms)

        async def op(client: AsyncMilvusClient) -> int:
            deleted = await self._delete(client, filter=expr)
            await self._strong_barrier(client, expr)
            return deleted

        return await self._call("prune", op)

    async def trim(self, user_id: str, keep: int) -> int:
        scope = filters.user_scope(user_id)

        async def op(client: AsyncMilvusClient) -> int:
            # as of a moment ago: a write that has not shown yet is counted by the next trim
            # (waiting for it here cost a Milvus time tick per job, ~200 ms)
            (counted,) = await self._query(
                client, scope, ["count(*)"], limit=None, consistency="Eventually"
            )
            if int(counted["count(*)"]) <= keep:
                return 0
            rows = await self._query(
                client, scope, ["user_id", "created_at", "updated_at", "meta"],
                limit=LIST_SCAN_LIMIT,
            )  # fmt: skip
            stubs = [
                Memory(id=r["id"], user_id=user_id, type=MemoryType.SEMANTIC, content="",
                       created_at=r["created_at"], updated_at=r["updated_at"], meta=r["meta"] or {})
                for r in schema.one_per_id(rows, user_id)
            ]  # fmt: skip
            doomed = [m.id for m in evictions(stubs, keep)]
            for start in range(0, len(doomed), 500):
                chunk = doomed[start : start + 500]
                expr = (
                    f"{filters.user_scope(user_id, active_only=False)} and {filters.ids_in(chunk)}"
                )
                await self._delete(client, filter=expr)
            if doomed:
                await self._visible(client, doomed[-1])
            return len(doomed)

        return await self._write(user_id, "trim", op)
