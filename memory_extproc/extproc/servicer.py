"""The gRPC service Envoy calls: exactly one reply of the matching kind per message, always.

It only translates and fails open; the stream (stream.py) decides what each message means.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import grpc

from memory_extproc import metrics, tracing
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc.stream import ProcessorDeps, Stream

log = logging.getLogger(__name__)
SERVICE_NAME = "envoy.service.ext_proc.v3.ExternalProcessor"  # for gRPC health checks


class ExternalProcessor(pb_grpc.ExternalProcessorServicer):
    def __init__(self, deps: ProcessorDeps) -> None:
        self._deps = deps

    async def Process(  # the gRPC method name
        self,
        request_iterator: AsyncIterator[p.ProcessingRequest],
        context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[p.ProcessingResponse]:
        metrics.EXTPROC_STREAMS.inc()
        exchange = Stream(self._deps, self._trace(context))
        try:
            async for reply in self._replies(exchange, request_iterator):
                yield reply
        finally:
            exchange.close()

    @staticmethod
    def _trace(context: grpc.aio.ServicerContext) -> tracing.Context | None:
        """Envoy's span of this ext_proc call: its traceparent is in the gRPC metadata."""
        if not tracing.enabled():
            return None
        return tracing.incoming(dict(context.invocation_metadata() or ()))

    async def _replies(
        self, exchange: Stream, request_iterator: AsyncIterator[p.ProcessingRequest]
    ) -> AsyncIterator[p.ProcessingResponse]:
        async for message in request_iterator:
            kind = message.WhichOneof("request")
            if kind is None:  # a message kind newer than our protos: nothing we can answer
                log.warning("ext_proc message of unknown kind ignored")
                continue
            try:
                reply = await exchange.handle(kind, message)
            except Exception:
                # Fail open: a reply of the matching kind that changes nothing.
                metrics.EXTPROC_ERRORS.labels(kind).inc()
                log.exception("ext_proc %s failed; continuing without memory", kind)
                reply = p.CONTINUE_BY_KIND[kind]
            if not message.observability_mode:
                yield reply
            if exchange.finished:  # a clean close: Envoy continues without asking us again
                return
