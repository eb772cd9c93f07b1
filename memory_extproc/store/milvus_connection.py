"""The life of one Milvus client: connect (and create the collection), count and time every
call, and when Milvus goes away, turn ``available`` false (callers fail open) and reconnect in
the background until it answers again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pymilvus import AsyncMilvusClient

from memory_extproc import metrics
from memory_extproc.store.milvus_schema import (
    SchemaMismatchError,
    check_schema,
    collection_schema,
    vector_index,
)
from memory_extproc.store.model import StoreUnavailableError

log = logging.getLogger(__name__)
T = TypeVar("T")

# A restarting Milvus accepts connections before it answers; try briefly, and again a second
# later, rather than wait out a full call timeout each time.
PROBE_TIMEOUT_S = 1.5


class MilvusConnection:
    def __init__(
        self,
        uri: str,
        collection: str,
        dimension: int,
        *,
        partitions: int,
        token: str,
        timeout_s: float,
        reconnect_interval_s: float,
        client_name: str,
    ) -> None:
        self.uri = uri
        self.collection = collection
        self.timeout = timeout_s
        self._dimension = dimension
        self._partitions = partitions
        self._token = token
        self._reconnect_interval = reconnect_interval_s
        self._client: AsyncMilvusClient | None = None
        self._connect_task: asyncio.Task[None] | None = None
        self._first_attempt = asyncio.Event()
        self._connected = asyncio.Event()
        self._available_gauge = metrics.STORE_AVAILABLE.labels(client_name)
        self._available_gauge.set(0)

    @property
    def available(self) -> bool:
        return self._client is not None

    async def start(self, wait_s: float) -> None:
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

    async def call(self, operation: str, fn: Callable[[AsyncMilvusClient], Awaitable[T]]) -> T:
        """``fn`` with the client, counted and timed by ``operation``; a lost connection turns
        memory off and starts reconnecting."""
        client = self._client
        if client is None:
            raise StoreUnavailableError("Milvus is not connected")
        started = time.perf_counter()
        try:
            result = await fn(client)
        except (asyncio.CancelledError, StoreUnavailableError):  # the latter: its lock, not Milvus
            raise
        except Exception as exc:
            metrics.STORE_ERRORS.labels(operation).inc()
            if is_connection_error(exc) and self._client is client:
                log.error("Milvus unavailable, memory disabled: %s", type(exc).__name__)
                await self._drop_client()
                self._start_connecting()
            raise StoreUnavailableError(f"Milvus {operation} failed: {exc}") from exc
        metrics.STORE_SECONDS.labels(operation).observe(time.perf_counter() - started)
        return result

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
                        extra={"uri": self.uri, "error": f"{type(exc).__name__}: {exc}"[:300]},
                    )
                failures += 1
                self._first_attempt.set()
                await asyncio.sleep(self._reconnect_interval)

    async def _connect(self) -> None:
        # dedicated: a channel of our own. pymilvus' shared registry health-checks a connection
        # idle over 30 s while holding a lock its own error path takes again, so a reconnect
        # during an outage waited forever on it (and a shared channel is one a sibling client's
        # close or recovery can pull away).
        client = AsyncMilvusClient(  # every call passes its own timeout
            uri=self.uri, token=self._token, timeout=PROBE_TIMEOUT_S, dedicated=True
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
        log.info("Milvus connected, memory enabled", extra={"uri": self.uri})

    async def _ensure_collection(self, client: AsyncMilvusClient) -> None:
        name = self.collection
        if await client.has_collection(name, timeout=self.timeout):
            description = await client.describe_collection(name, timeout=self.timeout)
            check_schema(description, name, self._dimension)
            if description.get("num_partitions", self._partitions) != self._partitions:
                log.warning(
                    "milvus.partitions applies to new collections only",
                    extra={"collection": name, "partitions": description["num_partitions"]},
                )
        else:
            await client.create_collection(
                name,
                schema=collection_schema(self._dimension),
                index_params=vector_index(),
                num_partitions=self._partitions,
                consistency_level="Session",
                timeout=self.timeout,
            )
            log.info("created Milvus collection", extra={"collection": name})
        await client.load_collection(name, timeout=max(self.timeout, 60.0))
        # After a Milvus restart, reads at "Eventually" miss the rows replayed from its log until
        # the query node has caught up; a Strong read waits for exactly that.
        await client.query(
            name, filter='id == ""', output_fields=["id"], limit=1,
            consistency_level="Strong", timeout=max(self.timeout, 60.0),
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


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def is_connection_error(exc: Exception) -> bool:
    import grpc  # local: only needed on the error path

    code = getattr(exc, "code", None)
    if isinstance(exc, grpc.aio.AioRpcError):
        return exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    # pymilvus wraps transport failures in MilvusException with code 1/2 (unexpected/connect).
    # Its message may quote our filter, i.e. a user's id ("reconnect-bot"): words inside quotes
    # say nothing about the connection (one such user turned memory off for everyone).
    text = _QUOTED.sub('""', str(exc)).lower()
    return code in (1, 2) or "unavailable" in text or "connect" in text or "deadline" in text
