"""MilvusStore: the Store protocol on Milvus (pymilvus' AsyncMilvusClient).

* ``user_id`` is the partition key, so a search touches one user's partition, not everyone's.
* Consistency is chosen per call. Hot-path searches read at "Eventually" and never wait; every
  write ends with a "Strong" read of what it wrote (a visibility barrier, ~one Milvus time tick,
  off the hot path), so a memory stored or forgotten is seen by the very next search, from any
  processor that uses this Milvus.
* Down at start-up or later: ``available`` turns false, callers fail open, and a background task
  reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from pymilvus import AsyncMilvusClient, DataType, MilvusClient

from memory_extproc import metrics
from memory_extproc.clock import now_ms
from memory_extproc.store import filters
from memory_extproc.store.locks import FileLocks, WriteLocks
from memory_extproc.store.model import (
    MAX_SCOPE_BYTES,
    Memory,
    MemoryType,
    MemoryUse,
    ScoredMemory,
    SearchRequest,
    StoreUnavailableError,
    audit_copy,
    by_replacement,
    evictions,
    is_memory_id,
    newest_first,
    renewed,
)

log = logging.getLogger(__name__)
_HEX = re.compile(r"[0-9a-f]{64}")
T = TypeVar("T")

SCHEMA_TAG = "memory-extproc schema v1"
_OUTPUT_FIELDS = [
    "id", "user_id", "project_id", "type", "content", "source", "created_at", "updated_at",
    "access_count", "content_hash", "superseded_by", "expires_at", "meta",
]  # fmt: skip
_MEMORY_FIELDS = frozenset(f.name for f in dataclasses.fields(Memory))
# What injection needs; fewer fields is measurably cheaper to fetch and decode on the hot path.
SEARCH_FIELDS = [
    "user_id", "project_id", "type", "content", "created_at", "updated_at", "expires_at",
]  # fmt: skip
LIST_SCAN_LIMIT = 16384  # Milvus' largest query window
DELETE_ATTEMPTS = 3
# Connecting: a restarting Milvus accepts connections before it answers; try briefly, and again
# a second later, rather than wait out a full call timeout each time.
PROBE_TIMEOUT_S = 1.5
_COPIES = 4  # rows read per memory id, so a key stored twice (see _one_per_id) is still found


class IncompleteDeleteError(RuntimeError):
    """Rows survived every delete: reported as a store failure, never as done."""


class SchemaMismatchError(RuntimeError):
    """The collection exists with a shape this release cannot use; refusing to start."""


def check_schema(description: dict[str, Any], collection: str, dimension: int) -> None:
    fields = {f["name"]: f for f in description.get("fields", [])}
    embedding = fields.get("embedding")
    if embedding is None or description.get("description") != SCHEMA_TAG:
        raise SchemaMismatchError(
            f"Milvus collection {collection!r} was not created by memory-extproc "
            f"({SCHEMA_TAG}); use another collection name or drop it"
        )
    dim = int(embedding["params"]["dim"])
    if dim != dimension:
        raise SchemaMismatchError(
            f"Milvus collection {collection!r} stores {dim}-dimensional vectors but the "
            f"embedding model produces {dimension}: use a new collection for this model"
        )


def _schema(dimension: int) -> Any:
    schema = MilvusClient.create_schema(
        auto_id=False, enable_dynamic_field=False, description=SCHEMA_TAG
    )
    schema.add_field("id", DataType.VARCHAR, max_length=40, is_primary=True)
    schema.add_field("user_id", DataType.VARCHAR, max_length=MAX_SCOPE_BYTES, is_partition_key=True)
    schema.add_field("project_id", DataType.VARCHAR, max_length=MAX_SCOPE_BYTES)
    schema.add_field("type", DataType.VARCHAR, max_length=16)
    schema.add_field("content", DataType.VARCHAR, max_length=8192)
    schema.add_field("embedding", DataType.FLOAT_VECTOR, dim=dimension)
    schema.add_field("source", DataType.VARCHAR, max_length=64)
    schema.add_field("created_at", DataType.INT64)
    schema.add_field("updated_at", DataType.INT64)
    schema.add_field("access_count", DataType.INT64)
    schema.add_field("importance", DataType.FLOAT)  # unused; kept so v1 collections stay valid
    schema.add_field("content_hash", DataType.VARCHAR, max_length=64)
    schema.add_field("superseded_by", DataType.VARCHAR, max_length=40)
    schema.add_field("expires_at", DataType.INT64)
    schema.add_field("meta", DataType.JSON)
    return schema


def _row(memory: Memory, vector: np.ndarray) -> dict[str, Any]:
    return {
        "id": memory.id,
        "user_id": memory.user_id,
        "project_id": memory.project_id,
        "type": memory.type.value,
        "content": memory.content,
        "embedding": vector.astype(np.float32).tolist(),
        "source": memory.source,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "access_count": memory.access_count,
        "importance": 0.0,
        "content_hash": memory.content_hash,
        "superseded_by": memory.superseded_by,
        "expires_at": memory.expires_at,
        "meta": dict(memory.meta),
    }


def _memory(entity: dict[str, Any]) -> Memory:
    """A row as a Memory; fields a search did not ask for keep their defaults."""
    fields = {k: v for k, v in entity.items() if k in _MEMORY_FIELDS}
    fields["type"] = MemoryType(entity["type"])
    fields["meta"] = entity.get("meta") or {}
    return Memory(**fields)


def _scored(hits: list[dict[str, Any]], request: SearchRequest) -> list[ScoredMemory]:
    results: dict[str, ScoredMemory] = {}
    for hit in hits:
        entity = hit["entity"]
        # Defence in depth: the filter already scopes to the user; check again anyway.
        if entity["user_id"] != request.user_id or hit["distance"] < request.threshold:
            continue
        memory = _memory({**entity, "id": hit["id"]})
        seen = results.get(memory.id)
        if seen is None or memory.updated_at > seen.memory.updated_at:
            results[memory.id] = ScoredMemory(memory, hit["distance"])
    return list(results.values())


def _one_per_id(rows: Sequence[dict[str, Any]], user_id: str) -> list[dict[str, Any]]:
    """The user's rows, the newest of each id: of a key stored twice (revisions of one memory
    by processes that do not share the store locks), Milvus gives a query by id the oldest row
    first and a search the newest; the next revision deletes both."""
    newest: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["user_id"] != user_id:
            continue
        seen = newest.get(row["id"])
        if seen is None or row.get("updated_at", 0) > seen.get("updated_at", 0):
            newest[row["id"]] = row
    return list(newest.values())


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
        locks_dir: Path | None = None,  # shared by every process writing this collection
    ) -> None:
        self._uri = uri
        self._collection = collection
        self._dimension = dimension
        self._partitions = partitions
        self._token = token
        self._timeout = timeout_s
        self._reconnect_interval = reconnect_interval_s
        self._client: AsyncMilvusClient | None = None
        self._connect_task: asyncio.Task[None] | None = None
        self._first_attempt = asyncio.Event()
        self._connected = asyncio.Event()
        self._available_gauge = metrics.STORE_AVAILABLE.labels(client_name)
        self._available_gauge.set(0)
        # who writes which rows at once (store/locks.py)
        self._locks = WriteLocks(FileLocks(locks_dir) if locks_dir is not None else None)

    @property
    def available(self) -> bool:
        return self._client is not None

    async def start(self, wait_s: float = 10.0) -> None:
        """Connect in the background; return once the first attempt ends or ``wait_s`` passes.

        Milvus down: the service starts at once with memory disabled and keeps trying. Milvus
        slow (replaying its log after a restart): memory turns on when it has caught up.
        A collection of the wrong shape raises SchemaMismatchError: a configuration error, not
        an outage, and the service must not start with it.
        """
        connecting = self._start_connecting()
        attempt = asyncio.ensure_future(self._first_attempt.wait())
        await asyncio.wait(
            [attempt, connecting], timeout=wait_s, return_when=asyncio.FIRST_COMPLETED
        )
        attempt.cancel()
        if connecting.done() and not connecting.cancelled():
            error = connecting.exception()
            if isinstance(error, SchemaMismatchError):
                raise error

    async def wait_available(self, timeout_s: float) -> bool:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._connected.wait()
        return self.available

    async def close(self) -> None:
        if self._connect_task is not None:
            self._connect_task.cancel()
        await self._drop_client()

    def _start_connecting(self) -> asyncio.Task[None]:
        if self._connect_task is None or self._connect_task.done():
            self._connect_task = asyncio.get_running_loop().create_task(self._connect_loop())
        return self._connect_task

    async def _connect_loop(self) -> None:
        failures = 0
        while self._client is None:
            try:
                await self._connect()
            except SchemaMismatchError as exc:
                log.error("Milvus collection unusable, memory stays disabled: %s", exc)
                raise
            except Exception as exc:  # not reachable (yet)
                if failures == 0:
                    log.error(
                        "Milvus unavailable, memory disabled; retrying in the background",
                        extra={"uri": self._uri, "error": f"{type(exc).__name__}: {exc}"[:300]},
                    )
                failures += 1
                self._first_attempt.set()
                await asyncio.sleep(self._reconnect_interval)

    async def _connect(self) -> None:
        # dedicated: a channel of our own. pymilvus' shared registry health-checks a connection
        # idle over 30 s while holding a lock its own error path takes again, so a reconnect
        # during an outage waited forever on it (and a shared channel is one a sibling client's
        # close or recovery can pull away).
        client = AsyncMilvusClient(  # every call below passes its own timeout
            uri=self._uri, token=self._token, timeout=PROBE_TIMEOUT_S, dedicated=True
        )
        try:
            await self._ensure_collection(client)
        except BaseException:
            await client.close()
            raise
        self._client = client
        self._connected.set()
        self._first_attempt.set()
        self._available_gauge.set(1)
        log.info("Milvus connected, memory enabled", extra={"uri": self._uri})

    async def _ensure_collection(self, client: AsyncMilvusClient) -> None:
        name = self._collection
        if await client.has_collection(name, timeout=self._timeout):
            description = await client.describe_collection(name, timeout=self._timeout)
            check_schema(description, name, self._dimension)
            if description.get("num_partitions", self._partitions) != self._partitions:
                log.warning(
                    "milvus.partitions applies to new collections only",
                    extra={"collection": name, "partitions": description["num_partitions"]},
                )
        else:
            # FLAT, chosen by `make scale`: a search filters to one user's few hundred rows, where
            # exact search is as fast as HNSW (2.2-2.9 ms for every kind at 1 M memories), never
            # misses (HNSW recalled 0.978 of the exact top 5 at 100 k) and builds in 14 s, not 162.
            index = MilvusClient.prepare_index_params()
            index.add_index(field_name="embedding", index_type="FLAT", metric_type="COSINE")
            await client.create_collection(
                name,
                schema=_schema(self._dimension),
                index_params=index,
                num_partitions=self._partitions,
                consistency_level="Session",
                timeout=self._timeout,
            )
            log.info("created Milvus collection", extra={"collection": name})
        await client.load_collection(name, timeout=max(self._timeout, 60.0))
        # After a Milvus restart, reads at "Eventually" miss the rows replayed from its log until
        # the query node has caught up; a Strong read waits for exactly that.
        await client.query(
            name, filter='id == ""', output_fields=["id"], limit=1,
            consistency_level="Strong", timeout=max(self._timeout, 60.0),
        )  # fmt: skip

    async def _drop_client(self) -> None:
        client, self._client = self._client, None
        self._connected.clear()
        self._available_gauge.set(0)
        if client is not None:
            try:
                await client.close()
            except Exception:  # closing a broken channel may fail too
                log.debug("closing Milvus client failed", exc_info=True)

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
        async with held:
            return await self._call(operation, fn)

    async def _call(self, operation: str, fn: Callable[[AsyncMilvusClient], Awaitable[T]]) -> T:
        client = self._client
        if client is None:
            raise StoreUnavailableError("Milvus is not connected")
        started = time.perf_counter()
        try:
            result = await fn(client)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            metrics.STORE_ERRORS.labels(operation).inc()
            if _is_connection_error(exc) and self._client is client:
                log.error("Milvus unavailable, memory disabled: %s", type(exc).__name__)
                await self._drop_client()
                self._start_connecting()
            raise StoreUnavailableError(f"Milvus {operation} failed: {exc}") from exc
        metrics.STORE_SECONDS.labels(operation).observe(time.perf_counter() - started)
        return result

    async def _visible(self, client: AsyncMilvusClient, memory_id: str) -> None:
        """Wait until every query node has applied our writes (see module docstring)."""
        await client.query(
            self._collection,
            filter=f"id == {filters.quote(memory_id)}",
            output_fields=["id"],
            limit=1,
            consistency_level="Strong",
            timeout=self._timeout,
        )

    async def _strong_barrier(self, client: AsyncMilvusClient, expr: str) -> None:
        await client.query(
            self._collection, filter=expr, output_fields=["id"], limit=1,
            consistency_level="Strong", timeout=self._timeout,
        )  # fmt: skip

    async def _replace(self, client: AsyncMilvusClient, row: dict[str, Any]) -> None:
        """Delete then insert: Milvus 2.3's upsert on this (partition-key) collection drops the
        row it writes (tests/integration/test_store.py). A search between the two calls may miss
        the memory; no search ever sees two versions."""
        await client.delete(self._collection, ids=[row["id"]], timeout=self._timeout)
        await client.insert(self._collection, [row], timeout=self._timeout)

    async def store(self, memory: Memory, vector: np.ndarray) -> None:
        await self.store_many([(memory, vector)])

    async def store_many(
        self, items: Sequence[tuple[Memory, np.ndarray]], *, wait_visible: bool = True
    ) -> None:
        if not items:
            return
        rows = [_row(m, v) for m, v in items]

        async def op(client: AsyncMilvusClient) -> None:
            await client.insert(self._collection, rows, timeout=self._timeout)
            if wait_visible:
                await self._visible(client, rows[-1]["id"])

        users = sorted({m.user_id for m, _ in items})
        if len(users) == 1:
            await self._write(users[0], "insert", op, [m.id for m, _ in items])
        else:  # bulk loads (bench, eval): new ids only, nothing to race with
            await self._call("insert", op)

    async def update(self, memory: Memory, vector: np.ndarray) -> None:
        row = _row(memory, vector)

        async def op(client: AsyncMilvusClient) -> None:
            await self._replace(client, row)
            await self._visible(client, memory.id)

        await self._write(memory.user_id, "update", op, [memory.id])

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
                output_fields=_OUTPUT_FIELDS if first.complete else SEARCH_FIELDS,
                # ef: for HNSW collections made by earlier releases (FLAT ignores it)
                search_params={"metric_type": "COSINE", "params": {"ef": max(64, first.limit)}},
                consistency_level="Eventually",
                timeout=self._timeout,
            )

        found = await self._call("search", op)
        return [_scored(hits, request) for hits, request in zip(found, requests, strict=True)]

    async def get(self, user_id: str, memory_id: str) -> Memory | None:
        expr = filters.one_memory(user_id, memory_id)

        def op(consistency: str) -> Callable[[AsyncMilvusClient], Awaitable[list[dict]]]:
            return lambda client: client.query(
                self._collection, filter=expr, output_fields=_OUTPUT_FIELDS, limit=_COPIES,
                consistency_level=consistency, timeout=self._timeout,
            )  # fmt: skip

        rows = _one_per_id(await self._call("get", op("Session")), user_id)
        if not rows:
            # Not found may be a revision's delete-then-insert half done, here or in another
            # process (a PUT answered 404 in a flood of them): ask again behind its writers.
            async with self._locks.memories(user_id, [memory_id]):
                rows = _one_per_id(await self._call("get", op("Strong")), user_id)
        return _memory(rows[0]) if rows else None

    async def list(
        self,
        user_id: str,
        *,
        limit: int = 100,
        types: Sequence[MemoryType] = (),
        project_id: str | None = None,
        before: tuple[int, str] | None = None,
    ) -> list[Memory]:
        """Milvus cannot sort a query: read the keys of the user's rows (bounded by the per-user
        cap, at most LIST_SCAN_LIMIT), pick the page here, then fetch just that page.

        A memory revised between the two reads (deleted, then inserted again) is missing from
        the second: it is read again behind its writers. One forgotten meanwhile is replaced by
        the next key, so a page is short only at the end (a short page read as the last one
        ended listings at 15 of 30 memories while one was being edited)."""
        expr = filters.user_scope(user_id, project_id=project_id, types=types, alive_at=now_ms())

        async def fetch(
            client: AsyncMilvusClient, ids: list[str], consistency: str
        ) -> list[dict[str, Any]]:
            listed = ", ".join(filters.quote(i) for i in ids)
            rows = await client.query(
                self._collection, filter=f"{expr} and id in [{listed}]",
                output_fields=_OUTPUT_FIELDS, limit=min(LIST_SCAN_LIMIT, _COPIES * len(ids)),
                consistency_level=consistency, timeout=self._timeout,
            )  # fmt: skip
            return _one_per_id(rows, user_id)

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            keys = await client.query(
                self._collection, filter=expr, output_fields=["user_id", "created_at"],
                limit=LIST_SCAN_LIMIT, timeout=self._timeout,
            )  # fmt: skip
            stubs = [
                Memory(id=k["id"], user_id=user_id, type=MemoryType.SEMANTIC, content="",
                       created_at=k["created_at"])
                for k in _one_per_id(keys, user_id)
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
        return newest_first([_memory(r) for r in _one_per_id(rows, user_id)], limit)

    async def existing_hashes(self, user_id: str, digests: Sequence[str]) -> set[str]:
        if not digests:
            return set()
        if not all(_HEX.fullmatch(d) for d in digests):
            raise ValueError("not a content hash")
        listed = ", ".join(filters.quote(d) for d in digests)
        expr = f"{filters.user_scope(user_id, alive_at=now_ms())} and content_hash in [{listed}]"

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            return await client.query(
                self._collection, filter=expr, output_fields=["user_id", "content_hash"],
                limit=len(digests), timeout=self._timeout,
            )  # fmt: skip

        rows = await self._call("existing_hashes", op)
        return {r["content_hash"] for r in rows if r["user_id"] == user_id}

    async def _with_vector(
        self, client: AsyncMilvusClient, user_id: str, memory_id: str
    ) -> tuple[Memory, Sequence[float]] | None:
        """Read under the memory's write lock. Not found may be another process's revision
        not yet visible to this client (Session sees its own writes): ask again, Strong."""
        for consistency in ("Session", "Strong"):
            rows = _one_per_id(
                await client.query(
                    self._collection, filter=filters.one_memory(user_id, memory_id),
                    output_fields=[*_OUTPUT_FIELDS, "embedding"], limit=_COPIES,
                    consistency_level=consistency, timeout=self._timeout,
                ),
                user_id,
            )  # fmt: skip
            if rows:
                return _memory(rows[0]), rows[0]["embedding"]
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
            await client.insert(
                self._collection, [_row(audit, np.asarray(old_vector))], timeout=self._timeout
            )
            await self._replace(client, _row(memory, vector))
            if wait_visible:
                await self._visible(client, memory.id)
            return True

        return await self._write(memory.user_id, "revise", op, [memory.id])

    async def history(self, user_id: str, memory_id: str) -> Sequence[Memory]:
        expr = filters.history_of(user_id, memory_id)

        async def op(client: AsyncMilvusClient) -> list[dict[str, Any]]:
            return await client.query(
                self._collection, filter=expr, output_fields=_OUTPUT_FIELDS,
                limit=LIST_SCAN_LIMIT, timeout=self._timeout,
            )  # fmt: skip

        rows = await self._call("history", op)
        return by_replacement(_memory(r) for r in rows if r["user_id"] == user_id)

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
        row = _row(record, np.eye(1, self._dimension, dtype=np.float32)[0])  # any unit vector
        expr = filters.whole_scope(user_id, project_id)

        async def op(client: AsyncMilvusClient) -> int:
            await client.insert(self._collection, [row], timeout=self._timeout)
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
            return await client.query(
                self._collection, filter=expr, output_fields=["user_id", "created_at"],
                limit=LIST_SCAN_LIMIT, consistency_level=consistency, timeout=self._timeout,
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
            result = await client.delete(self._collection, filter=expr, timeout=self._timeout)
            deleted += int(result.get("delete_count", 0))
            left = await client.query(
                self._collection, filter=expr, output_fields=["id"], limit=1,
                consistency_level="Strong", timeout=self._timeout,
            )  # fmt: skip
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
            rows = _one_per_id(
                await client.query(
                    self._collection, filter=f"{filters.user_scope(user_id)} and id in [{listed}]",
                    output_fields=[*_OUTPUT_FIELDS, "embedding"], limit=_COPIES * len(chunk),
                    timeout=self._timeout,
                ),
                user_id,
            )  # fmt: skip
            if not rows:
                continue
            updated = [
                _row(
                    renewed(_memory(r), wanted[r["id"]], at_ms, ttl_ms), np.asarray(r["embedding"])
                )
                for r in rows
            ]
            found = [r["id"] for r in rows]
            await client.delete(self._collection, ids=found, timeout=self._timeout)
            await client.insert(self._collection, updated, timeout=self._timeout)
            await self._visible(client, found[-1])
            changed += len(rows)
        return changed

    async def prune_expired(self, at_ms: int) -> int:
        expr = filters.expired(at_ms)

        async def op(client: AsyncMilvusClient) -> int:
            result = await client.delete(self._collection, filter=expr, timeout=self._timeout)
            await self._strong_barrier(client, expr)
            return int(result.get("delete_count", 0))

        return await self._call("prune", op)

    async def trim(self, user_id: str, keep: int) -> int:
        scope = filters.user_scope(user_id)

        async def op(client: AsyncMilvusClient) -> int:
            # as of a moment ago: a write that has not shown yet is counted by the next trim
            # (waiting for it here cost a Milvus time tick per job, ~200 ms)
            (counted,) = await client.query(
                self._collection, filter=scope, output_fields=["count(*)"],
                consistency_level="Eventually", timeout=self._timeout,
            )  # fmt: skip
            if int(counted["count(*)"]) <= keep:
                return 0
            rows = await client.query(
                self._collection, filter=scope,
                output_fields=["user_id", "created_at", "updated_at", "meta"],
                limit=LIST_SCAN_LIMIT, timeout=self._timeout,
            )  # fmt: skip
            stubs = [
                Memory(id=r["id"], user_id=user_id, type=MemoryType.SEMANTIC, content="",
                       created_at=r["created_at"], updated_at=r["updated_at"], meta=r["meta"] or {})
                for r in _one_per_id(rows, user_id)
            ]  # fmt: skip
            doomed = [m.id for m in evictions(stubs, keep)]
            for start in range(0, len(doomed), 500):
                chunk = doomed[start : start + 500]
                expr = (
                    f"{filters.user_scope(user_id, active_only=False)} and {filters.ids_in(chunk)}"
                )
                await client.delete(self._collection, filter=expr, timeout=self._timeout)
            if doomed:
                await self._visible(client, doomed[-1])
            return len(doomed)

        return await self._write(user_id, "trim", op)


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def _is_connection_error(exc: Exception) -> bool:
    import grpc  # local: only needed on the error path

    code = getattr(exc, "code", None)
    if isinstance(exc, grpc.aio.AioRpcError):
        return exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    # pymilvus wraps transport failures in MilvusException with code 1/2 (unexpected/connect).
    # Its message may quote our filter, i.e. a user's id ("reconnect-bot"): words inside quotes
    # say nothing about the connection (one such user turned memory off for everyone).
    text = _QUOTED.sub('""', str(exc)).lower()
    return code in (1, 2) or "unavailable" in text or "connect" in text or "deadline" in text
