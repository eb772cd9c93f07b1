"""The ext_proc stream (LLM exchange, memory API call, pass-through) on real proto messages, with
the in-memory store and the real model."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import re

import orjson
import pytest
from prometheus_client import REGISTRY

from devstack.mock_llm import chat_events
from memory_extproc._proto.envoy.config.core.v3 import base_pb2
from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc import receipt
from memory_extproc.extproc.stream import ProcessorDeps, Stream
from memory_extproc.receipts import NotLearned, is_receipt_id
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
async def deps(embeddings: Embeddings) -> ProcessorDeps:
    store = InMemoryStore()
    batcher = embeddings
    for user, text in [
        ("alice", "My budget for the Hawaii trip is $10,000"),
        ("bob", "My budget for the Hawaii trip is $99"),
    ]:
        await store.store(Memory.new(user, text), await batcher.memory(text))
    retrieval = MemoryRetrieval(batcher, store, RetrievalPolicy(), budget_s=1.0)
    return ProcessorDeps(retrieval, IdentityConfig(), SignalsConfig())


CHAT = {":method": "POST", ":path": "/v1/chat/completions", "content-type": "application/json"}
ASK = orjson.dumps(
    {
        "model": "m",
        "messages": [{"role": "user", "content": "What's my budget for the Hawaii trip?"}],
    }
)


async def run(exchange: Stream, message: p.ProcessingRequest) -> p.ProcessingResponse:
    return await exchange.handle(message.WhichOneof("request"), message)


def receipted(reply: p.ProcessingResponse) -> tuple[p.ProcessingResponse, str]:
    """A reply to the request body without its receipt, and the receipt (extproc/receipt.py)."""
    told = reply.dynamic_metadata.fields[receipt.NAMESPACE].struct_value.fields[receipt.KEY]
    bare = p.ProcessingResponse()
    bare.CopyFrom(reply)
    bare.ClearField("dynamic_metadata")
    return bare, told.string_value


async def test_chat_request_as_alice_gets_alices_memory_and_a_matching_length(
    deps: ProcessorDeps,
) -> None:
    exchange = Stream(deps)
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
    # the one memory injected, by id: no words of it (GET /v1/memory/{id} has them)
    assert re.fullmatch(r"outcome=injected; memories=mem_[0-9a-f]{32}; learning=off",
                        receipted(reply)[1])  # fmt: skip


async def test_without_identity_the_body_is_untouched(deps: ProcessorDeps) -> None:
    exchange = Stream(deps)
    await run(exchange, headers_message("request_headers", CHAT))
    reply = await run(exchange, body_message("request_body", ASK))
    assert receipted(reply) == (p.CONTINUE_REQUEST_BODY, "outcome=no_user; learning=off")


async def test_hostile_identity_header_is_treated_as_absent(
    deps: ProcessorDeps, caplog: pytest.LogCaptureFixture
) -> None:
    exchange = Stream(deps)
    await run(
        exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice\x00"})
    )
    assert "Unusable identity header" in caplog.text
    reply = await run(exchange, body_message("request_body", ASK))
    assert receipted(reply) == (p.CONTINUE_REQUEST_BODY, "outcome=no_user; learning=off")


async def test_non_llm_path_passes_through_and_asks_for_nothing_more(deps: ProcessorDeps) -> None:
    exchange = Stream(deps)
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
        assert exchange.finished  # the stream closes: nothing more to ask


async def test_a_request_over_the_body_size_memory_reads_passes_through_unread(
    deps: ProcessorDeps,
) -> None:
    """Envoy would refuse to buffer it for us (413): it goes on as sent, and memory says why."""
    limit = deps.max_body_bytes
    assert limit == 32 * 1024 * 1024 - 64 * 1024  # server.max_message_mb's default, less room
    before = (
        REGISTRY.get_sample_value("memory_retrieval_outcomes_total", {"outcome": "too_large"}) or 0
    )
    for length, read in ((limit, True), (limit + 1, False)):
        exchange = Stream(deps)
        pairs = {**CHAT, "x-authz-user-id": "alice", "content-length": str(length)}
        reply = await run(exchange, headers_message("request_headers", pairs))
        assert (reply != p.PASS_THROUGH) is read
        assert exchange.finished is not read
    after = REGISTRY.get_sample_value("memory_retrieval_outcomes_total", {"outcome": "too_large"})
    assert after == before + 1


async def test_malformed_json_is_passed_untouched(deps: ProcessorDeps) -> None:
    exchange = Stream(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    reply = await run(exchange, body_message("request_body", b'{"messages": ['))
    assert receipted(reply) == (p.CONTINUE_REQUEST_BODY, "outcome=invalid_body; learning=off")


async def test_memory_fields_are_stripped_even_when_memory_is_skipped(deps: ProcessorDeps) -> None:
    exchange = Stream(deps)
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
    exchange = Stream(deps)
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
    exchange = Stream(deps)
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
    embeddings: Embeddings,
) -> None:
    retrieval = MemoryRetrieval(embeddings, SlowStore(), RetrievalPolicy(), budget_s=0.05)
    exchange = Stream(ProcessorDeps(retrieval, IdentityConfig(), SignalsConfig()))
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    started = asyncio.get_running_loop().time()
    reply = await run(exchange, body_message("request_body", ASK))
    assert receipted(reply) == (p.CONTINUE_REQUEST_BODY, "outcome=timeout; learning=off")
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


class Captures:
    def __init__(self) -> None:
        self.turns: list = []
        self.not_learned: list[tuple[str, NotLearned]] = []  # (receipt id, why)

    def capture(self, turn) -> None:  # type: ignore[no-untyped-def]
        self.turns.append(turn)

    def not_captured(self, user_id, project_id, receipt_id, at_ms, injected, why) -> None:  # type: ignore[no-untyped-def]
        self.not_learned.append((receipt_id, why))


@pytest.fixture
def learning(deps: ProcessorDeps) -> tuple[ProcessorDeps, Captures]:
    captures = Captures()
    return dataclasses.replace(deps, learning=captures, date_header="x-memory-date"), captures  # type: ignore[arg-type]


async def answered(
    deps: ProcessorDeps,
    response_headers: dict[str, str],
    chunks: list[bytes],
    request_headers: dict[str, str] | None = None,
    body: bytes = ASK,
) -> tuple[Stream, p.ProcessingResponse]:
    exchange = Stream(deps)
    await run(
        exchange,
        headers_message(
            "request_headers", {**CHAT, "x-authz-user-id": "alice", **(request_headers or {})}
        ),
    )
    await run(exchange, body_message("request_body", body))
    mode = await run(exchange, headers_message("response_headers", response_headers))
    for i, chunk in enumerate(chunks):
        reply = await run(exchange, body_message("response_body", chunk, end=i == len(chunks) - 1))
        assert reply == p.CONTINUE_RESPONSE_BODY  # the answer passes untouched
    return exchange, mode


async def test_a_json_answer_becomes_a_captured_turn(learning) -> None:  # type: ignore[no-untyped-def]
    deps, captures = learning
    body = orjson.dumps(
        {"choices": [{"message": {"role": "assistant", "content": "It is $10,000."}}]}
    )
    _, mode = await answered(
        deps,
        {":status": "200", "content-type": "application/json", "content-length": str(len(body))},
        [body],
        request_headers={"x-memory-date": "2023-05-08"},
    )
    assert mode == p.RESPONSE_BODY_BUFFERED  # small and of known size: one message
    (turn,) = captures.turns
    assert turn.user_id == "alice"
    assert turn.answer == "It is $10,000."
    assert turn.turns[-1].text == "What's my budget for the Hawaii trip?"
    assert turn.at_ms == 1683504000000


@pytest.mark.parametrize(
    "length", [None, str(8 * 1024 * 1024 + 1), "oops"], ids=["chunked", "too_big", "garbage"]
)
async def test_a_json_answer_of_unknown_or_large_size_streams_through(  # type: ignore[no-untyped-def]
    learning, length: str | None
) -> None:
    """Held whole in Envoy, a JSON answer over its buffer limit became a 500."""
    deps, captures = learning
    body = orjson.dumps({"choices": [{"message": {"content": "Streamed JSON."}}]})
    headers = {":status": "200", "content-type": "application/json"}
    if length is not None:
        headers["content-length"] = length
    _, mode = await answered(deps, headers, [body[:10], body[10:], b""])
    assert mode == p.RESPONSE_BODY_STREAMED
    assert [t.answer for t in captures.turns] == ["Streamed JSON."]


async def test_a_json_answer_over_the_bound_is_forwarded_and_not_learned(learning) -> None:  # type: ignore[no-untyped-def]
    deps, captures = learning
    huge = b'{"choices": [{"message": {"content": "' + b"x" * (9 * 1024 * 1024) + b'"}}]}'
    chunks = [huge[i : i + 1024 * 1024] for i in range(0, len(huge), 1024 * 1024)]
    await answered(deps, {":status": "200", "content-type": "application/json"}, chunks)
    assert captures.turns == []
    assert [why for _, why in captures.not_learned] == [NotLearned.TOO_LARGE]  # its receipt


async def test_a_gzipped_answer_is_read(learning) -> None:  # type: ignore[no-untyped-def]
    deps, captures = learning
    body = orjson.dumps({"choices": [{"message": {"content": "Compressed but readable."}}]})
    await answered(
        deps,
        {":status": "200", "content-type": "application/json", "content-encoding": "gzip"},
        [gzip.compress(body)],
    )
    assert [t.answer for t in captures.turns] == ["Compressed but readable."]


async def test_an_sse_answer_is_captured_when_it_ends(learning) -> None:  # type: ignore[no-untyped-def]
    deps, captures = learning
    events = b"".join(chat_events("Streamed answer"))
    chunks = [events[i : i + 10] for i in range(0, len(events), 10)] + [b""]
    _, mode = await answered(deps, {":status": "200", "content-type": "text/event-stream"}, chunks)
    assert mode == p.RESPONSE_BODY_STREAMED
    assert [t.answer for t in captures.turns] == ["Streamed answer"]


async def test_an_aborted_stream_captures_nothing(learning) -> None:  # type: ignore[no-untyped-def]
    deps, captures = learning
    exchange = Stream(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    await run(exchange, body_message("request_body", ASK))
    await run(
        exchange,
        headers_message(
            "response_headers", {":status": "200", "content-type": "text/event-stream"}
        ),
    )
    await run(exchange, body_message("response_body", chat_events("partial")[1], end=False))
    exchange.close()  # Envoy ended the stream without end_of_stream
    assert captures.turns == []
    assert [why for _, why in captures.not_learned] == [NotLearned.CUT_OFF]  # its receipt


@pytest.mark.parametrize(
    ("request_headers", "status", "body", "receipt_says"),
    [
        ({}, "500", ASK, [NotLearned.ERROR_ANSWER]),
        ({}, "429", ASK, [NotLearned.ERROR_ANSWER]),
        ({"x-disable-router-memory": "true"}, "200", ASK, []),  # no receipt was named
        ({"x-authz-user-id": ""}, "200", ASK, []),
        ({}, "200", orjson.dumps({**orjson.loads(ASK), "memory_config": {"auto_store": False}}),
         []),
    ],
)  # fmt: skip
async def test_no_learning_from_errors_opt_outs_or_anonymous_requests(
    learning,
    request_headers: dict[str, str],
    status: str,
    body: bytes,
    receipt_says: list[NotLearned],  # type: ignore[no-untyped-def]
) -> None:
    deps, captures = learning
    answer = orjson.dumps({"choices": [{"message": {"content": "text"}}]})
    _, mode = await answered(
        deps,
        {":status": status, "content-type": "application/json"},
        [answer],
        request_headers,
        body,
    )
    assert mode == p.RESPONSE_BODY_NONE
    assert captures.turns == []
    assert [why for _, why in captures.not_learned] == receipt_says


NOT_STORED = orjson.dumps({**orjson.loads(ASK), "memory_config": {"auto_store": False}})


@pytest.mark.parametrize(
    ("request_headers", "body", "reads_answer"),
    [
        ({}, ASK, True),
        ({}, b"{not json", False),
        ({}, NOT_STORED, False),
        ({"x-disable-router-memory": "true"}, ASK, False),
        ({"x-authz-user-id": ""}, ASK, False),
    ],
    ids=["learned", "unreadable", "auto_store_false", "opted_out", "anonymous"],
)
async def test_the_stream_stays_open_for_the_answer_only_when_it_is_read(
    learning, request_headers: dict[str, str], body: bytes, reads_answer: bool
) -> None:  # type: ignore[no-untyped-def]
    deps, _ = learning
    exchange = Stream(deps)
    await run(
        exchange,
        headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice", **request_headers}),
    )
    assert not exchange.finished  # the body is still to come
    await run(exchange, body_message("request_body", body[:5], end=False))
    assert not exchange.finished  # a body in pieces: not read until its end
    reply = await run(exchange, body_message("request_body", body))
    assert exchange.finished is not reads_answer
    told = dict(field.split("=", 1) for field in receipted(reply)[1].split("; "))
    assert told["learning"] == ("on" if reads_answer else "off")
    assert is_receipt_id(told.get("receipt", "")) is reads_answer  # where to ask what became of it


async def test_the_captured_turn_carries_the_receipt_its_answer_named(learning) -> None:  # type: ignore[no-untyped-def]
    deps, captures = learning
    exchange = Stream(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    told = dict(
        field.split("=", 1)
        for field in receipted(await run(exchange, body_message("request_body", ASK)))[1].split(
            "; "
        )
    )
    await run(exchange, headers_message("response_headers", {":status": "200"}))
    answer = orjson.dumps({"choices": [{"message": {"content": "About $10,000."}}]})
    await run(exchange, body_message("response_body", answer))
    exchange.close()
    (turn,) = captures.turns
    assert turn.receipt == told["receipt"]
    assert turn.injected == tuple(told["memories"].split(","))  # what the receipt will list
    assert captures.not_learned == []  # captured: not also told it was not


async def test_without_learning_an_llm_request_is_finished_with_its_body(
    deps: ProcessorDeps,
) -> None:
    exchange = Stream(deps)
    await run(exchange, headers_message("request_headers", {**CHAT, "x-authz-user-id": "alice"}))
    assert not exchange.finished
    await run(exchange, body_message("request_body", ASK))
    assert exchange.finished


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [("text/event-stream", p.RESPONSE_BODY_STREAMED), ("application/json", p.RESPONSE_BODY_NONE)],
)
async def test_an_answer_on_a_stream_that_lost_its_request_is_never_held(
    deps: ProcessorDeps, content_type: str, expected: p.ProcessingResponse
) -> None:
    # request_headers failed (answered open by the servicer): Envoy goes on by its static modes
    stream = Stream(deps)
    headers = {":status": "200", "content-type": content_type}
    assert await run(stream, headers_message("response_headers", headers)) == expected
