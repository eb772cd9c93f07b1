"""The gRPC stream itself: one reply of the matching kind per message, even when we break."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest
from prometheus_client import REGISTRY

from memory_extproc._proto.envoy.config.core.v3 import base_pb2
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc.servicer import ExternalProcessor
from memory_extproc.extproc.stream import ProcessorDeps
from tests.unit.test_stream import Captures

pb = p.pb


class ExplodingRetrieval:
    async def process(self, request, signals):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")


def _headers(pairs: dict[str, str]) -> base_pb2.HeaderMap:
    return base_pb2.HeaderMap(
        headers=[base_pb2.HeaderValue(key=k, raw_value=v.encode()) for k, v in pairs.items()]
    )


# An LLM call as Envoy sends it, up to the answer's headers.
CHAT_TURN = [
    p.ProcessingRequest(
        request_headers=pb.HttpHeaders(
            headers=_headers(
                {":method": "POST", ":path": "/v1/chat/completions", "x-authz-user-id": "alice"}
            )
        )
    ),
    p.ProcessingRequest(request_body=pb.HttpBody(body=b'{"messages": []}', end_of_stream=True)),
    p.ProcessingRequest(response_headers=pb.HttpHeaders(headers=_headers({":status": "200"}))),
]


@contextlib.asynccontextmanager
async def serving(
    servicer: pb_grpc.ExternalProcessorServicer,
) -> AsyncIterator[pb_grpc.ExternalProcessorStub]:
    """A stub to ``servicer``, served on a port of its own for the time of the block."""
    server = grpc.aio.server()
    pb_grpc.add_ExternalProcessorServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield pb_grpc.ExternalProcessorStub(channel)
    await server.stop(None)


@pytest.fixture(params=[True, False], ids=["learning", "not_learning"])
async def stub(request: pytest.FixtureRequest) -> AsyncIterator[pb_grpc.ExternalProcessorStub]:
    learning = Captures() if request.param else None
    deps = ProcessorDeps(ExplodingRetrieval(), IdentityConfig(), SignalsConfig(), learning)  # type: ignore[arg-type]
    async with serving(ExternalProcessor(deps)) as served:
        yield served


@pytest.mark.parametrize("stub", [True], indirect=True, ids=["learning"])
async def test_an_internal_error_is_answered_with_continue_of_the_same_kind(
    stub: pb_grpc.ExternalProcessorStub,
) -> None:
    before = (
        REGISTRY.get_sample_value("memory_extproc_errors_total", {"phase": "request_body"}) or 0
    )
    messages = [
        *CHAT_TURN,
        p.ProcessingRequest(response_body=pb.HttpBody(body=b"{}", end_of_stream=True)),
    ]
    replies = [reply async for reply in stub.Process(iter(messages))]
    assert [r.WhichOneof("response") for r in replies] == [
        "request_headers",
        "request_body",
        "response_headers",
        "response_body",
    ]
    assert replies[1] == p.CONTINUE_REQUEST_BODY
    assert replies[2] == p.RESPONSE_BODY_STREAMED  # the retrieval failed; the answer is read
    after = REGISTRY.get_sample_value("memory_extproc_errors_total", {"phase": "request_body"})
    assert after == before + 1


@pytest.mark.parametrize("stub", [False], indirect=True, ids=["not_learning"])
async def test_a_stream_whose_answer_will_not_be_read_ends_after_the_request_body(
    stub: pb_grpc.ExternalProcessorStub,
) -> None:
    """A clean close is Envoy's cue to go on without us: the answer's headers cost no round
    trip when nothing learns from them (here: learning is off)."""
    call = stub.Process(iter(CHAT_TURN))
    replies = [reply async for reply in call]
    assert [r.WhichOneof("response") for r in replies] == ["request_headers", "request_body"]
    assert await call.code() == grpc.StatusCode.OK


async def test_observability_mode_messages_get_no_reply(
    stub: pb_grpc.ExternalProcessorStub,
) -> None:
    messages = [
        p.ProcessingRequest(
            request_headers=pb.HttpHeaders(headers=_headers({":path": "/x"})),
            observability_mode=True,
        )
    ]
    assert [reply async for reply in stub.Process(iter(messages))] == []


def test_worker_metrics_are_added_to_the_processors() -> None:
    from prometheus_client.metrics_core import Metric

    from memory_extproc.metrics import merge

    counter = Metric("memory_jobs", "jobs", "counter")
    counter.add_sample("memory_jobs_total", {"outcome": "ok"}, 2.0)
    other = Metric("memory_other", "untouched", "gauge")
    other.add_sample("memory_other", {}, 7.0)
    merged = merge(
        [counter, other],
        [
            ("memory_jobs", "memory_jobs_total", (("outcome", "ok"),), 3.0),
            ("memory_jobs", "memory_jobs_total", (("outcome", "failed"),), 1.0),
        ],
    )
    samples = {(s.name, tuple(s.labels.items())): s.value for m in merged for s in m.samples}
    assert samples == {
        ("memory_jobs_total", (("outcome", "ok"),)): 5.0,
        ("memory_jobs_total", (("outcome", "failed"),)): 1.0,
        ("memory_other", ()): 7.0,
    }
