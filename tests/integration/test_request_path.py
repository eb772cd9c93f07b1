"""The request path through real Envoy, the processor as a process, real Milvus, mock LLM."""

from __future__ import annotations

import asyncio
import sys
import uuid

import orjson
import pytest

from devstack.mock_llm import Reply, memory_lines
from memory_extproc.store.milvus import MilvusStore
from tests.integration.conftest import Stack

pytestmark = pytest.mark.integration

BUDGET = "My budget for the Hawaii trip is $10,000"
QUESTION = "What's my budget for the Hawaii trip?"


async def test_alice_gets_her_memories_and_never_bobs(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    alice, bob = user, f"{user}-bob"
    await remember(alice, BUDGET)
    await remember(bob, "My budget for the Hawaii trip is $99")
    injected_before = await stack.metric("memory_retrieval_outcomes_total", {"outcome": "injected"})

    assert await stack.ask(QUESTION, alice) == [f"[{_today()}] {BUDGET}"]
    as_bob = await stack.ask(QUESTION, bob)
    assert len(as_bob) == 1
    assert "$99" in as_bob[0]
    assert (
        await stack.metric("memory_retrieval_outcomes_total", {"outcome": "injected"})
        == injected_before + 2
    )


async def test_injected_request_is_well_formed_for_the_llm(
    stack: Stack, remember, user: str
) -> None:  # type: ignore[no-untyped-def]
    await remember(user, BUDGET)
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "You are a travel agent."},
            {"role": "user", "content": QUESTION},
        ],
        "memory_config": {"enabled": True, "retrieval_limit": 3},
        "memory_context": {"user_id": "someone-else"},
    }
    status, _, received = await stack.post("/v1/chat/completions", body, user=user)
    assert status == 200
    assert received is not None
    forwarded = received.json
    assert int(received.headers["content-length"]) == len(received.body)
    assert "memory_config" not in forwarded
    assert "memory_context" not in forwarded
    roles = [m["role"] for m in forwarded["messages"]]
    assert roles == ["system", "system", "user"]
    assert forwarded["messages"][0]["content"] == "You are a travel agent."
    assert "accept-encoding" not in received.headers
    assert "x-authz-user-id" not in received.headers  # the LLM provider is not told who asked
    assert "authorization" not in received.headers  # nor sees the user's token


async def test_the_request_arrives_byte_for_byte_but_for_the_memory_message(
    stack: Stack, remember, user: str
) -> None:  # type: ignore[no-untyped-def]
    """Numbers over 64 bits, escapes, spacing, key order and unknown fields as the client wrote
    them; the memory fields cut out; one system message added."""
    await remember(user, BUDGET)
    head = b'{ "seed" : 123456789012345678901234567890, "x-vendor": {"t": 1.50E+2},\n "model":"m",'
    question = rb'{"role": "user", "content": "What\u0027s my budget for the Hawaii trip?"}'
    raw = head + b' "memory_config": {"enabled": true}, "messages": [ ' + question + b" ] }"
    status, _, received = await stack.post("/v1/chat/completions", raw, user=user)
    assert status == 200
    assert received is not None
    injected = received.json["messages"][0]
    assert injected["role"] == "system"
    assert BUDGET in injected["content"]
    expected = head + b' "messages": [ ' + orjson.dumps(injected) + b"," + question + b" ] }"
    assert received.body == expected


async def test_memory_added_by_the_cli_is_found_by_the_next_request(
    stack: Stack, user: str
) -> None:
    cli = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "memory_extproc", "-c", str(stack.config_path),
        "memories", "add", "--user", user, "I am allergic to peanuts",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(cli.communicate(), timeout=120)
    assert cli.returncode == 0, err.decode()
    assert out.startswith(b"mem_")
    assert await stack.ask("What food am I allergic to?", user) == [
        f"[{_today()}, preference] I am allergic to peanuts"  # an allergy is a standing limit
    ]


async def test_greetings_do_not_search(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    await remember(user, "Hello is my favourite word")
    before = await stack.metric("memory_retrieval_outcomes_total", {"outcome": "greeting"})
    assert await stack.ask("Hello!", user) == []
    assert (
        await stack.metric("memory_retrieval_outcomes_total", {"outcome": "greeting"}) == before + 1
    )


async def test_opt_out_header_disables_memory(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    await remember(user, BUDGET)
    assert await stack.ask(QUESTION, user, headers={"x-disable-router-memory": "true"}) == []
    assert await stack.ask(QUESTION, user) != []


async def test_fact_signal_skips_general_questions_only(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    await remember(user, "The capital of my home country is Lisbon")
    fact = {"x-vsr-matched-fact-check": "needs_fact_check"}
    assert await stack.ask("What is the capital of France?", user, headers=fact) == []
    assert await stack.ask("What is the capital of my home country?", user, headers=fact) != []


async def test_without_a_token_there_is_no_memory(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    await remember(user, BUDGET)
    assert await stack.ask(QUESTION) == []


async def test_spoofed_identity_headers_are_stripped(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    victim, mallory = user, f"{user}-mallory"
    await remember(victim, BUDGET)
    spoof = {"x-authz-user-id": victim, "x-authz-project-id": "p"}
    assert await stack.ask(QUESTION, headers=spoof) == []
    assert await stack.ask(QUESTION, mallory, headers=spoof) == []


async def test_a_bad_token_is_refused_before_the_llm(stack: Stack) -> None:
    before = len(stack.llm.recorded)
    status, _, received = await stack.post(
        "/v1/chat/completions",
        {"messages": [{"role": "user", "content": QUESTION}]},
        headers={"authorization": "Bearer not.a.jwt"},
    )
    assert status == 401
    assert received is None
    assert len(stack.llm.recorded) == before


async def test_malformed_json_reaches_the_llm_untouched(stack: Stack, user: str) -> None:
    raw = b'{"model": "m", "messages": [{"role": "user", "content": "my budget?"'
    status, _, received = await stack.post("/v1/chat/completions", raw, user=user)
    assert status == 200
    assert received is not None
    assert received.body == raw


async def test_a_5_mb_body_passes_through(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    await remember(user, BUDGET)
    question = QUESTION + " Here are my notes: " + "lorem ipsum " * 440_000
    body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": question}]})
    assert len(body) > 5_000_000
    status, _, received = await stack.post("/v1/chat/completions", body, user=user)
    assert status == 200
    assert received is not None
    assert received.json["messages"][-1]["content"] == question
    assert int(received.headers["content-length"]) == len(received.body)


async def test_a_body_over_envoys_buffer_reaches_the_llm_as_sent(
    stack: Stack, remember, user: str
) -> None:  # type: ignore[no-untyped-def]
    """Over Envoy's 32 MiB buffer, which would answer 413: routed by its content-length past
    the processor (envoy/envoy.yaml), never buffered. Sent to the processor, which passes such
    a body through unread, it could arrive before that answer and be refused (seen once in a
    full run)."""
    await remember(user, BUDGET)
    question = QUESTION + " Here are my notes: " + "lorem ipsum " * 2_800_000
    body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": question}]})
    assert len(body) > 32 * 1024 * 1024
    asked = {"api": "chat_completions"}
    before = await stack.metric("memory_extproc_requests_total", asked)
    status, _, received = await stack.post("/v1/chat/completions", body, user=user)
    assert status == 200
    assert received is not None
    assert received.body == body
    assert await stack.metric("memory_extproc_requests_total", asked) == before


async def test_a_chunked_request_gets_its_memories(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    """No content-length: read all the same, and forwarded with the length of the new body."""
    await remember(user, BUDGET)
    body = {"model": "m", "messages": [{"role": "user", "content": QUESTION}]}
    status, _, received = await stack.post("/v1/chat/completions", body, user=user, chunked=True)
    assert status == 200
    assert received is not None
    assert memory_lines(received.json) == [f"[{_today()}] {BUDGET}"]
    assert int(received.headers["content-length"]) == len(received.body)


async def test_other_paths_pass_through_untouched(stack: Stack, user: str) -> None:
    before = await stack.metric("memory_extproc_requests_total", {"api": "other"})
    body = b'{"input": "my text", "model": "e"}'
    status, _, received = await stack.post(
        "/v1/embeddings", body, user=user, headers={"accept-encoding": "gzip"}
    )
    assert status == 200
    assert received is not None
    assert received.body == body
    assert received.headers["accept-encoding"] == "gzip"
    async with stack.http.get(f"{stack.url}/v1/models") as response:
        assert response.status == 200
    assert await stack.metric("memory_extproc_requests_total", {"api": "other"}) == before + 2


async def test_responses_api_gets_memories_in_its_instructions(
    stack: Stack, remember, user: str
) -> None:  # type: ignore[no-untyped-def]
    await remember(user, BUDGET)
    status, answer, received = await stack.post(
        "/v1/responses",
        {"model": "m", "input": QUESTION, "instructions": "Be brief."},
        user=user,
    )
    assert status == 200
    assert orjson.loads(answer)["object"] == "response"
    assert received is not None
    instructions = received.json["instructions"]
    assert instructions.startswith("Be brief.\n\n<user_memories>")
    assert memory_lines(received.json) == [f"[{_today()}] {BUDGET}"]
    assert received.json["input"] == QUESTION


async def test_streamed_answer_arrives_as_produced_and_unchanged(
    stack: Stack, remember, user: str
) -> None:  # type: ignore[no-untyped-def]
    """This stack learns nothing, so the answer is not asked for at all: the processor closes
    its stream after the request body and Envoy forwards the rest without it (an answer that is
    learned from: test_response_path)."""
    await remember(user, BUDGET)
    release = asyncio.Event()
    chunks = [
        b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"Your budget is "}}]}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"content":"$10,000 \xe2\x9c\x85"}}]}\n\n',
        b"data: [DONE]\n\n",
    ]
    stack.llm.script(Reply(chunks=chunks, release=release))
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": QUESTION}],
            "memory_config": {"auto_store": False}}  # fmt: skip
    sent = await stack.ext_proc_messages_settled()
    assert await stack.stream(body, user, chunks, release) == b"".join(chunks)
    assert memory_lines(stack.llm.recorded[-1].json) == [f"[{_today()}] {BUDGET}"]
    assert "memory_config" not in stack.llm.recorded[-1].json
    # request headers and body; at most the response headers besides, which Envoy may send
    # before the close reaches it (a busy processor): an answer read would be 4 chunks more
    assert await stack.ext_proc_messages_settled() - sent <= 3


async def test_llm_errors_reach_the_client_unchanged(stack: Stack, user: str) -> None:
    stack.llm.script(Reply(status=429, body=b'{"error": {"message": "slow down"}}'))
    status, answer, _ = await stack.post(
        "/v1/chat/completions", {"messages": [{"role": "user", "content": QUESTION}]}, user=user
    )
    assert status == 429
    assert answer == b'{"error": {"message": "slow down"}}'


HOSTILE_IDS = [
    'alice" or user_id != "',
    "alice' or 1==1 or '",
    'x\\" || user_id like "%',
    "trailing-backslash\\",
    "ünïcødé 😀 user",
    'a"b"c',
]


@pytest.mark.parametrize("hostile", HOSTILE_IDS)
async def test_hostile_user_ids_read_only_their_own_memories(
    stack: Stack,
    store: MilvusStore,
    remember,
    query_vector,
    hostile: str,  # type: ignore[no-untyped-def]
) -> None:
    victim = f"victim-{uuid.uuid4().hex[:8]}"
    await remember(victim, "My secret PIN for the Hawaii trip safe is 4321")
    await remember(hostile, f"My budget for the Hawaii trip is {len(hostile)} dollars")
    lines = await stack.ask("What's my budget and PIN for the Hawaii trip?", hostile)
    assert lines
    assert all("4321" not in line for line in lines)
    # Straight against Milvus too: the filter can only ever match the literal id.
    from memory_extproc.store.model import SearchRequest

    vector = query_vector("secret PIN for the Hawaii trip safe")
    found = await store.retrieve(SearchRequest(hostile, vector, limit=50, threshold=-1))
    assert found
    assert {m.memory.user_id for m in found} == {hostile}
    await store.forget_by_scope(hostile)


async def test_memory_content_never_reaches_the_processor_log(
    stack: Stack, remember, user: str
) -> None:  # type: ignore[no-untyped-def]
    secret = f"My locker code for the Hawaii trip is {uuid.uuid4().hex[:6]}"
    await remember(user, secret)
    assert await stack.ask("What's my locker code for the Hawaii trip?", user) != []
    assert secret.split()[-1] not in stack.processor.log_tail(10_000)


async def test_metrics_expose_latency_and_outcomes(stack: Stack, remember, user: str) -> None:  # type: ignore[no-untyped-def]
    await remember(user, BUDGET)
    count_before = await stack.metric("memory_retrieval_seconds_count")
    await stack.ask(QUESTION, user)
    assert await stack.metric("memory_retrieval_seconds_count") == count_before + 1
    assert await stack.metric("memory_store_available", {"client": "query"}) == 1
    async with stack.http.get(stack.metrics_url) as response:
        text = await response.text()
    assert user not in text  # never a user id as a label
    assert 'memory_injected_memories_bucket{le="1.0"}' in text


def _today() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%d")
