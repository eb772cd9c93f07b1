"""A /v1/memory call: its body collected, answered here by the memory API, never forwarded."""

from __future__ import annotations

import logging

from memory_extproc import tracing
from memory_extproc.api.routes import MAX_BODY_BYTES, operation_of, route_of
from memory_extproc.api.service import MemoryApi, error_reply
from memory_extproc.extproc import protocol as p
from memory_extproc.identity import HeaderSignals
from memory_extproc.tracing import Context, traced

log = logging.getLogger(__name__)


class MemoryApiCall:
    finished = False  # the immediate response ends the HTTP request, and with it the stream

    def __init__(
        self,
        memory_api: MemoryApi | None,  # None: memory disabled, the call answers 503
        method: str,
        query: str,
        headers: HeaderSignals,
        request_id: str,
        trace: Context | None = None,  # Envoy's span of this request, when traces are on
    ) -> None:
        self._memory_api = memory_api
        self._trace = trace
        self._method = method
        self._query = query
        self._headers = headers
        self._request_id = request_id
        self._body = bytearray()

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse:
        if kind == "request_headers":
            if message.request_headers.end_of_stream:
                return await self._reply()
            return p.CONTINUE_REQUEST_HEADERS
        if kind == "request_body":
            body = message.request_body
            if len(self._body) <= MAX_BODY_BYTES:
                self._body += body.body[: MAX_BODY_BYTES + 1 - len(self._body)]
            if not body.end_of_stream:
                return p.CONTINUE_REQUEST_BODY
            return await self._reply()
        return p.CONTINUE_BY_KIND[kind]

    def close(self) -> None:
        return None

    async def _reply(self) -> p.ProcessingResponse:
        path, headers = self._headers.path, self._headers
        route = route_of(path)  # no memory or receipt id in logs
        with traced("memory.api", context=self._trace) as span:
            span.set_attribute("http.request.method", self._method)
            span.set_attribute("memory.api.route", route)
            if (operation := operation_of(self._method, path)) is not None:
                span.set_attribute(tracing.OPERATION, operation)
            if self._memory_api is None:
                reply = error_reply(503, "memory_disabled", "memory is disabled on this gateway")
            else:
                reply = await self._memory_api.respond(
                    self._method, path, self._query, bytes(self._body),
                    headers.user_id, headers.project_id,
                )  # fmt: skip
            span.set_attribute("http.response.status_code", reply.status)
        log.info(
            "Memory API %s %s: %d", self._method, route, reply.status,
            extra={"request_id": self._request_id, "api": "memory_api"},
        )  # fmt: skip
        return p.immediate(reply.status, reply.body)
