"""`make bench`'s floor of an exchange (bench/null_processor.py) speaks to Envoy exactly as our
processor does for a turn memory leaves alone, or its figure would be the floor of something
else."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from bench.null_processor import NullProcessor
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from tests.unit.test_servicer import CHAT_TURN, serving, stub  # noqa: F401 - fixture


@pytest.fixture
async def null() -> AsyncIterator[pb_grpc.ExternalProcessorStub]:
    async with serving(NullProcessor()) as served:
        yield served


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
