"""An OTLP/gRPC trace collector that keeps what it is sent, for the tests and `make bench`
(``BENCH_TRACING=1``): Envoy's OpenTelemetry tracer and the processor export to it."""

from __future__ import annotations

from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2


class OtlpReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self.spans: list[tuple[str, trace_pb2.Span]] = []  # (service name, span)
        self._server: grpc.aio.Server | None = None

    async def start(self) -> int:
        """Serve on a free loopback port; returns it."""
        self._server = grpc.aio.server()
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(self, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return port

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(0)

    async def Export(  # the OTLP method name
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: Any
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        for resource_spans in request.resource_spans:
            service = next(
                (a.value.string_value for a in resource_spans.resource.attributes
                 if a.key == "service.name"),
                "",
            )  # fmt: skip
            for scope in resource_spans.scope_spans:
                self.spans += [(service, span) for span in scope.spans]
        return trace_service_pb2.ExportTraceServiceResponse()

    def named(self, name: str) -> list[trace_pb2.Span]:
        return [span for _, span in self.spans if span.name == name]
