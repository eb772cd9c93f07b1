"""Forget means forget, through the real stack: a forget of a user also cancels their turns still
waiting to be learned — in a job the worker is running, queued behind it, pending in the
processor before any batch, and in a spool an earlier (or another) processor left behind, on
disk or in the Valkey stream — and nothing said before the forget is learned after it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import valkey as valkey_client

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM
from devstack.tokens import DevIdentity
from devstack.valkey import ValkeyProcess
from memory_extproc.clock import now_ms
from memory_extproc.digests import digest
from memory_extproc.handoff import Batch
from memory_extproc.learning import spool
from memory_extproc.learning.spool_valkey import CONSUMERS, GROUP, PENDING, STREAM
from memory_extproc.llm_api.requests import Turn
from memory_extproc.store.milvus import MilvusStore
from tests.integration.conftest import Stack, open_store, running_stack, until
from tests.integration.test_durable_learning import (
    COLLECTION,
    HeldExtractor,
    durable,  # noqa: F401 - fixture
    learned,
    memories,  # noqa: F401 - fixture
    stream_empty,
)
from tests.integration.test_response_path import EXTRACTOR, chat, llm_settings

pytestmark = pytest.mark.integration

TEAL = {"teal": "User's favourite colour is teal", "jazz": "User likes jazz"}


async def forget_user(stack: Stack, user: str) -> None:
    status, body = await stack.api("DELETE", "/v1/memory?scope=user", user=user)
    assert status == 200, body


async def forgotten(stack: Stack, stage: str, turns: int) -> bool:
    return await stack.metric("memory_turns_forgotten_total", {"stage": stage}) >= turns


async def test_a_forget_cancels_the_job_in_flight_and_the_ones_queued_behind_it(
    durable: Stack,  # noqa: F811
    llm: MockLLM,
    memories: MilvusStore,  # noqa: F811
    user: str,
) -> None:
    extractor = HeldExtractor(TEAL)
    llm.on_model(EXTRACTOR, extractor)
    await chat(durable, user, [{"role": "user", "content": "My favourite colour is teal"}])
    await chat(durable, user, [{"role": "user", "content": "I like jazz a lot"}])
    await until(lambda: _asked(extractor, 1))  # the first job runs, its answer held

    await forget_user(durable, user)
    extractor.gate.set()
    # the running job wrote after the forget and took it back; the queued one never ran
    await until(lambda: forgotten(durable, "written", 1), 60)
    await until(lambda: forgotten(durable, "job", 1), 60)
    assert extractor.asked == 1
    assert await learned(memories, user) == []
    spooled = durable.config_path.parent / "spool"
    await until(lambda: _no_entries(spooled))  # nothing of theirs left on disk


async def test_a_forget_drops_turns_pending_in_the_processor(
    tmp_path: Path, milvus: MilvusProcess, llm: MockLLM, identity: DevIdentity, user: str
) -> None:
    """Turns not yet cut into a batch (every 3 turns here) leave memory and the spool at once,
    even one whose answer came back just before the forget, and the conversation's later turns
    are learned without them. (That a forget waits for turns still being recorded is shown
    with a slow read in tests/unit/test_learning_service.py: here they are recorded first.)"""
    extractor = HeldExtractor(TEAL)
    extractor.gate.set()
    llm.on_model(EXTRACTOR, extractor)
    settings = llm_settings(llm.port, idle_flush_seconds=3600)
    settings["extraction_batch_size"] = 3
    async with running_stack(
        tmp_path, f"127.0.0.1:{milvus.port}", llm, identity, collection=COLLECTION,
        memory=settings,
    ) as stack:  # fmt: skip
        spooled = tmp_path / "spool"
        history = [{"role": "user", "content": "My favourite colour is teal"}]
        await chat(stack, user, history)
        await forget_user(stack, user)  # at once: the turn may not be recorded yet
        assert await _no_entries(spooled)
        assert not await _shared_state(spooled)  # what their conversation said, for replicas
        assert await stack.metric("memory_turns_forgotten_total", {"stage": "pending"}) == 1

        history += [{"role": "assistant", "content": "Noted."},
                    {"role": "user", "content": "I like jazz a lot"}]  # fmt: skip
        await chat(stack, user, history)
        history += [{"role": "assistant", "content": "Noted."},
                    {"role": "user", "content": "Thanks, that is all"}]  # fmt: skip
        await chat(stack, user, history)  # turn 3: a batch of turns 2 and 3 only
        store = await open_store(milvus, COLLECTION)
        try:
            assert await until(lambda: learned(store, user), 60) == ["User likes jazz"]
        finally:
            await store.close()


async def test_turns_an_earlier_processor_left_in_the_spool_are_not_learned_after_a_forget(
    durable: Stack,  # noqa: F811
    llm: MockLLM,
    memories: MilvusStore,  # noqa: F811
    user: str,
) -> None:
    """The stack restarted after an outage: its predecessor's (or a dead replica's) spool is
    adopted and delivered again — a forget that came first still covers it, whether the entry
    knows when its turn was said or (written by an older release) not."""
    extractor = HeldExtractor(TEAL)
    extractor.gate.set()
    llm.on_model(EXTRACTOR, extractor)
    durable.processor.stop()
    orphan = durable.config_path.parent / "spool" / "left-by-a-dead-replica"
    orphan.mkdir(parents=True)
    said = (Turn("user", "My favourite colour is teal"), Turn("assistant", "Lovely!"))
    timed = Batch(user, "", said, 1, now_ms(), "every_n", received=(now_ms(),))
    untimed = Batch(user, "", (Turn("user", "I like jazz"), Turn("assistant", "Me too")), 1,
                    now_ms(), "idle")  # fmt: skip
    (orphan / "b-000000000000.json").write_bytes(spool.encode(timed))
    (orphan / "p-conversation.json").write_bytes(spool.encode(untimed))
    await asyncio.sleep(0.01)  # the forget is later than the turns (ms clock)

    assert await memories.forget_by_scope(user) == 0  # e.g. the CLI, while the stack was down
    await asyncio.to_thread(durable.restart_processor)
    await until(lambda: forgotten(durable, "job", 2), 60)
    await until(lambda: _gone(orphan))
    assert extractor.asked == 0  # the model never saw what was forgotten
    assert await learned(memories, user) == []


async def test_turns_a_dead_replica_left_in_valkey_are_not_learned_after_a_forget(
    tmp_path: Path,
    milvus: MilvusProcess,
    valkey: ValkeyProcess,
    llm: MockLLM,
    identity: DevIdentity,
    memories: MilvusStore,  # noqa: F811
    user: str,
) -> None:
    """A replica died holding a batch of the user's (read from the stream, not learned) and a
    conversation not yet cut; the user forgot meanwhile. The processor that takes them over
    (the batch claimed, the conversation moved into the stream) learns neither."""
    extractor = HeldExtractor(TEAL)
    extractor.gate.set()
    llm.on_model(EXTRACTOR, extractor)
    said = (Turn("user", "My favourite colour is teal"), Turn("assistant", "Lovely!"))
    timed = Batch(user, "", said, 1, now_ms(), "every_n", received=(now_ms(),))
    untimed = Batch(user, "", (Turn("user", "I like jazz"), Turn("assistant", "Me too")), 1,
                    now_ms(), "recovered")  # fmt: skip
    with valkey_client.Valkey(port=valkey.port) as client:
        client.flushdb()
        client.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        entry = client.xadd(STREAM, {"batch": spool.encode(timed), "user": digest(user)})
        client.xreadgroup(GROUP, "dead-replica", {STREAM: ">"})
        # silent longer than the claim idle time (60 s)
        client.xclaim(STREAM, GROUP, "dead-replica", 0, [entry], idle=10**9, justid=True)
        uncut = {"conversation": spool.encode(untimed), "conversation:u": digest(user)}
        client.hset(f"{PENDING}dead-replica", mapping=uncut)
        client.zadd(CONSUMERS, {"dead-replica": 0})
    await asyncio.sleep(0.01)  # the forget is later than the turns (ms clock)

    assert await memories.forget_by_scope(user) == 0  # e.g. the CLI, while it was taken over
    settings = llm_settings(llm.port, idle_flush_seconds=3600)
    settings["valkey"] = {"url": valkey.url}
    async with running_stack(
        tmp_path, f"127.0.0.1:{milvus.port}", llm, identity, collection=COLLECTION,
        memory=settings,
    ) as stack:  # fmt: skip
        await until(lambda: forgotten(stack, "job", 2), 60)
        assert await stack.metric("memory_spool_turns_total", {"event": "replayed"}) == 2
        await until(lambda: stream_empty(valkey))
    assert extractor.asked == 0  # the model never saw what was forgotten
    assert await learned(memories, user) == []


async def _asked(extractor: HeldExtractor, times: int) -> bool:
    return extractor.asked >= times


async def _entries(root: Path, prefix: str) -> bool:
    return bool(await asyncio.to_thread(lambda: list(root.glob(f"*/{prefix}*.json"))))


async def _no_entries(root: Path) -> bool:
    return not await asyncio.to_thread(lambda: list(root.glob("*/[bp]-*.json")))


async def _shared_state(root: Path) -> bool:
    return bool(await asyncio.to_thread(lambda: list(root.glob("conversations/*/c-*.json"))))


async def _gone(path: Path) -> bool:
    return not await asyncio.to_thread(path.exists)


@pytest.fixture(autouse=True)
async def _reset_model(llm: MockLLM) -> AsyncIterator[None]:
    yield
    llm.on_model(EXTRACTOR, None)
