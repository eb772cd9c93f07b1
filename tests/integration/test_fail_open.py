"""Milvus down, at start-up or mid-run: every request still succeeds, unchanged, and memory comes
back by itself when Milvus does. Milvus "goes down" behind a TCP proxy the test cuts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply
from devstack.tokens import DevIdentity
from memory_extproc.embedding.spaces import DIMENSION
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory, StoreUnavailableError
from tests.integration.conftest import Stack, open_store, running_stack, until
from tests.integration.tcp_proxy import TcpProxy

pytestmark = pytest.mark.integration

COLLECTION = "it_fail_open"
QUESTION = "What's my budget for the Hawaii trip?"


@pytest.fixture(scope="module")
async def proxy(milvus: MilvusProcess) -> AsyncIterator[TcpProxy]:
    tcp = TcpProxy(milvus.port)
    await tcp.start()
    await tcp.cut()  # Milvus is "down" when the processor starts
    yield tcp
    await tcp.cut()


@pytest.fixture(scope="module")
async def degraded(
    tmp_path_factory: pytest.TempPathFactory, proxy: TcpProxy, llm: MockLLM, identity: DevIdentity
) -> AsyncIterator[Stack]:
    async with running_stack(
        Path(tmp_path_factory.mktemp("fail_open")), f"127.0.0.1:{proxy.port}", llm, identity,
        collection=COLLECTION,
    ) as stack:  # fmt: skip
        yield stack


async def unchanged(stack: Stack, user: str) -> bool:
    body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": QUESTION}]})
    status, _, received = await stack.post("/v1/chat/completions", body, user=user)
    return status == 200 and received is not None and received.body == body


async def test_down_at_start_then_up_then_down_again(
    degraded: Stack,
    proxy: TcpProxy,
    milvus: MilvusProcess,
    stored_vector,
    user: str,  # type: ignore[no-untyped-def]
) -> None:
    # 1. Started without Milvus: serving, every request passes through unchanged.
    assert degraded.processor.running
    assert await degraded.metric("memory_store_available", {"client": "query"}) == 0
    for _ in range(3):
        assert await unchanged(degraded, user)
    assert (
        await degraded.metric("memory_retrieval_outcomes_total", {"outcome": "store_unavailable"})
        >= 3
    )
    assert "Milvus unavailable, memory disabled" in degraded.processor.log_tail(200)

    # 2. Milvus comes back: the processor reconnects by itself and memory works.
    await proxy.restore()
    await until(lambda: _available(degraded))
    seeding = await open_store(milvus, COLLECTION)
    memory = Memory.new(user, "My budget for the Hawaii trip is $10,000")
    await seeding.store(memory, stored_vector(memory.content))
    await seeding.close()
    assert await degraded.ask(QUESTION, user) != []

    # 3. Milvus goes away mid-run: requests still succeed, unchanged, and the failure is counted.
    await proxy.cut()
    for _ in range(3):
        assert await unchanged(degraded, user)
    failed = sum(
        [
            await degraded.metric("memory_retrieval_outcomes_total", {"outcome": outcome})
            for outcome in ("store_unavailable", "timeout")
        ]
    )
    assert failed >= 6

    # 4. And back again.
    await proxy.restore()
    await until(lambda: _injects(degraded, user))


async def _available(stack: Stack) -> bool:
    return await stack.metric("memory_store_available", {"client": "query"}) == 1


async def _injects(stack: Stack, user: str) -> bool:
    return bool(await stack.ask(QUESTION, user))


async def test_sigterm_lets_an_in_flight_stream_finish_then_requests_go_on_without_memory(
    degraded: Stack, user: str
) -> None:
    release = asyncio.Event()
    chunks = [b'data: {"n": 1}\n\n', b'data: {"n": 2}\n\n', b"data: [DONE]\n\n"]
    degraded.llm.script(Reply(chunks=chunks, release=release))
    body = {"stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    headers = {"authorization": f"Bearer {degraded.identity.token(user)}"}
    url = f"{degraded.url}/v1/chat/completions"
    async with degraded.http.post(url, json=body, headers=headers) as response:
        first = await response.content.readuntil(b"\n\n")
        stopping = asyncio.create_task(asyncio.to_thread(degraded.processor.stop))
        release.set()
        rest = await response.content.read()
    assert first + rest == b"".join(chunks)
    assert await stopping == 0  # a clean exit within the grace period
    assert "stopped" in degraded.processor.log_tail(5)
    assert await unchanged(degraded, user)  # Envoy carries on without the processor


async def test_a_store_idle_past_the_health_check_threshold_comes_back_after_an_outage(
    milvus: MilvusProcess,
    stored_vector,
    user: str,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """pymilvus health-checks a shared connection idle for 30 s under a lock its own error path
    takes again: a store idle that long never reconnected after an outage. The threshold is
    set to zero here so every reconnect goes down that path without waiting 30 s."""
    from pymilvus.client import connection_manager

    monkeypatch.setattr(connection_manager, "IDLE_THRESHOLD_SECONDS", 0.0)
    tcp = TcpProxy(milvus.port)
    await tcp.start()
    store = MilvusStore(f"http://127.0.0.1:{tcp.port}", COLLECTION + "_idle", DIMENSION)
    await store.start()
    try:
        assert await store.wait_available(60)
        memory = Memory.new(user, "My budget for the Hawaii trip is $10,000")
        vector = stored_vector(memory.content)
        await store.store(memory, vector)

        await tcp.cut()
        with pytest.raises(StoreUnavailableError):
            await store.get(user, memory.id)
        assert not store.available
        await tcp.restore()

        assert await store.wait_available(30)
        found = await store.get(user, memory.id)
        assert found is not None
        assert found.content == memory.content
    finally:
        await store.close()
        await tcp.cut()
