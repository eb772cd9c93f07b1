"""The README's walkthrough, as written, with the official openai SDK against the real stack
(Envoy, the processor, its worker, Milvus; learning without a model, so it is deterministic;
the demo LLM of `make run`, which answers by listing the memories it was given)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from openai import AsyncOpenAI, NotFoundError

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM
from devstack.tokens import DevIdentity
from tests.integration.conftest import Stack, running_stack, until

pytestmark = pytest.mark.integration

TOLD = "I'm vegetarian. My budget for the Hawaii trip is $10,000."
ASK = [{"role": "user", "content": "What is my Hawaii trip budget?"}]
DINNER = [{"role": "user", "content": "Suggest something I could cook for dinner tonight."}]


@pytest.fixture(scope="module")
async def demo(
    tmp_path_factory: pytest.TempPathFactory, milvus: MilvusProcess, identity: DevIdentity
) -> AsyncIterator[Stack]:
    llm = MockLLM(demo=True)
    await llm.start()
    try:
        async with running_stack(
            tmp_path_factory.mktemp("sdk"), f"127.0.0.1:{milvus.port}", llm, identity,
            collection="it_sdk", memory={"extraction_batch_size": 1},
        ) as stack:  # fmt: skip
            yield stack
    finally:
        await llm.stop()


def client(stack: Stack, user: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{stack.url}/v1", api_key=stack.identity.token(user))


async def remembered(sdk: AsyncOpenAI) -> list[str]:
    page: Any = await sdk.get("/memory", cast_to=object)
    return [m["content"] for m in page["data"]]


async def test_the_walkthrough_with_the_openai_sdk(demo: Stack, user: str) -> None:
    alice, bob = client(demo, user), client(demo, f"{user}-bob")
    said = await alice.chat.completions.create(
        model="demo", messages=[{"role": "user", "content": TOLD}]
    )
    assert said.choices[0].message.content == "(demo LLM) I was given no memories for this request."
    learned = await until(lambda: _holding(alice, "$10,000"))
    assert any("vegetarian" in m for m in learned)

    answer = await alice.chat.completions.create(model="demo", messages=ASK)
    assert "$10,000" in (answer.choices[0].message.content or "")
    stranger = await bob.chat.completions.create(model="demo", messages=ASK)
    assert stranger.choices[0].message.content == (
        "(demo LLM) I was given no memories for this request."
    )

    stream = await alice.chat.completions.create(model="demo", stream=True, messages=DINNER)
    pieces = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
    assert len([p for p in pieces if p]) > 1  # streamed, not buffered into one
    assert "vegetarian" in "".join(pieces)  # an open request got the standing preference

    response = await alice.responses.create(model="demo", input="What is my Hawaii trip budget?")
    assert "$10,000" in response.output_text

    opted_out = await alice.chat.completions.create(
        model="demo", messages=ASK, extra_headers={"x-disable-router-memory": "true"}
    )
    assert "no memories" in (opted_out.choices[0].message.content or "")

    await alice.delete("/memory", cast_to=object, options={"params": {"scope": "user"}})
    assert await remembered(alice) == []


async def test_every_answer_carries_the_receipt_of_what_memory_did(demo: Stack, user: str) -> None:
    alice, bob = client(demo, user), client(demo, f"{user}-bob")
    told = await alice.chat.completions.with_raw_response.create(
        model="demo", messages=[{"role": "user", "content": TOLD}]
    )
    said = dict(f.split("=", 1) for f in told.headers["x-memory-receipt"].split("; "))
    assert (said["outcome"], said["learning"]) == ("no_results", "on")
    assert "memories" not in said
    receipt = f"/memory/receipts/{said['receipt']}"
    await until(lambda: _holding(alice, "$10,000"))
    page: Any = await alice.get("/memory", cast_to=object)
    held = {m["id"]: m["content"] for m in page["data"]}
    # what became of the turn: the memories it taught, by id, to its user alone
    learned: Any = await until(lambda: _learned(alice, receipt))
    assert learned["injected"] == []
    assert {held[i] for i in learned["learning"]["added"]} >= {
        c for c in held.values() if "$10,000" in c
    }
    with pytest.raises(NotFoundError):
        await bob.get(receipt, cast_to=object)

    asked = await alice.chat.completions.with_raw_response.create(model="demo", messages=ASK)
    fields = dict(f.split("=", 1) for f in asked.headers["x-memory-receipt"].split("; "))
    assert fields["outcome"] == "injected"
    injected = fields["memories"].split(",")
    assert any("$10,000" in held[i] for i in injected)  # hers, by id, and only ids
    assert set(injected) <= set(held)
    streamed = await alice.chat.completions.with_raw_response.create(
        model="demo", messages=DINNER, stream=True
    )
    assert streamed.headers["x-memory-receipt"].startswith("outcome=injected; memories=")
    answered = await alice.responses.with_raw_response.create(model="demo", input=ASK[0]["content"])
    assert answered.headers["x-memory-receipt"].startswith("outcome=injected; memories=")

    stranger = await bob.chat.completions.with_raw_response.create(model="demo", messages=ASK)
    assert stranger.headers["x-memory-receipt"].startswith("outcome=no_results;")
    # not an LLM call: nothing to tell, and no empty header either
    token = {"authorization": f"Bearer {alice.api_key}"}
    async with demo.http.get(f"{demo.url}/v1/memory", headers=token) as listed:
        assert listed.status == 200
        assert "x-memory-receipt" not in listed.headers
    await alice.delete("/memory", cast_to=object, options={"params": {"scope": "user"}})
    with pytest.raises(NotFoundError):  # forgotten with the user
        await alice.get(receipt, cast_to=object)


async def _learned(sdk: AsyncOpenAI, receipt: str) -> Any:
    found: Any = await sdk.get(receipt, cast_to=object)
    return found if found["status"] == "learned" else None


async def _holding(sdk: AsyncOpenAI, text: str) -> list[str]:
    memories = await remembered(sdk)
    return memories if any(text in m for m in memories) else []
