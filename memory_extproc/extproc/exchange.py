"""One HTTP exchange as seen over one ext_proc stream: its state and a reply per message.

Created inside ``Process()`` for each stream, so nothing request-specific outlives the stream or
leaks between streams.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from memory_extproc import metrics
from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.extproc import protocol as p
from memory_extproc.identity import HeaderSignals, read_headers
from memory_extproc.llm_api.requests import Api, InvalidRequestBody, parse_request
from memory_extproc.retrieval.decision import Skip
from memory_extproc.retrieval.plan import RequestSignals
from memory_extproc.retrieval.service import MemoryRetrieval, Outcome

log = logging.getLogger(__name__)

_LLM_ROUTES = {
    ("POST", "/v1/chat/completions"): Api.CHAT_COMPLETIONS,
    ("POST", "/v1/responses"): Api.RESPONSES,
}


@dataclass(frozen=True, slots=True)
class ProcessorDeps:
    retrieval: MemoryRetrieval | None  # None: memory disabled by configuration
    identity: IdentityConfig
    signals: SignalsConfig


class Exchange:
    def __init__(self, deps: ProcessorDeps) -> None:
        self._deps = deps
        self.api: Api | None = None
        self.path = ""
        self.request_id = ""
        self.headers: HeaderSignals | None = None

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse:
        if kind == "request_headers":
            return self._request_headers(message.request_headers)
        if kind == "request_body":
            return await self._request_body(message.request_body)
        if kind == "response_headers":
            return self._response_headers(message.response_headers)
        return p.CONTINUE_BY_KIND[kind]

    def _request_headers(self, message: p.pb.HttpHeaders) -> p.ProcessingResponse:
        headers = p.header_dict(message.headers)
        self.path = headers.get(":path", "").split("?", 1)[0]
        self.api = _LLM_ROUTES.get((headers.get(":method", ""), self.path))
        metrics.REQUESTS.labels(self.api.value if self.api else "other").inc()
        if self.api is None:
            return p.PASS_THROUGH
        self.request_id = headers.get("x-request-id", "")
        self.headers = read_headers(headers, self._deps.identity, self._deps.signals)
        if self.headers.invalid_identity:
            log.warning("Unusable identity header, memory skipped", extra=self._log_extra())
        return p.LLM_REQUEST_HEADERS

    async def _request_body(self, message: p.pb.HttpBody) -> p.ProcessingResponse:
        retrieval = self._deps.retrieval
        if self.api is None or self.headers is None or retrieval is None:
            return p.CONTINUE_REQUEST_BODY
        if not message.end_of_stream:  # only BUFFERED bodies are rewritten
            return p.CONTINUE_REQUEST_BODY
        try:
            request = parse_request(self.api, message.body)
        except InvalidRequestBody as exc:
            metrics.RETRIEVAL_OUTCOMES.labels(Outcome.INVALID_BODY.value).inc()
            log.info("Unreadable LLM request passed through: %s", exc, extra=self._log_extra())
            return p.CONTINUE_REQUEST_BODY
        signals = RequestSignals(
            path=self.path,
            user_id=self.headers.user_id,
            project_id=self.headers.project_id,
            opted_out=self.headers.opted_out,
            tool_signal=self.headers.tool_signal,
            fact_signal=self.headers.fact_signal,
        )
        result = await retrieval.process(request, signals)
        if result.outcome not in (Skip.NO_USER, Skip.GREETING):
            log.info(
                "Memory %s",
                result.outcome.value,
                extra={**self._log_extra(), "injected": result.injected},
            )
        if result.body is None:
            return p.CONTINUE_REQUEST_BODY
        return p.replace_request_body(result.body)

    def _response_headers(self, message: p.pb.HttpHeaders) -> p.ProcessingResponse:
        headers = p.header_dict(message.headers)
        if headers.get("content-type", "").startswith("text/event-stream"):
            # Never hold an SSE answer: Envoy would buffer it until the stream ends.
            return p.RESPONSE_BODY_STREAMED
        return p.RESPONSE_BODY_NONE

    def _log_extra(self) -> dict[str, str]:
        return {"request_id": self.request_id, "api": self.api.value if self.api else "other"}
