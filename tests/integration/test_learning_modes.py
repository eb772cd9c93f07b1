"""Learning without an extraction model, draining on SIGTERM, and LoCoMo replayed at volume."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply
from devstack.tokens import DevIdentity
from eval import replay
from eval.locomo import undated
from memory_extproc.memories.notes import statement
from memory_extproc.memories.preferences import states_preference
from tests.integration.conftest import Stack, open_store, running_stack
from tests.integration.test_response_path import EXTRACTOR, active, chat, llm_settings, until

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
async def notes(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
) -> AsyncIterator[Stack]:
    async with running_stack(
        Path(tmp_path_factory.mktemp("notes")), f"127.0.0.1:{milvus.port}", llm, identity,
        collection="it_notes",
    ) as stack:  # fmt: skip
        yield stack


async def test_without_an_extraction_model_substantive_turns_become_episodic_memories(
    notes: Stack, milvus: MilvusProcess, llm: MockLLM, user: str
) -> None:
    store = await open_store(milvus, "it_notes")
    llm.script(Reply(text="Hi! How can I help?"), Reply(text="A week in Kyoto costs about $2,500."))
    await chat(notes, user, [{"role": "user", "content": "Hello!"}])
    await chat(
        notes,
        user,
        [{"role": "user", "content": "How much should I budget for a week in Kyoto?"}],
    )
    (memory,) = await until(lambda: active(store, user))
    assert memory.type == "episodic"
    assert "How much should I budget for a week in Kyoto?" in memory.content
    assert "A week in Kyoto costs about $2,500." in memory.content
    lines = await notes.ask("What did we say about my Kyoto budget?", user)
    assert any("$2,500" in line for line in lines)
    assert not [m for m in await active(store, user) if "Hello" in m.content]
    await store.close()


async def test_an_answer_read_from_a_stream_is_kept_in_its_episodic_memory(
    notes: Stack, milvus: MilvusProcess, llm: MockLLM, user: str
) -> None:
    store = await open_store(milvus, "it_notes")
    llm.script(Reply(text="Your parking spot is P-4417 — level 3, near the lift ✅"))
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": "Where did I say my parking spot is?"}],
    }
    headers = {"authorization": f"Bearer {notes.identity.token(user)}"}
    async with notes.http.post(
        f"{notes.url}/v1/chat/completions", json=body, headers=headers
    ) as response:
        assert b"[DONE]" in await response.read()
    (memory,) = await until(lambda: active(store, user))
    assert "P-4417 — level 3, near the lift ✅" in memory.content  # read from the stream
    await store.close()


async def test_sigterm_processes_every_queued_turn_within_the_grace_period(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
) -> None:
    gate = asyncio.Event()

    async def held_extractor(payload: dict[str, Any]) -> Reply:
        await gate.wait()  # every job waits here until the processor has been told to stop
        name = payload["messages"][-1]["content"].split("I am ")[-1].split(".")[0]
        return Reply(
            text=f'{{"facts": [{{"type": "semantic", "content": "User is called {name}"}}]}}'
        )

    llm.on_model(EXTRACTOR, held_extractor)
    settings = llm_settings(llm.port, concurrency=1, drain_seconds=30, job_timeout_seconds=30)
    settings["extraction_batch_size"] = 1
    users = [f"drain-{i}" for i in range(5)]
    asked = len(llm.for_model(EXTRACTOR))  # earlier tests' calls
    async with running_stack(
        Path(tmp_path_factory.mktemp("drain")), f"127.0.0.1:{milvus.port}", llm, identity,
        collection="it_drain", memory=settings,
    ) as stack:  # fmt: skip
        for i, user in enumerate(users):
            await chat(stack, user, [{"role": "user", "content": f"Hello, I am Name{i}."}])
        # one job runs, four are queued (a SIGTERM to the process group before the worker is
        # up would kill it: its turns then wait in the spool, which another test covers)
        await until(lambda: _extraction_started(llm, asked))
        stopping = asyncio.create_task(asyncio.to_thread(stack.processor.stop, 60))
        await until(lambda: _logged(stack, "shutting down"))  # SIGTERM arrived, jobs still held
        # A long drain: the worker keeps sending metrics (~1/s) that must keep being read, or
        # its last one blocks on a full pipe and the worker never exits (seen in `make eval`).
        await asyncio.sleep(8)
        gate.set()
        released = time.monotonic()
        assert await stopping == 0
        assert time.monotonic() - released < 10  # not the 45 s join timeout and a kill
        log = stack.processor.log_tail(400)
    llm.on_model(EXTRACTOR, None)
    store = await open_store(milvus, "it_drain")
    for i, user in enumerate(users):
        assert [m.content for m in await store.list(user)] == [f"User is called Name{i}"]
    await store.close()
    assert "dropped" not in log


async def _logged(stack: Stack, text: str) -> bool:
    return text in stack.processor.log_tail(50)


async def _extraction_started(llm: MockLLM, before: int) -> bool:
    return len(llm.for_model(EXTRACTOR)) > before


def _locomo_date(text: str) -> str:
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").isoformat()


@pytest.mark.skipif(not replay.LOCOMO.exists(), reason=f"LoCoMo data not found at {replay.LOCOMO}")
async def test_locomo_sessions_replayed_through_envoy_store_their_gold_observations(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
) -> None:
    (sample,) = [s for s in replay.load_samples() if s["sample_id"] == "conv-26"]
    played = replay.sessions(sample)[:3]
    llm.on_model(EXTRACTOR, replay.ObservationReplay([sample]))
    speaker_a = sample["conversation"]["speaker_a"]
    user = "locomo-conv-26"
    async with running_stack(
        Path(tmp_path_factory.mktemp("locomo")), f"127.0.0.1:{milvus.port}", llm, identity,
        collection="it_locomo", memory=llm_settings(llm.port, idle_flush_seconds=1.0),
    ) as stack:  # fmt: skip
        for session in played:
            history: list[dict[str, str]] = []
            for turn in session.turns:
                role = "user" if turn["speaker"] == speaker_a else "assistant"
                if role == "assistant" and history and history[-1]["role"] == "user":
                    llm.script(Reply(text=turn["text"]))  # the other speaker answers
                    await chat(
                        stack,
                        user,
                        history,
                        headers={"x-memory-date": _locomo_date(session.date_time)},
                    )
                history.append({"role": role, "content": turn["text"]})
        evidence = {f"D{s.number}:" for s in played}
        expected = {
            text
            for about, text, ids in replay.observations(sample)
            if about == speaker_a and any(i.startswith(tuple(evidence)) for i in ids)
        }  # what A said about themselves: B's observations are B's memory
        store = await open_store(milvus, "it_locomo")

        async def settled() -> list[str] | None:
            stored = [m.content for m in await store.list(user, limit=1000)]
            return stored if len(stored) >= 0.8 * len(expected) else None

        stored = await until(settled, timeout_s=120)
        # nothing but gold observations, some with when they happened resolved, and the notes of
        # what A said as a standing preference that no gold observation keeps as one ("I'm keen
        # on counseling …", observed as "User is planning to … explore career options")
        said = {t["text"] for s in played for t in s.turns if t["speaker"] == speaker_a}
        notes = {t for t in stored if statement(t) != t}
        assert notes
        for quoted in map(statement, notes):
            assert states_preference(quoted)
            assert any(quoted in s for s in said)
        stored = [t for t in stored if t not in notes]
        assert {undated(t) for t in stored} <= {undated(t) for t in expected}
        assert any(re.search(r"on 2023-05-07$", t) for t in stored)  # "yesterday", said on 05-08
        dates = {m.created_at for m in await store.list(user, limit=1000)}
        assert all(d < 1_700_000_000_000 for d in dates)  # dated 2023, as the sessions were
        # …and retrieval finds the evidence for a question about session 1.
        qa = next(q for q in sample["qa"] if q["evidence"] == ["D1:3"])
        lines = await stack.ask(qa["question"], user)
        assert any("support group" in line for line in lines)
        await store.close()
    llm.on_model(EXTRACTOR, None)
