"""`make bench`'s floor of an exchange (bench/null_processor.py) speaks to Envoy exactly as our
processor does for a turn memory leaves alone, or its figure would be the floor of something
else."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2

from bench.exchange_floor import runtimes
from bench.null_processor import NullProcessor, threaded_server
from devstack.ports import free_port
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc.servicer import SERVICE_NAME
from tests.unit.test_servicer import CHAT_TURN, serving, stub  # noqa: F401 - fixture


@pytest.fixture(params=["asyncio", "threads"])
async def null(request: pytest.FixtureRequest) -> AsyncIterator[pb_grpc.ExternalProcessorStub]:
    """The null processor on grpc.aio (`make bench`), and on grpcio's synchronous server
    (`make exchange-floor`)."""
    if request.param == "asyncio":
        async with serving(NullProcessor()) as served:
            yield served
        return
    port = free_port()
    server = threaded_server(port)
    server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield pb_grpc.ExternalProcessorStub(channel)
    server.stop(None)


@pytest.mark.parametrize("stub", [False], indirect=True, ids=["not_learning"])
async def test_the_null_processor_answers_a_passthrough_as_ours_does(
    null: pb_grpc.ExternalProcessorStub,
    stub: pb_grpc.ExternalProcessorStub,  # noqa: F811 - fixture
) -> None:
    """The same replies, message for message (ours carry our edits), with the same modes, then
    the same clean close: the same round trips through Envoy."""
    ours, floor = stub.Process(iter(CHAT_TURN)), null.Process(iter(CHAT_TURN))
    expected = [(reply.WhichOneof("response"), reply.mode_override) async for reply in ours]
    assert [kind for kind, _ in expected] == ["request_headers", "request_body"]
    assert [(r.WhichOneof("response"), r.mode_override) async for r in floor] == expected
    assert await floor.code() == await ours.code() == grpc.StatusCode.OK


def test_the_node_null_processor_is_given_our_replies_and_the_tag_of_request_headers() -> None:
    """It decodes nothing (bench/null_processor.js): a message whose first byte is the tag of
    request headers gets our reply to headers, anything else our reply to a body; it answers
    the health checks of the server and of the ext_proc service (Envoy's), and no other."""
    *_, tag, on_headers, on_body, serving_, server_check, service_check = runtimes()["node grpc-js"]
    headers = p.ProcessingRequest(request_headers=pb.HttpHeaders(end_of_stream=False))
    body = p.ProcessingRequest(request_body=pb.HttpBody(body=b"{}", end_of_stream=True))
    assert headers.SerializeToString()[0] == int(tag) != body.SerializeToString()[0]
    assert p.ProcessingResponse.FromString(bytes.fromhex(on_headers)) == p.CONTINUE_REQUEST_HEADERS
    assert p.ProcessingResponse.FromString(bytes.fromhex(on_body)) == p.CONTINUE_REQUEST_BODY
    answer = health_pb2.HealthCheckResponse.FromString(bytes.fromhex(serving_))
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    checks = [health_pb2.HealthCheckRequest.FromString(bytes.fromhex(c)).service
              for c in (server_check, service_check)]  # fmt: skip
    assert checks == ["", SERVICE_NAME]
