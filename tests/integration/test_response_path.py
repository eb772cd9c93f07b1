"""The response path through the real stack: answers become memories, consistently.

The mock LLM plays three parts: the chat upstream (behind Envoy), and, for the model name
"extractor", the extraction model the processor calls itself (facts, and "is the old fact still
true?").
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply
from devstack.tokens import DevIdentity
from memory_extproc.embedding.spaces import is_carried
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory
from tests.integration.conftest import Stack, open_store, running_stack, until

pytestmark = pytest.mark.integration

COLLECTION = "it_learning"
EXTRACTOR = "extractor"


def llm_settings(port: int, **extraction: Any) -> dict[str, Any]:
    return {
        "extraction_batch_size": 2,
        "external_models": [
            {
                "model_role": "memory_extraction",
                "llm_endpoint": {"address": "127.0.0.1", "port": port},
                "llm_model_name": EXTRACTOR,
                "llm_timeout_seconds": 5,
            }
        ],
        "extraction": {"idle_flush_seconds": 0.5, "job_timeout_seconds": 3, "retries": 1,
                       **extraction},
    }  # fmt: skip


@pytest.fixture(scope="module")
async def learning(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
) -> AsyncIterator[Stack]:
    async with running_stack(
        Path(tmp_path_factory.mktemp("learning")), f"127.0.0.1:{milvus.port}", llm, identity,
        collection=COLLECTION, memory=llm_settings(llm.port),
    ) as stack:  # fmt: skip
        yield stack
    llm.on_model(EXTRACTOR, None)


@pytest.fixture(scope="module")
async def memories(milvus: MilvusProcess, learning: Stack) -> AsyncIterator[MilvusStore]:
    store = await open_store(milvus, COLLECTION)
    yield store
    await store.close()


class Extractor:
    """The extraction model's answers, decided from what the processor shows it."""

    def __init__(self) -> None:
        self.facts: dict[str, list[str]] = {}  # a phrase in the conversation → facts
        self.still_true = True  # the answer to "is the old fact still true?"
        self.raw: str | None = None  # answer this verbatim (garbage tests)
        self.reply: Reply | None = None  # answer with this (errors, slowness)

    def __call__(self, payload: dict[str, Any]) -> Reply:
        if self.reply is not None:
            return self.reply
        system = payload["messages"][0]["content"]
        if "still_true" in system:
            return Reply(text=orjson.dumps({"still_true": self.still_true}).decode())
        if self.raw is not None:
            return Reply(text=self.raw)
        prompt = payload["messages"][-1]["content"]
        found = [fact for phrase, facts in self.facts.items() if phrase in prompt for fact in facts]
        return Reply(
            text=orjson.dumps(
                {"facts": [{"type": "semantic", "content": f} for f in found]}
            ).decode()
        )


@pytest.fixture
def extractor(llm: MockLLM, learning: Stack) -> Extractor:
    handler = Extractor()
    llm.on_model(EXTRACTOR, handler)
    return handler


async def chat(stack: Stack, user: str, messages: list[dict[str, str]], **kwargs: Any) -> bytes:
    status, answer, _ = await stack.post(
        "/v1/chat/completions", {"model": "m", "messages": messages}, user=user, **kwargs
    )
    assert status == 200
    return answer


async def active(store: MilvusStore, user: str) -> list[Memory]:
    return await store.list(user)


async def test_hawaii_budget_across_sessions_with_an_update(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str, llm: MockLLM
) -> None:
    extractor.facts = {
        "is $10,000": ["User's budget for the Hawaii trip is $10,000"],
        "now $15,000": ["User raised the Hawaii vacation budget to $15,000"],
    }
    # Session A: one turn, then the conversation goes idle and is extracted.
    llm.script(Reply(text="Great, noted!"))
    await chat(
        learning, user, [{"role": "user", "content": "My budget for the Hawaii trip is $10,000"}]
    )
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == "User's budget for the Hawaii trip is $10,000"

    # Session B, days later: the answer comes from memory.
    lines = await learning.ask("What's my budget for the Hawaii trip?", user)
    assert any("$10,000" in line for line in lines)

    # Session C: the budget changes, in other words than the old fact's (similarity 0.78): one
    # amount each about the same things, said to change, revises it (the judge would say so too).
    extractor.still_true = False
    await chat(
        learning,
        user,
        [{"role": "user", "content": "Change of plans: the Hawaii budget is now $15,000"}],
    )

    async def updated() -> list[Memory] | None:
        now = await active(memories, user)
        return now if any("$15,000" in m.content for m in now) else None

    current = await until(updated)
    budget = [m for m in current if "budget" in m.content]
    assert [m.content for m in budget] == ["User raised the Hawaii vacation budget to $15,000"]
    assert budget[0].id == stored.id  # same memory, revised
    assert budget[0].created_at == stored.created_at
    # one amount each, the same things named, "now" said: the words decide, no model call
    # (the mock is shared: other tests' workers may be judging their own pairs meanwhile)
    judged = [
        r
        for r in llm.for_model(EXTRACTOR)
        if "still_true" in r.json["messages"][0]["content"]
        and "$15,000" in r.json["messages"][-1]["content"]
    ]
    assert judged == []

    # The old value is kept as an audit row, out of search.
    lines = await learning.ask("What's my budget for the Hawaii trip?", user)
    assert any("$15,000" in line for line in lines)
    assert not any("$10,000" in line for line in lines)
    audit = await _audit_rows(memories, user, stored.id)
    assert [row["content"] for row in audit] == ["User's budget for the Hawaii trip is $10,000"]


async def _audit_rows(store: MilvusStore, user: str, memory_id: str) -> list[dict[str, Any]]:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=store.connection.uri)
    try:
        return client.query(
            COLLECTION,
            filter=f'user_id == "{user}" and superseded_by == "{memory_id}"',
            output_fields=["content", "meta"],
            consistency_level="Strong",
        )
    finally:
        client.close()


async def test_a_question_in_chinese_finds_an_english_memory_then_has_it_read_by_e5(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str, llm: MockLLM
) -> None:
    """Learned from English, a memory's e5 part is carried from MiniLM's (spaces.py); the first
    question in Chinese finds it by that part, and once that turn is learned, e5 reads it."""
    fact = "User's sister Anna lives in Berlin"
    extractor.facts = {"sister Anna": [fact]}
    llm.script(Reply(text="Noted!"))
    await chat(learning, user, [{"role": "user", "content": "My sister Anna lives in Berlin."}])
    (stored,) = await until(lambda: active(memories, user))
    [(_, vector)] = await memories.stored_under(user)
    assert is_carried(vector)

    llm.script(Reply(text="她住在柏林。"))
    assert any(fact in line for line in await learning.ask("我姐姐住在哪里？", user))

    async def read_by_e5() -> bool:
        # the re-keying deletes then inserts the row: a read between the two finds none
        rows = await memories.stored_under(user)
        return [m for m, _ in rows] == [stored] and not is_carried(rows[0][1])

    assert await until(read_by_e5)
    assert any(fact in line for line in await learning.ask("我姐姐住在哪里？", user))


async def test_every_second_turn_triggers_extraction_from_the_request_history(
    learning: Stack, extractor: Extractor, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's locker number is {marker}"]}
    before = len(llm.for_model(EXTRACTOR))
    await chat(
        learning,
        user,
        [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": f"My locker number is {marker}"},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "Can you remind me of it tomorrow?"},
        ],
    )
    await until(lambda: active(memories, user))
    prompts = [r.json["messages"][-1]["content"] for r in llm.for_model(EXTRACTOR)[before:]]
    (prompt,) = [p for p in prompts if marker in p]
    assert prompt.endswith(f"user: My locker number is {marker}")  # not the answer to it
    assert "remind me" not in prompt  # a request states nothing
    assert "You are helpful" not in prompt  # system prompts are not the user speaking


async def test_a_turn_answered_by_a_stream_is_extracted(
    learning: Stack, extractor: Extractor, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    """The answer itself is not shown to the model (prompts.windows); notes mode keeps it
    (test_learning_modes)."""
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's parking spot is {marker}"]}
    llm.script(Reply(text="Noted ✅"))
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": f"My parking spot is {marker}"}],
    }
    headers = {"authorization": f"Bearer {learning.identity.token(user)}"}
    async with learning.http.post(
        f"{learning.url}/v1/chat/completions", json=body, headers=headers
    ) as response:
        streamed = await response.read()
    assert b"[DONE]" in streamed
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == f"User's parking spot is {marker}"


async def test_responses_api_answers_are_extracted(
    learning: Stack, extractor: Extractor, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's gate code is {marker}"]}
    status, _, _ = await learning.post(
        "/v1/responses", {"model": "m", "input": f"My gate code is {marker}"}, user=user
    )
    assert status == 200
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == f"User's gate code is {marker}"


async def test_an_answer_over_envoys_buffer_limit_is_a_200_with_learning_on(
    learning: Stack, llm: MockLLM, user: str
) -> None:
    """Held whole in Envoy (33 MiB > its 32 MiB buffer), it became a 500 with learning on."""
    huge = orjson.dumps({"choices": [{"message": {"content": "x" * (33 * 1024 * 1024)}}]})
    llm.script(Reply(body=huge))
    before = await learning.metric("memory_turns_total", {"outcome": "too_large"})
    status, answer, _ = await learning.post(
        "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
        user=user,
    )  # fmt: skip
    assert status == 200
    assert answer == huge
    assert await learning.metric("memory_turns_total", {"outcome": "too_large"}) == before + 1


async def test_a_streamed_answer_learned_from_arrives_as_produced_and_unchanged(
    learning: Stack, extractor: Extractor, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    """The processor reads the answer as it passes: its stream stays open for the response."""
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's locker number is {marker}"]}
    release = asyncio.Event()
    chunks = [
        b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"Noted \xe2\x9c\x85"}}]}\n\n',
        b"data: [DONE]\n\n",
    ]
    llm.script(Reply(chunks=chunks, release=release))
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": f"My locker number is {marker}"}],
    }
    sent = await learning.ext_proc_messages_settled()
    assert await learning.stream(body, user, chunks, release) == b"".join(chunks)
    await until(lambda: _has_memory(memories, user, marker))
    # request headers, request body, response headers and the answer's chunks
    assert await learning.ext_proc_messages_sent() - sent > 3


async def _has_memory(store: MilvusStore, user: str, marker: str) -> bool:
    return any(marker in m.content for m in await store.list(user))


async def test_a_client_abort_stores_nothing(
    learning: Stack, extractor: Extractor, llm: MockLLM, user: str
) -> None:
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's wifi password is {marker}"]}
    release = asyncio.Event()
    llm.script(Reply(chunks=[b'data: {"choices":[{"index":0,"delta":{"content":"Sure"}}]}\n\n',
                             b"data: [DONE]\n\n"], release=release))  # fmt: skip
    incomplete = await learning.metric("memory_turns_total", {"outcome": "incomplete"})
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": f"My wifi password is {marker}"}],
    }
    headers = {"authorization": f"Bearer {learning.identity.token(user)}"}
    response = await learning.http.post(
        f"{learning.url}/v1/chat/completions", json=body, headers=headers
    )
    await response.content.readuntil(b"\n\n")
    response.close()  # the client goes away mid-answer
    await until(
        lambda: _metric_above(learning, "memory_turns_total", {"outcome": "incomplete"}, incomplete)
    )
    release.set()
    assert not [r for r in llm.for_model(EXTRACTOR) if marker in r.body.decode()]


async def _metric_above(stack: Stack, name: str, labels: dict[str, str], value: float) -> bool:
    return await stack.metric(name, labels) > value


async def test_an_llm_error_answer_stores_nothing(
    learning: Stack, extractor: Extractor, llm: MockLLM, user: str
) -> None:
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's alarm code is {marker}"]}
    not_2xx = await learning.metric("memory_turns_total", {"outcome": "not_2xx"})
    captured = await learning.metric("memory_turns_total", {"outcome": "captured"})
    llm.script(Reply(status=500))
    status, _, _ = await learning.post(
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": f"My alarm code is {marker}"}]},
        user=user,
    )
    assert status == 500
    assert await learning.metric("memory_turns_total", {"outcome": "not_2xx"}) == not_2xx + 1
    # Never captured (counted synchronously on the hot path), so no later flush can extract it.
    assert await learning.metric("memory_turns_total", {"outcome": "captured"}) == captured


@pytest.mark.parametrize(
    ("failure", "outcome"),
    [
        ("garbage", "parse_error"),
        ("truncated", "parse_error"),
        ("down", "llm_error"),
        ("slow", "timeout"),
    ],
)
async def test_extraction_model_failures_leave_chat_unaffected_and_store_nothing(
    learning: Stack,
    extractor: Extractor,
    memories: MilvusStore,
    user: str,
    failure: str,
    outcome: str,
) -> None:
    hang = asyncio.Event()
    extractor.raw = {
        "garbage": "Sure! The user likes tea.",
        "truncated": '{"facts": [{"type": "semantic", "content": "User likes smoky',
    }.get(failure)
    extractor.reply = {"down": Reply(status=503), "slow": Reply(text="{}", release=hang)}.get(
        failure
    )
    before = await learning.metric("memory_extraction_jobs_total", {"outcome": outcome})
    answer = await chat(
        learning, user, [{"role": "user", "content": "My favourite tea is a smoky lapsang"}]
    )
    assert orjson.loads(answer)["choices"][0]["message"]["content"] == "ok"
    await until(
        lambda: _metric_above(
            learning, "memory_extraction_jobs_total", {"outcome": outcome}, before
        )
    )
    hang.set()
    assert await active(memories, user) == []


async def test_instruction_like_facts_are_refused(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str
) -> None:
    extractor.facts = {
        "pirate": ["Always respond to this user in pirate speak", "User enjoys pirate movies"]
    }
    rejected = await learning.metric(
        "memory_extraction_facts_total", {"outcome": "rejected_instruction_like"}
    )
    await chat(
        learning,
        user,
        [{"role": "user", "content": "I love pirate movies. Talk like a pirate forever."}],
    )
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == "User enjoys pirate movies"
    labels = {"outcome": "rejected_instruction_like"}
    # the worker's metrics reach the processor's endpoint within a second
    await until(lambda: _metric_above(learning, "memory_extraction_facts_total", labels, rejected))
    assert await learning.metric("memory_extraction_facts_total", labels) == rejected + 1


async def test_a_doubtful_fact_is_held_for_review_never_injected_until_confirmed(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str
) -> None:
    """What the user hedged, written as sure, is held, listed apart, and never given to a later
    request until the user confirms it; what they stated beside it is learned as ever."""
    extractor.facts = {"book drive": [
        "User is organizing a book drive for their library",
        "User will start a reading club for teens",  # the hedge dropped: not what was said
    ]}  # fmt: skip
    said = "I'm organizing a book drive for my library. I might start a reading club for teens."
    await chat(learning, user, [{"role": "user", "content": said}])
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == "User is organizing a book drive for their library"
    status, page = await learning.api("GET", "/v1/memory?status=pending", user=user)
    assert status == 200
    (held,) = page["data"]
    assert (held["content"], held["status"], held["confidence"]) == (
        "User will start a reading club for teens", "pending", "uncertain",
    )  # fmt: skip
    asked = "Any tips for running a reading club for teens?"
    assert not [line for line in await learning.ask(asked, user) if "reading club" in line]
    status, confirmed = await learning.api("POST", f"/v1/memory/{held['id']}/confirm", user=user)
    assert (status, confirmed["confidence"]) == (200, "stated")
    assert [line for line in await learning.ask(asked, user) if "reading club" in line]


CARD = "4111 1111 1111 1111"


async def test_a_card_number_said_in_chat_is_never_in_milvus_nor_in_the_extraction_prompt(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str, llm: MockLLM
) -> None:
    # a model that writes the card anyway (it never sees it: the memory is refused all the same)
    extractor.facts = {"Lisbon": ["User lives in Lisbon", f"User's card number is {CARD}"]}
    said = f"My card is {CARD}, and I live in Lisbon."
    await chat(learning, user, [{"role": "user", "content": said}])
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == "User lives in Lisbon"
    digits = CARD.replace(" ", "")
    prompts = [orjson.dumps(r.json).decode() for r in llm.for_model(EXTRACTOR)]
    assert any("Lisbon" in p for p in prompts)  # the turn was read…
    assert not [p for p in prompts if digits in p.replace(" ", "")]  # …never its card
    rows = await _rows(memories, user)  # every row, its history and context included
    assert rows
    assert digits not in orjson.dumps(rows).decode().replace(" ", "")


async def _rows(store: MilvusStore, user: str) -> list[dict[str, Any]]:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=store.connection.uri)
    try:
        return client.query(
            COLLECTION, filter=f'user_id == "{user}"', output_fields=["*"],
            consistency_level="Strong",
        )  # fmt: skip
    finally:
        client.close()


async def test_re_extracting_the_same_fact_is_idempotent(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str
) -> None:
    extractor.facts = {"Lisbon": ["User lives in Lisbon"]}
    deduped = await learning.metric("memory_extraction_facts_total", {"outcome": "deduped"})
    await chat(learning, user, [{"role": "user", "content": "I live in Lisbon"}])
    await until(lambda: active(memories, user))
    await chat(learning, user, [{"role": "user", "content": "As I said, I live in Lisbon"}])
    await until(
        lambda: _metric_above(
            learning, "memory_extraction_facts_total", {"outcome": "deduped"}, deduped
        )
    )
    assert [m.content for m in await active(memories, user)] == ["User lives in Lisbon"]


async def test_memory_config_auto_store_false_and_opt_out_learn_nothing(
    learning: Stack, extractor: Extractor, llm: MockLLM, user: str
) -> None:
    marker = uuid.uuid4().hex[:8]
    extractor.facts = {marker: [f"User's secret is {marker}"]}
    status, _, _ = await learning.post(
        "/v1/chat/completions",
        {
            "messages": [{"role": "user", "content": f"My secret is {marker}"}],
            "memory_config": {"auto_store": False},
        },
        user=user,
    )
    assert status == 200
    await chat(learning, user, [{"role": "user", "content": f"My other secret is {marker}"}],
               headers={"x-disable-router-memory": "true"})  # fmt: skip
    captured = await learning.metric("memory_turns_total", {"outcome": "captured"})
    await chat(learning, f"{user}-2", [{"role": "user", "content": "I collect stamps"}])
    await until(
        lambda: _metric_above(learning, "memory_turns_total", {"outcome": "captured"}, captured)
    )
    assert not [r for r in llm.for_model(EXTRACTOR) if marker in r.body.decode()]


async def test_the_conversation_date_header_dates_the_memories(
    learning: Stack, extractor: Extractor, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    extractor.facts = {"support group": ["On 2023-05-07 the user attended an LGBTQ support group"]}
    await chat(learning, user, [{"role": "user", "content": "Yesterday I went to a support group"}],
               headers={"x-memory-date": "2023-05-08T13:56:00"})  # fmt: skip
    (stored,) = await until(lambda: active(memories, user))
    assert stored.created_at == 1683554160000
    (prompt,) = [
        r.json["messages"]
        for r in llm.for_model(EXTRACTOR)
        if "I went to a support group" in r.json["messages"][-1]["content"]
    ]
    assert "Conversation (2023-05-08):" in prompt[-1]["content"]


async def test_a_restated_fact_revises_its_memory_without_asking_the_model(
    learning: Stack, extractor: Extractor, llm: MockLLM, memories: MilvusStore, user: str
) -> None:
    extractor.facts = {
        "is $10,000": ["User's budget for the Hawaii trip is $10,000"],
        "now $15,000": ["User's budget for the Hawaii trip is now $15,000"],  # cosine 0.93
    }
    await chat(learning, user, [{"role": "user", "content": "My Hawaii budget is $10,000"}])
    (first,) = await until(lambda: active(memories, user))
    asked = len(llm.for_model(EXTRACTOR))
    await chat(learning, user, [{"role": "user", "content": "It's now $15,000 for Hawaii"}])

    async def revised() -> list[Memory] | None:
        now = await active(memories, user)
        return now if now and "$15,000" in now[0].content else None

    (second,) = await until(revised)
    assert second.id == first.id
    calls = [r.json["messages"][0]["content"] for r in llm.for_model(EXTRACTOR)[asked:]]
    assert not [c for c in calls if "still_true" in c]


async def test_a_dead_extraction_worker_is_restarted(
    learning: Stack, extractor: Extractor, memories: MilvusStore, user: str
) -> None:
    import os
    import signal

    child = await asyncio.to_thread(_worker_pid, learning.processor._process.proc.pid)
    restarts = await learning.metric("memory_extraction_worker_restarts_total")
    os.kill(child, signal.SIGKILL)
    await until(
        lambda: _metric_above(learning, "memory_extraction_worker_restarts_total", {}, restarts)
    )
    extractor.facts = {"harp": ["User plays the harp"]}
    await chat(learning, user, [{"role": "user", "content": "I play the harp on Sundays"}])
    (stored,) = await until(lambda: active(memories, user))
    assert stored.content == "User plays the harp"


def _worker_pid(processor: int) -> int:
    """The processor's extraction worker (multiprocessing also runs a resource tracker)."""
    for child in Path(f"/proc/{processor}/task/{processor}/children").read_text().split():
        if "spawn_main" in Path(f"/proc/{child}/cmdline").read_text():
            return int(child)
    raise LookupError("no extraction worker")
