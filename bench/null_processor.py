"""The floor of an ext_proc exchange: a processor that does no work (`make bench`'s ``null``).

It answers as ours does for a turn memory leaves alone: an empty reply to the request headers,
one to the request body, then a clean close (Envoy skips the response phase). Same gRPC runtime,
server options and health service as ours, and nothing else: what it adds is what the Python
gRPC runtime costs on this machine before any of our work. ``--threads``: the same on grpcio's
synchronous server (a thread pool), for `make exchange-floor`.

    python -m bench.null_processor PORT [--threads]
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.config import ServerConfig
from memory_extproc.extproc.protocol import CONTINUE_REQUEST_BODY, CONTINUE_REQUEST_HEADERS
from memory_extproc.extproc.servicer import SERVICE_NAME

OPTIONS = [
    ("grpc.max_receive_message_length", ServerConfig().max_message_bytes),
    ("grpc.max_send_message_length", -1),
    ("grpc.so_reuseport", 0),
]


def reply(request: pb.ProcessingRequest) -> pb.ProcessingResponse:
    """Headers: continue. Anything else is the body: continue, and the stream ends there."""
    if request.HasField("request_headers"):
        return CONTINUE_REQUEST_HEADERS
    return CONTINUE_REQUEST_BODY


class NullProcessor(pb_grpc.ExternalProcessorServicer):
    async def Process(
        self, requests: AsyncIterator[pb.ProcessingRequest], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ProcessingResponse]:
        async for request in requests:
            yield reply(request)
            if not request.HasField("request_headers"):
                return


class ThreadedNullProcessor(pb_grpc.ExternalProcessorServicer):
    def Process(
        self, requests: Iterator[pb.ProcessingRequest], context: grpc.ServicerContext
    ) -> Iterator[pb.ProcessingResponse]:
        for request in requests:
            yield reply(request)
            if not request.HasField("request_headers"):
                return


async def serve(port: int) -> None:
    server = grpc.aio.server(options=OPTIONS)
    pb_grpc.add_ExternalProcessorServicer_to_server(NullProcessor(), server)
    checks = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    for name in ("", SERVICE_NAME):
        await checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def threaded_server(port: int) -> grpc.Server:
    """A stream holds a thread for its life: enough threads for the bench's eight clients."""
    server = grpc.server(ThreadPoolExecutor(max_workers=64), options=OPTIONS)
    pb_grpc.add_ExternalProcessorServicer_to_server(ThreadedNullProcessor(), server)
    checks = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    for name in ("", SERVICE_NAME):
        checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    server.add_insecure_port(f"127.0.0.1:{port}")
    return server


if __name__ == "__main__":
    if "--threads" in sys.argv[2:]:
        threaded = threaded_server(int(sys.argv[1]))
        threaded.start()
        threaded.wait_for_termination()
    else:
        asyncio.run(serve(int(sys.argv[1])))
