"""The real local extraction model in the loop (the make run default): a Hawaii update across
sessions (in English and in Chinese), an echoed answer, a stated preference shaping an open
request (but not an unrelated one), what the user states whatever the assistant answered, and
the judge's answer on pairs only it decides, through Envoy, the processor, its worker and Milvus.

`make scenarios` runs all nine scenarios in every mode; these keep a broken model setup
(packages, assembly, llama.cpp, prompts) from passing CI. About three minutes on 2 cores.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest

from devstack.gateway import Gateway
from devstack.local_llm import MODEL_NAME, LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM
from devstack.ports import free_port
from devstack.tokens import DevIdentity
from memory_extproc.config import ExternalModel, LlmEndpoint
from memory_extproc.doctor import check_llm
from memory_extproc.llm_client import ChatClient
from memory_extproc.memories.judge import JUDGE_SCHEMA, judge_messages, parse_judgment
from scenarios.cases import PERSONAL, verdict
from scenarios.catalog import SETS
from scenarios.runner import CHAT_MODEL, ChatAnswers, Run, memory_settings
from tests.integration.conftest import until

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLlmProcess]:
    model = LocalLlmProcess(free_port(), tmp_path_factory.mktemp("local-llm") / "llm.log")
    try:
        model.wait_ready()
        yield model
    finally:
        model.stop()


@pytest.fixture(scope="module")
async def run(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
    local_model: LocalLlmProcess,
) -> AsyncIterator[Run]:
    chat = ChatAnswers()
    llm.on_model(CHAT_MODEL, chat)
    gateway = Gateway(
        Path(tmp_path_factory.mktemp("real-model")),
        memory_settings("real", milvus.port, llm.port, local_model),
        llm.port,
        identity,
    )
    try:
        await asyncio.to_thread(gateway.wait_ready)
        async with aiohttp.ClientSession() as http:
            yield Run(gateway, http, identity, llm, chat)
    finally:
        await asyncio.to_thread(gateway.stop)
        llm.on_model(CHAT_MODEL, None)


async def test_doctor_checks_the_local_model_like_any_endpoint(
    local_model: LocalLlmProcess,
) -> None:
    endpoint = LlmEndpoint(address="127.0.0.1", port=local_model.port)
    served = await check_llm(ExternalModel("memory_extraction", llm_endpoint=endpoint,
                                           llm_model_name=MODEL_NAME))  # fmt: skip
    assert served.ok, served.detail
    wrong = await check_llm(ExternalModel("memory_extraction", llm_endpoint=endpoint,
                                          llm_model_name="gpt-4o"))  # fmt: skip
    assert not wrong.ok


# e5 scores these pairs over the bar for asking the judge, so it is the judge that decides
@pytest.mark.parametrize(
    ("old", "new", "still_true"),
    [
        # a step taken for a plan does not end it (the trip's budget was ended by its booking)
        ("El usuario tiene un presupuesto de 10,000 dólares para el viaje a Hawái",
         "El usuario ya reservó los vuelos para el viaje a Hawái", True),
        ("用户在Acme公司做软件工程师", "用户从Acme公司辞职了", False),
        # the date the product wrote into the ending made the model keep the car (shown bare:
        # "用户卖了车", it did not)
        ("用户开的是2015年的本田思域", "用户2026年12月6日前的一周卖了车", False),
        # a move does not end the user's job (a helper's run through `make run`). That it ends
        # where they lived ("El usuario vive en Sevilla") the model said in 4 of 7 runs alone:
        # not asserted here; it needs a rule by words
        ("El usuario trabaja como enfermera en un hospital", "El usuario se mudó a Madrid", True),
        ("用户在一家互联网公司上班", "用户搬到上海", True),
    ],
)  # fmt: skip
async def test_the_local_model_judges_whether_an_old_fact_still_holds(
    local_model: LocalLlmProcess, old: str, new: str, still_true: bool
) -> None:
    endpoint = LlmEndpoint(address="127.0.0.1", port=local_model.port)
    judge = ChatClient(ExternalModel("memory_extraction", llm_endpoint=endpoint,
                                     llm_model_name=MODEL_NAME))  # fmt: skip
    try:
        answer = await judge.complete(judge_messages(old, new), schema=JUDGE_SCHEMA)
    finally:
        await judge.close()
    assert parse_judgment(answer) is still_true


# the Hawaii update, in English and as a Chinese user says it; the echoed answer; a correction
# after the product resolved a date, and a job left for another as a Chinese user says it; a
# move in a later conversation as a German and a Japanese user say it (lang/de.py, ja.py)
@pytest.mark.parametrize(
    ("lang", "name", "number"),
    [("en", "truth", 1), ("zh", "truth", 1), ("en", "truth", 8), ("en", "changes", 2),
     ("zh", "changes", 3), ("de", "changes", 1), ("ja", "changes", 1)],
)  # fmt: skip
async def test_the_local_model_keeps_memories_true(
    run: Run, lang: str, name: str, number: int
) -> None:
    (scenario,) = [s for s in SETS[lang][name] if s.number == number]
    outcome = await run.play(scenario, "real")
    passed, reason = verdict(scenario, outcome)
    assert passed, reason
    assert await run.metric("memory_llm_answers_total") > 0  # the real model answered


async def test_the_local_model_learns_a_preference_later_requests_need(run: Run) -> None:
    """A vegetarian diet, said once, is given to "Suggest something I could cook for dinner" and
    not to "What is the capital of Peru?"."""
    (scenario,) = [s for s in PERSONAL if s.number == 2]
    passed, reason = verdict(scenario, await run.play(scenario, "real"))
    assert passed, reason


ODD_ANSWERS = (
    "(demo LLM) I was given no memories for this request.",
    "I'm sorry, but I can't help with that.",
    "```python\nprint('hello world')\n```",
    "Error: upstream request timed out (504).",
)
STATED = (
    ("I live in Berlin, in a flat near the river.", ("Berlin",)),
    ("My manager at work is Priya.", ("Priya",)),
    ("I'm allergic to peanuts, and my sister Anna lives in Oslo.", ("peanut", "Anna")),
    ("I moved to Lisbon last spring for a job at a bakery.", ("Lisbon", "bakery")),
)


@pytest.mark.parametrize(
    ("odd", "stated"),
    list(zip(ODD_ANSWERS, STATED, strict=True)),
    ids=["demo", "refusal", "code", "error"],
)
async def test_what_the_user_states_is_learned_whatever_the_assistant_answered(
    run: Run, odd: str, stated: tuple[str, tuple[str, ...]]
) -> None:
    """The odd answer both before the statement (in the history) and after it (the reply)."""
    user = f"odd-{uuid.uuid4().hex[:8]}"
    said, words = stated
    run.answers.next = odd
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": odd},
               {"role": "user", "content": said}]  # fmt: skip
    await run.chat(user, history)
    await run.learned()
    held = " ".join(m.content for m in await run.memories(user))
    missing = [w for w in words if w not in held]
    assert not missing, f"not learned after {odd!r}: {missing} (held: {held!r})"
    made_of_answers = [w for w in ("memories", "hello", "timed out", "sorry") if w in held]
    assert not made_of_answers, held


QUOTED = (
    ('My favorite book is "Dune" by Frank Herbert.', "Dune"),
    ('I just watched "Past Lives" with my sister Ana and loved it.', "Past Lives"),
)


async def test_words_the_user_put_in_quotes_are_learned_whole(run: Run) -> None:
    """Decoding constrained to JSON took the model's '"' for the end of its string: the first
    was learned as "User's favorite book is", the second as "User watched"."""
    user = f"quoted-{uuid.uuid4().hex[:8]}"
    run.answers.next = "Noted."
    for said, _ in QUOTED:
        await run.chat(user, [{"role": "user", "content": said}])
        await run.learned()
    held = " ".join(m.content for m in await run.memories(user))
    assert all(title in held for _, title in QUOTED), held


LONG_CHAT = (
    "My sister Ingrid moved to Tromsø in March to work at the Arctic university.",
    "Can you suggest a good way to learn to bake sourdough?",
    "What temperature should the oven be?",
    "How long should the dough rest overnight?",
    "Any tips for a crispier crust?",
    "What flour works best for a beginner?",
    "Should I use a Dutch oven?",
    "How do I keep the starter alive while travelling?",
    "Is rye flour good for the starter?",
    "Thanks, I'll try it this weekend.",
)


async def test_a_long_conversation_is_compressed_and_an_early_detail_still_reaches_the_llm(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
    local_model: LocalLlmProcess,
) -> None:
    """Ten turns learned by the local model, then a question about the first one sent with
    ``"memory_config": {"compress": true}``: the older turns are replaced by a block that
    quotes the early detail, the last turns and the question arrive as sent."""
    settings = memory_settings("real", milvus.port, llm.port, local_model)
    settings["milvus"]["collection"] = "compression_real"
    settings |= {"extraction_batch_size": 10, "compression": {"min_turns": 8, "keep_turns": 2}}
    chat = ChatAnswers()
    llm.on_model(CHAT_MODEL, chat)
    gateway = Gateway(Path(tmp_path_factory.mktemp("compression")), settings, llm.port, identity)
    user = f"compress-{uuid.uuid4().hex[:8]}"
    try:
        await asyncio.to_thread(gateway.wait_ready)
        async with aiohttp.ClientSession() as http:
            run = Run(gateway, http, identity, llm, chat)
            messages: list[dict[str, str]] = []
            for k, said in enumerate(LONG_CHAT):
                messages.append({"role": "user", "content": said})
                chat.next = (
                    f"Happy to help with that ({k}). Here are a few ideas to try, step "
                    "by step, with the reasons for each and what to watch out for."
                )
                messages.append({"role": "assistant", "content": await run.chat(user, messages)})
            await run.learned()
            question = {"role": "user", "content": "Which city did my sister move to?"}
            body = orjson.dumps(
                {
                    "model": CHAT_MODEL,
                    "messages": [*messages, question],
                    "memory_config": {"compress": True, "auto_store": False},
                }
            )
            headers = {"authorization": f"Bearer {identity.token(user)}",
                       "content-type": "application/json"}  # fmt: skip

            async def compressed() -> tuple[str, list[dict[str, Any]]] | None:
                before = len(llm.recorded)
                async with http.post(gateway.chat_url, data=body, headers=headers) as response:
                    assert response.status == 200
                    receipt = response.headers["x-memory-receipt"]
                sent = [r for r in llm.recorded[before:] if "x-request-id" in r.headers]
                return (receipt, sent[-1].json["messages"]) if "=compressed" in receipt else None

            # the batch's vectors reach the store just after its job is counted: asked again
            found = await until(compressed, timeout_s=30)
            conversation = found[0].rsplit("conversation=", 1)[1]
            url = f"{gateway.url}/v1/memory/conversations/{conversation}"
            async with http.get(url, headers=headers) as response:
                kept = await response.json()
            stranger = {"authorization": f"Bearer {identity.token(user + '-other')}"}
            async with http.get(url, headers=stranger) as response:
                assert response.status == 404  # another user's looks like none
            async with http.delete(url, headers=headers) as response:
                assert response.status == 204
            async with http.post(gateway.chat_url, data=body, headers=headers) as response:
                after = response.headers["x-memory-receipt"]
    finally:
        await asyncio.to_thread(gateway.stop)
        llm.on_model(CHAT_MODEL, None)
    assert kept["messages_read"] == 20
    assert kept["state"] == ""  # no turn of it asked for compression while it was learned
    assert "compression=no_state" in after  # deleted: sent as it is until read again
    receipt, received = found
    assert "replaced=16" in receipt  # eight turns of ten: the last two stay as sent
    assert received[-5:] == [*messages[-4:], question]
    block = next(m["content"] for m in received if m["content"].startswith("<conversation_memory>"))
    assert "Tromsø" in block
