"""The real stack, started once per test run: Milvus standalone, the processor, Envoy, mock LLM."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import aiohttp
import numpy as np
import orjson
import pytest

from devstack.gateway import Gateway
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Recorded, memory_lines
from devstack.ports import free_port
from devstack.processor import ProcessorProcess
from devstack.tokens import DevIdentity
from devstack.valkey import ValkeyProcess
from memory_extproc.embedding.spaces import DIMENSION
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory, MemoryType
from tests.openapi_contract import check_response

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def milvus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusProcess]:
    server = MilvusProcess(tmp_path_factory.mktemp("milvus"), free_port())
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def valkey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ValkeyProcess]:
    server = ValkeyProcess(tmp_path_factory.mktemp("valkey"), free_port())
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
async def llm() -> AsyncIterator[MockLLM]:
    mock = MockLLM()
    await mock.start()
    yield mock
    await mock.stop()


@pytest.fixture(scope="session")
def identity(tmp_path_factory: pytest.TempPathFactory) -> DevIdentity:
    return DevIdentity(tmp_path_factory.mktemp("identity"))


class Reached(Protocol):
    """Where a test reaches a running processor through Envoy: a Gateway (devstack/gateway.py),
    or one replica of a fleet behind one Envoy (test_replicas.py)."""

    @property
    def url(self) -> str: ...
    @property
    def processor(self) -> ProcessorProcess: ...
    @property
    def config_path(self) -> Path: ...
    @property
    def metrics_url(self) -> str: ...
    @property
    def envoy_admin_url(self) -> str: ...


@dataclass
class Stack:
    """A running gateway (devstack/gateway.py), with what tests call it by."""

    gateway: Reached
    llm: MockLLM
    identity: DevIdentity
    http: aiohttp.ClientSession

    @property
    def url(self) -> str:
        return self.gateway.url

    @property
    def processor(self) -> ProcessorProcess:
        return self.gateway.processor

    @property
    def config_path(self) -> Path:
        return self.gateway.config_path

    @property
    def metrics_url(self) -> str:
        return self.gateway.metrics_url

    def restart_processor(self) -> None:
        """A new processor on the same port and configuration (after the test stopped or
        killed the old one), ready with memory on."""
        assert isinstance(self.gateway, Gateway), "a fleet's replicas are restarted by the test"
        self.gateway.start_processor()

    async def post(
        self,
        path: str,
        body: Any,
        *,
        user: str | None = None,
        headers: dict[str, str] | None = None,
        chunked: bool = False,
    ) -> tuple[int, bytes, Recorded | None]:
        """POST through Envoy; returns status, answer bytes and what the LLM received.
        ``chunked``: sent in 1 MiB chunks, with no content-length."""
        sent = dict(headers or {})
        if user is not None:
            sent["authorization"] = f"Bearer {self.identity.token(user)}"
        data = body if isinstance(body, bytes) else orjson.dumps(body)
        before = len(self.llm.recorded)

        async def pieces() -> AsyncIterator[bytes]:
            for start in range(0, len(data), 1 << 20):
                yield data[start : start + (1 << 20)]

        sending = pieces() if chunked else data
        async with self.http.post(f"{self.url}{path}", data=sending, headers=sent) as response:
            answer = await response.read()
        # what Envoy forwarded (it adds x-request-id), not the processor's own model calls
        forwarded = [r for r in self.llm.recorded[before:] if "x-request-id" in r.headers]
        return response.status, answer, forwarded[0] if forwarded else None

    async def api(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        user: str | None,
        project: str = "",
        raw: bytes | None = None,
    ) -> tuple[int, Any]:
        """Call the memory API through Envoy; every answer is checked against the OpenAPI doc."""
        headers = {"authorization": f"Bearer {self.identity.token(user, project)}"} if user else {}
        data = raw if raw is not None else (orjson.dumps(body) if body is not None else None)
        if data is not None:
            headers["content-type"] = "application/json"
        before = len(self.llm.recorded)
        async with self.http.request(
            method, f"{self.url}{path}", data=data, headers=headers
        ) as response:
            answer = await response.read()
            content_type = response.headers.get("content-type", "")
        reached = [r for r in self.llm.recorded[before:] if r.path.startswith("/v1/memory")]
        assert not reached, "a memory API call reached the LLM"
        parsed = orjson.loads(answer) if answer else None
        if answer:
            assert content_type == "application/json"
        check_response(method, path.split("?", 1)[0], response.status, parsed)
        return response.status, parsed

    async def ask(self, question: str, user: str | None = None, **kwargs: Any) -> list[str]:
        """Ask a chat question; the memory lines the LLM was given."""
        status, _, received = await self.post(
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": question}]},
            user=user,
            **kwargs,
        )
        assert status == 200
        assert received is not None
        return memory_lines(received.json)

    async def metric(self, name: str, labels: dict[str, str] | None = None) -> float:
        async with self.http.get(self.metrics_url) as response:
            text = await response.text()
        wanted = name + (
            "{" + ",".join(f'{k}="{v}"' for k, v in (labels or {}).items()) + "}" if labels else ""
        )
        for line in text.splitlines():
            if line.startswith(wanted + " "):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    async def stream(
        self, body: dict[str, Any], user: str, chunks: list[bytes], release: asyncio.Event
    ) -> bytes:
        """POST a streamed chat request whose answer (``chunks``, scripted with ``release``) is
        held upstream after its first event: that event must arrive before the rest is let go.
        The whole answer as received."""
        headers = {"authorization": f"Bearer {self.identity.token(user)}"}
        async with self.http.post(
            f"{self.url}/v1/chat/completions", json=body, headers=headers
        ) as response:
            assert response.status == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            first = await asyncio.wait_for(response.content.readuntil(b"\n\n"), timeout=10)
            assert not release.is_set()  # the upstream is still holding the rest of the answer
            assert first == chunks[0]
            release.set()
            return first + await response.content.read()

    async def ext_proc_messages_sent(self) -> int:
        """Messages Envoy has sent to the processor so far (its ext_proc filter's counter)."""
        stat = "http.llm.ext_proc.stream_msgs_sent"
        url = f"{self.gateway.envoy_admin_url}/stats?filter=^{stat}$"
        async with self.http.get(url) as response:
            text = await response.text()
        (line,) = text.splitlines()
        return int(line.removeprefix(f"{stat}: "))

    async def ext_proc_messages_settled(self) -> int:
        """The counter once it stops moving: an earlier exchange's last messages (a stream
        Envoy is still closing) must not be counted as this one's."""
        last = -1

        async def steady() -> bool:
            nonlocal last
            now = await self.ext_proc_messages_sent()
            steady, last = now == last, now
            return steady

        await until(steady)
        return last


async def until(condition, timeout_s: float = 30.0):  # type: ignore[no-untyped-def]
    """Wait for another process's eventual result (no event crosses the process boundary);
    fail after the deadline. Returns the condition's truthy value."""
    async with asyncio.timeout(timeout_s):
        while not (result := await condition()):  # noqa: ASYNC110 - polls another process
            await asyncio.sleep(0.1)
    return result


@asynccontextmanager
async def running_stack(
    workdir: Path,
    milvus_address: str,
    llm: MockLLM,
    identity: DevIdentity,
    *,
    collection: str,
    memory: dict[str, Any] | None = None,
    otlp: tuple[str, int] | None = None,  # Envoy's traces to this collector
) -> AsyncIterator[Stack]:
    """Ready when the processor serves, memory on or not (a test starts it with Milvus down)."""
    # What these stacks test is what memory does, not how fast (make bench): on a machine busy
    # with the rest of the suite one search over the 100 ms budget passed a request without
    # memory (fail open, as designed) and failed an isolation test in CI.
    memory = {
        "milvus": {"address": milvus_address, "collection": collection},
        "retrieval": {"time_budget_ms": 2000},
        **(memory or {}),
    }
    gateway = Gateway(workdir, memory, llm.port, identity, log_level="DEBUG", otlp=otlp)
    try:
        gateway.wait_ready(memory_on=False)
        async with aiohttp.ClientSession() as http:
            yield Stack(gateway, llm, identity, http)
    finally:
        gateway.stop()


@pytest.fixture(scope="session")
async def stack(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
) -> AsyncIterator[Stack]:
    async with running_stack(
        tmp_path_factory.mktemp("stack"), f"127.0.0.1:{milvus.port}", llm, identity,
        collection="it_main", memory={"auto_store": False},  # request path only, deterministic
    ) as running:  # fmt: skip
        yield running


async def open_store(milvus: MilvusProcess, collection: str) -> MilvusStore:
    """A client of the test Milvus, to seed and inspect a stack's memories."""
    store = MilvusStore(milvus.uri, collection, DIMENSION)
    await store.start()
    assert await store.wait_available(60)
    return store


@pytest.fixture(scope="session")
async def store(milvus: MilvusProcess, stack: Stack) -> AsyncIterator[MilvusStore]:
    milvus_store = await open_store(milvus, "it_main")
    yield milvus_store
    await milvus_store.close()


@pytest.fixture
def user() -> str:
    """A fresh user per test: tests never see each other's memories."""
    return f"user-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def remember(store: MilvusStore, stored_vector: Callable[[str], np.ndarray]):  # type: ignore[no-untyped-def]
    async def add(user_id: str, content: str, project_id: str = "") -> Memory:
        memory = Memory.new(
            user_id, content, MemoryType.SEMANTIC, project_id=project_id, source="test"
        )
        vector: np.ndarray = stored_vector(content)
        await store.store(memory, vector)
        return memory

    return add
