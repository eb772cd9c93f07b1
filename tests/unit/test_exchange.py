"""The ext_proc adapter on real proto messages, with the in-memory store and the real model."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from memory_extproc._proto.envoy.config.core.v3 import base_pb2
from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc.exchange import Exchange, ProcessorDeps
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Memory

pb = p.pb


def headers_message(kind: str, pairs: dict[str, str], end: bool = False) -> p.ProcessingRequest:
    header_map = base_pb2.HeaderMap(
        headers=[base_pb2.HeaderValue(key=k, raw_value=v.encode()) for k, v in pairs.items()]
    )
    return p.ProcessingRequest(**{kind: pb.HttpHeaders(headers=header_map, end_of_stream=end)})


def body_message(kind: str, body: bytes, end: bool = True) -> p.ProcessingRequest:
    return p.ProcessingRequest(**{kind: pb.HttpBody(body=body, end_of_stream=end)})


@pytest.fixture
async def deps(embedder: OnnxEmbedder) -> ProcessorDeps:
    store = InMemoryStore()
    batcher = EmbeddingBatcher(embedder, name="test")
    for user, text in [
        ("alice", "My budget for the Hawaii trip is $10,000"),
        ("bob", "My budget for the Hawaii trip is $99"),
    ]:
        await store.store(Memory.new(user, text), (await batcher.embed(text)).copy())
    retrieval = MemoryRetrieval(batcher, store, RetrievalPolicy(), budget_s=1.0)
    return ProcessorDeps(retrieval, IdentityConfig(), SignalsConfig())


CHAT = {":method": "POST", ":path": "/v1/chat/completions", "content-type": "application/json"}
ASK = orjson.dumps(
    {
        "model": "m",
        "messages": [{"role": "user", "content": "What's my budget for the Hawaii trip?"}],
    }
)


async def run(exchange: Exchange, message: p.ProcessingRequest) -> p.ProcessingResponse:
    return await exchange.handle(message.WhichOneof("request"), message)


async def test_chat_request_as_alice_gets_alices_memory_and_a_matching_length(
    deps: ProcessorDeps,
) -> None:
    exchange = Exchange(deps)
    reply = await run(
        exchange,
        headers_message(
            "request_headers", {**CHAT, "x-authz-user-id": "alice", "accept-encoding": "gzip"}
        ),
    )
    assert list(reply.request_headers.response.header_mutation.remove_headers) == [
        "accept-encoding"
    ]
    reply = await run(exchange, body_message("request_body", ASK))
    common = reply.request_body.response
    body = common.body_mutation.body
    (length,) = common.header_mutation.set_headers
    assert length.header.key == "content-length"
    assert int(length.header.raw_value) == len(body)
    messages = orjson.loads(body)["messages"]
    assert messages[0]["role"] == "system"
    assert "$10,000" in messages[0]["content"]
    assert "$99" not in messages[0]["content"]
    assert messages[1]["content"] == "What's my budget for the Hawaii trip?"


async def test_without_identity_the_body_is_untouched(deps: ProcessorDeps) -> None:
    exchange = Exchange(deps)
    await run(exchange, headers_message("request_headers", CHAT))
    reply = await run(exchange, body_message("request_body", ASK))
    assert reply == p.CONTINUE_REQUEST_BODY


async def test_hostile_identity_header_is_treated_as_absent(deps: ProcessorDeps) -> None:
    exchange = Exchange(deps)
    await run(
        exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice\x00"})
    )
    assert exchange.headers is not None
    assert exchange.headers.invalid_identity
    assert await run(exchange, body_message("request_body", ASK)) == p.CONTINUE_REQUEST_BODY


async def test_non_llm_path_passes_through_and_asks_for_nothing_more(deps: ProcessorDeps) -> None:
    exchange = Exchange(deps)
    for method, path in [
        ("GET", "/v1/models"),
        ("GET", "/v1/chat/completions"),
        ("POST", "/v2/other"),
    ]:
        reply = await run(
            exchange,
            headers_message(
                "request_headers", {":method": method, ":path": path, "x-authz-user-id": "alice"}
            ),
        )
        assert reply == p.PASS_THROUGH
        mode = reply.mode_override
        assert mode.request_body_mode == p.Mode.NONE
        assert mode.response_header_mode == p.Mode.SKIP


async def test_malformed_json_is_passed_untouched(deps: ProcessorDeps) -> None:
    exchange = Exchange(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    assert (
        await run(exchange, body_message("request_body", b'{"messages": ['))
        == p.CONTINUE_REQUEST_BODY
    )


async def test_memory_fields_are_stripped_even_when_memory_is_skipped(deps: ProcessorDeps) -> None:
    exchange = Exchange(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    body = orjson.dumps(
        {"messages": [{"role": "user", "content": "hi"}], "memory_config": {"enabled": True}}
    )
    reply = await run(exchange, body_message("request_body", body))
    forwarded = orjson.loads(reply.request_body.response.body_mutation.body)
    assert forwarded == {"messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("text/event-stream; charset=utf-8", p.RESPONSE_BODY_STREAMED),
        ("application/json", p.RESPONSE_BODY_NONE),
    ],
)
async def test_response_modes(
    deps: ProcessorDeps, content_type: str, expected: p.ProcessingResponse
) -> None:
    exchange = Exchange(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    reply = await run(
        exchange,
        headers_message("response_headers", {":status": "200", "content-type": content_type}),
    )
    assert reply == expected
    mode = reply.mode_override
    # a complete override: an unset body mode would mean NONE
    assert mode.request_header_mode == p.Mode.SEND
    assert mode.response_header_mode == p.Mode.SEND


async def test_every_other_kind_gets_a_continue_of_its_own_kind(deps: ProcessorDeps) -> None:
    exchange = Exchange(deps)
    assert (
        await run(exchange, body_message("response_body", b"data: x\n\n", end=False))
        == p.CONTINUE_RESPONSE_BODY
    )
    trailers = p.ProcessingRequest(request_trailers=pb.HttpTrailers())
    assert await run(exchange, trailers) == p.CONTINUE_REQUEST_TRAILERS


class SlowStore(InMemoryStore):
    async def retrieve(self, request):  # type: ignore[no-untyped-def]
        await asyncio.sleep(5)
        return []


async def test_retrieval_past_its_budget_forwards_the_request_unchanged(
    embedder: OnnxEmbedder,
) -> None:
    retrieval = MemoryRetrieval(
        EmbeddingBatcher(embedder, name="test"), SlowStore(), RetrievalPolicy(), budget_s=0.05
    )
    exchange = Exchange(ProcessorDeps(retrieval, IdentityConfig(), SignalsConfig()))
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    started = asyncio.get_running_loop().time()
    assert await run(exchange, body_message("request_body", ASK)) == p.CONTINUE_REQUEST_BODY
    assert asyncio.get_running_loop().time() - started < 1.0


def test_header_dict_joins_repeats_and_lowercases() -> None:
    header_map = base_pb2.HeaderMap(
        headers=[
            base_pb2.HeaderValue(key="X-A", raw_value=b"1"),
            base_pb2.HeaderValue(key="x-a", raw_value=b"2"),
            base_pb2.HeaderValue(key="x-old", value="legacy"),
        ]
    )
    assert p.header_dict(header_map) == {"x-a": "1,2", "x-old": "legacy"}
