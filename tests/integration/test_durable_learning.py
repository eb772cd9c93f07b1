"""Zero lost turns: a captured turn is learned even when the worker is killed mid-job, the
processor is stopped before it could extract, or the processor is killed outright. The spool
(learning/spool.py, or with Valkey learning/spool_valkey.py) keeps each turn until the worker
says it is done; a new processor delivers what an old one left."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import valkey as valkey_client

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply
from devstack.tokens import DevIdentity
from devstack.valkey import ValkeyProcess
from memory_extproc.clock import now_ms
from memory_extproc.handoff import Batch
from memory_extproc.learning import spool
from memory_extproc.learning.spool_valkey import STREAM
from memory_extproc.llm_api.requests import Turn
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.worker.prompts import REQUESTS_SYSTEM
from tests.integration.conftest import Stack, open_store, running_stack, until
from tests.integration.test_response_path import EXTRACTOR, _worker_pid, chat, llm_settings

pytestmark = pytest.mark.integration

COLLECTION = "it_durable"


class HeldExtractor:
    """Answers one fact per phrase, but holds every answer until ``gate`` is set; ``asked``
    counts extraction calls (a preference's kinds of request are answered at once: none)."""

    def __init__(self, facts: dict[str, str]) -> None:
        self.facts = facts
        self.gate = asyncio.Event()
        self.asked = 0

    def __call__(self, payload: dict[str, Any]) -> Reply:
        if payload["messages"][0]["content"] == REQUESTS_SYSTEM:
            return Reply(text='{"requests": []}')
        self.asked += 1
        prompt = payload["messages"][-1]["content"]
        found = [fact for phrase, fact in self.facts.items() if phrase in prompt]
        text = orjson.dumps({"facts": [{"type": "semantic", "content": f} for f in found]})
        return Reply(text=text.decode(), release=self.gate)


@pytest.fixture
async def durable(
    tmp_path: Path, milvus: MilvusProcess, llm: MockLLM, identity: DevIdentity
) -> AsyncIterator[Stack]:
    # One turn per batch, nothing idle-flushed on its own, a short drain: every turn below is
    # in flight (or only in the spool) when the processor or its worker goes away.
    settings = llm_settings(llm.port, idle_flush_seconds=3600, drain_seconds=1,
                            job_timeout_seconds=60)  # fmt: skip
    settings["extraction_batch_size"] = 1
    settings["external_models"][0]["llm_timeout_seconds"] = 60
    async with running_stack(
        tmp_path, f"127.0.0.1:{milvus.port}", llm, identity, collection=COLLECTION,
        memory=settings,
    ) as stack:  # fmt: skip
        yield stack
    llm.on_model(EXTRACTOR, None)


@pytest.fixture
async def memories(milvus: MilvusProcess) -> AsyncIterator[MilvusStore]:
    store = await open_store(milvus, COLLECTION)
    yield store
    await store.close()


async def learned(store: MilvusStore, user: str) -> list[str]:
    return sorted(m.content for m in await store.list(user))


async def test_a_worker_killed_mid_job_loses_no_turn(
    durable: Stack, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    extractor = HeldExtractor({"harp": "User plays the harp"})
    llm.on_model(EXTRACTOR, extractor)
    await chat(durable, user, [{"role": "user", "content": "I play the harp on Sundays"}])
    await until(lambda: _asked(extractor, 1))  # the job is running, its answer held

    os.kill(await asyncio.to_thread(_worker_pid, durable.processor._process.proc.pid), 9)
    extractor.gate.set()
    assert await until(lambda: learned(memories, user), 60) == ["User plays the harp"]
    assert await durable.metric("memory_spool_turns_total", {"event": "replayed"}) >= 1


async def test_turns_not_learned_by_a_sigterm_come_back_on_the_next_start(
    durable: Stack, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    left = "kept in the spool for the next start"
    await _sigterm_then_restart(durable, llm, memories, user, left)


async def test_with_valkey_turns_not_learned_by_a_sigterm_are_learned_by_the_next_processor(
    tmp_path: Path, milvus: MilvusProcess, valkey: ValkeyProcess, llm: MockLLM,
    identity: DevIdentity, memories: MilvusStore, user: str,
) -> None:  # fmt: skip
    """What its drain did not finish is left in the Valkey stream, claimable at once: the next
    processor takes it at start, not after the claim idle time (60 s)."""
    with valkey_client.Valkey(port=valkey.port) as client:
        client.flushdb()
    settings = llm_settings(llm.port, idle_flush_seconds=3600, drain_seconds=1,
                            job_timeout_seconds=60)  # fmt: skip
    settings["extraction_batch_size"] = 1
    settings["external_models"][0]["llm_timeout_seconds"] = 60
    settings["valkey"] = {"url": valkey.url}
    async with running_stack(
        tmp_path, f"127.0.0.1:{milvus.port}", llm, identity, collection=COLLECTION,
        memory=settings,
    ) as stack:  # fmt: skip
        await _sigterm_then_restart(
            stack, llm, memories, user, "left in Valkey for the next processor", within_s=30
        )
        await until(lambda: stream_empty(valkey))


async def _sigterm_then_restart(
    stack: Stack, llm: MockLLM, memories: MilvusStore, user: str, left: str,
    within_s: float = 60,
) -> None:  # fmt: skip
    """Two turns whose jobs the SIGTERM's drain (1 s) does not finish, the log saying ``left``:
    the next start learns both."""
    extractor = HeldExtractor({"harp": "User plays the harp", "cello": "User plays the cello"})
    llm.on_model(EXTRACTOR, extractor)
    for instrument in ("harp", "cello"):
        await chat(stack, user, [{"role": "user", "content": f"I play the {instrument}"}])
    await until(lambda: _asked(extractor, 1))

    stack.processor.stop()
    log = stack.processor.log_tail(400)
    assert left in log
    assert "dropped" not in log.lower()
    assert await learned(memories, user) == []

    extractor.gate.set()
    await asyncio.to_thread(stack.restart_processor)
    expected = ["User plays the cello", "User plays the harp"]
    assert await until(lambda: _all(memories, user, expected), within_s) == expected
    assert await stack.metric("memory_spool_turns_total", {"event": "replayed"}) == 2
    llm.on_model(EXTRACTOR, None)


async def test_turns_of_a_killed_processor_are_learned_by_its_successor(
    durable: Stack, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    extractor = HeldExtractor({"harp": "User plays the harp"})
    llm.on_model(EXTRACTOR, extractor)
    await chat(durable, user, [{"role": "user", "content": "I play the harp on Sundays"}])
    await until(lambda: _asked(extractor, 1))

    durable.processor.kill()
    extractor.gate.set()
    await asyncio.to_thread(durable.restart_processor)
    assert await until(lambda: learned(memories, user), 60) == ["User plays the harp"]
    assert await durable.metric("memory_spool_turns_total", {"event": "replayed"}) == 1


async def test_a_turn_delivered_twice_is_stored_once(
    durable: Stack, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    """A worker killed after writing but before saying so runs its batch again: harmless."""
    extractor = HeldExtractor({"harp": "User plays the harp"})
    extractor.gate.set()
    llm.on_model(EXTRACTOR, extractor)
    said = "I play the harp on Sundays"
    await chat(durable, user, [{"role": "user", "content": said}])
    assert await until(lambda: learned(memories, user)) == ["User plays the harp"]
    await until(lambda: _done(durable))  # the job ended (not only its write): nothing spooled
    durable.processor.stop()

    # The same batch, left in an abandoned spool directory as a killed processor leaves it.
    orphan = durable.config_path.parent / "spool" / "abandoned"
    orphan.mkdir(parents=True)
    batch = Batch(
        user, "", (Turn("user", said), Turn("assistant", "Nice!")), 1, now_ms(), "every_n"
    )
    (orphan / "b-000000000000.json").write_bytes(spool.encode(batch))
    await asyncio.to_thread(durable.restart_processor)
    await until(lambda: _asked(extractor, 2))
    await until(lambda: _gone(orphan))
    assert await durable.metric("memory_spool_turns_total", {"event": "replayed"}) == 1
    await until(lambda: _done(durable))
    assert await learned(memories, user) == ["User plays the harp"]


async def test_turns_that_met_a_down_model_are_learned_when_it_is_back(
    durable: Stack, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    extractor = HeldExtractor({"harp": "User plays the harp"})
    extractor.gate.set()
    down = Reply(status=503, body=b'{"error": {"message": "overloaded"}}')
    llm.on_model(EXTRACTOR, lambda payload: down)
    await chat(durable, user, [{"role": "user", "content": "I play the harp on Sundays"}])
    await until(lambda: _failed(durable))  # the job failed (after the client's own retries)

    llm.on_model(EXTRACTOR, extractor)  # the model is back: the batch is offered again
    assert await until(lambda: learned(memories, user), 60) == ["User plays the harp"]


async def stream_empty(valkey: ValkeyProcess) -> bool:
    """Every batch in the Valkey stream learned (or given up on) and deleted."""
    with valkey_client.Valkey(port=valkey.port) as client:
        return bool(client.xlen(STREAM) == 0)


async def _failed(stack: Stack) -> bool:
    return await stack.metric("memory_extraction_jobs_total", {"outcome": "llm_error"}) >= 1


async def _asked(extractor: HeldExtractor, times: int) -> bool:
    return extractor.asked >= times


async def _all(store: MilvusStore, user: str, expected: list[str]) -> list[str] | None:
    found = await learned(store, user)
    return found if found == expected else None


async def _gone(path: Path) -> bool:
    return not await asyncio.to_thread(path.exists)


async def _done(stack: Stack) -> bool:
    return await stack.metric("memory_extraction_jobs_total", {"outcome": "ok"}) >= 1
