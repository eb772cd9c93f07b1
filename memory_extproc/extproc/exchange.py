"""One HTTP exchange as seen over one ext_proc stream: its state and a reply per message.

Created inside ``Process()`` for each stream, so nothing request-specific outlives the stream or
leaks between streams.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from memory_extproc import metrics
from memory_extproc.api.routes import MAX_BODY_BYTES, is_api_path, request_path
from memory_extproc.api.service import MemoryApi, error_reply
from memory_extproc.clock import now_ms
from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.extproc import protocol as p
from memory_extproc.identity import HeaderSignals, read_headers
from memory_extproc.learning.service import LearningService
from memory_extproc.learning.turns import CapturedTurn
from memory_extproc.llm_api.answers import (
    Answer,
    GzipStream,
    JsonAnswerBody,
    SseAnswerReader,
    answer_from_json,
    decode_body,
)
from memory_extproc.llm_api.requests import (
    Api,
    ChatRequest,
    InvalidRequestBody,
    parse_request,
)
from memory_extproc.retrieval.decision import Skip
from memory_extproc.retrieval.plan import RequestSignals
from memory_extproc.retrieval.service import MemoryRetrieval, Outcome

log = logging.getLogger(__name__)

_LLM_ROUTES = {
    ("POST", "/v1/chat/completions"): Api.CHAT_COMPLETIONS,
    ("POST", "/v1/responses"): Api.RESPONSES,
}
_GZIP = ("gzip", "x-gzip", "deflate")
# JSON answers up to this size (by content-length) are buffered in Envoy, read in one message;
# far below Envoy's default 1 MiB buffer limit, so no listener configuration can make it a 500.
BUFFERED_ANSWER_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class ProcessorDeps:
    retrieval: MemoryRetrieval | None  # None: memory disabled by configuration
    identity: IdentityConfig
    signals: SignalsConfig
    extraction: LearningService | None = None  # None: nothing is learned from answers
    date_header: str = ""
    api: MemoryApi | None = None  # None: memory disabled, /v1/memory answers 503


class Exchange:
    def __init__(self, deps: ProcessorDeps) -> None:
        self._deps = deps
        self.api: Api | None = None
        self.path = ""
        self.request_id = ""
        self.headers: HeaderSignals | None = None
        self.request: ChatRequest | None = None
        self._sse: SseAnswerReader | None = None
        self._gzip: GzipStream | None = None
        self._json: JsonAnswerBody | None = None  # a JSON answer streamed through
        self._content_encoding = ""
        self._awaiting_answer = False
        self._recalled: tuple[str, ...] = ()  # memories injected into this request
        self._api_request: tuple[str, str, str] | None = None  # method, path, query
        self._api_body = bytearray()

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse:
        if kind == "request_headers":
            return await self._request_headers(message.request_headers)
        if kind == "request_body":
            if self._api_request is not None:
                return await self._api_body_part(message.request_body)
            return await self._request_body(message.request_body)
        if kind == "response_headers":
            return self._response_headers(message.response_headers)
        if kind == "response_body":
            return self._response_body(message.response_body)
        return p.CONTINUE_BY_KIND[kind]

    def close(self) -> None:
        """The stream ended. An answer still being read was cut off (client abort): no turn."""
        if self._awaiting_answer:
            metrics.TURNS.labels("incomplete").inc()
            self._awaiting_answer = False

    # request phase

    async def _request_headers(self, message: p.pb.HttpHeaders) -> p.ProcessingResponse:
        headers = p.header_dict(message.headers)
        raw_path, _, query = headers.get(":path", "").partition("?")
        self.path = request_path(raw_path)
        self.request_id = headers.get("x-request-id", "")
        if is_api_path(self.path):
            metrics.REQUESTS.labels("memory_api").inc()
            self.headers = read_headers(headers, self._deps.identity, self._deps.signals)
            self._api_request = (headers.get(":method", ""), self.path, query)
            if message.end_of_stream:
                return await self._api_reply()
            return p.CONTINUE_REQUEST_HEADERS
        self.api = _LLM_ROUTES.get((headers.get(":method", ""), self.path))
        metrics.REQUESTS.labels(self.api.value if self.api else "other").inc()
        if self.api is None:
            return p.PASS_THROUGH
        self.headers = read_headers(
            headers, self._deps.identity, self._deps.signals, self._deps.date_header
        )
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
        self.request = request
        signals = RequestSignals(
            path=self.path,
            user_id=self.headers.user_id,
            project_id=self.headers.project_id,
            opted_out=self.headers.opted_out,
            tool_signal=self.headers.tool_signal,
            fact_signal=self.headers.fact_signal,
        )
        result = await retrieval.process(request, signals)
        self._recalled = result.recalled
        if result.outcome not in (Skip.NO_USER, Skip.GREETING):
            log.info(
                "Memory %s",
                result.outcome.value,
                extra={**self._log_extra(), "injected": len(result.recalled)},
            )
        if result.body is None:
            return p.CONTINUE_REQUEST_BODY
        return p.replace_request_body(result.body)

    # memory API: answered here, never forwarded

    async def _api_body_part(self, message: p.pb.HttpBody) -> p.ProcessingResponse:
        if len(self._api_body) <= MAX_BODY_BYTES:
            self._api_body += message.body[: MAX_BODY_BYTES + 1 - len(self._api_body)]
        if not message.end_of_stream:
            return p.CONTINUE_REQUEST_BODY
        return await self._api_reply()

    async def _api_reply(self) -> p.ProcessingResponse:
        assert self._api_request is not None
        assert self.headers is not None
        method, path, query = self._api_request
        api = self._deps.api
        if api is None:
            reply = error_reply(503, "memory_disabled", "memory is disabled on this gateway")
        else:
            reply = await api.respond(
                method, path, query, bytes(self._api_body),
                self.headers.user_id, self.headers.project_id,
            )  # fmt: skip
        log.info(
            "Memory API %s %s: %d",
            method, path.split("/mem_")[0], reply.status, extra=self._log_extra(),
        )  # fmt: skip
        return p.immediate(reply.status, reply.body)

    # response phase

    def _learns_from_answer(self) -> bool:
        headers, request = self.headers, self.request
        return (
            self._deps.extraction is not None
            and headers is not None
            and request is not None
            and bool(headers.user_id)
            and not headers.opted_out
            and request.options.enabled is not False
            and request.options.auto_store is not False
            and not request.ends_with_tool_output
        )

    def _response_headers(self, message: p.pb.HttpHeaders) -> p.ProcessingResponse:
        headers = p.header_dict(message.headers)
        sse = headers.get("content-type", "").startswith("text/event-stream")
        learning = self._learns_from_answer()
        if learning and not headers.get(":status", "").startswith("2"):
            metrics.TURNS.labels("not_2xx").inc()  # errors are never remembered
            learning = False
        if not learning or self.request is None:
            # Never hold an SSE answer (Envoy would buffer it to the end); ask for no body at all.
            return p.RESPONSE_BODY_STREAMED if sse else p.RESPONSE_BODY_NONE
        self._content_encoding = headers.get("content-encoding", "").strip().lower()
        self._awaiting_answer = True
        if sse:
            self._sse = SseAnswerReader(self.request.api)
            if self._content_encoding in _GZIP:
                self._gzip = GzipStream()
            return p.RESPONSE_BODY_STREAMED
        length = headers.get("content-length", "")
        if length.isascii() and length.isdigit() and int(length) <= BUFFERED_ANSWER_BYTES:
            return p.RESPONSE_BODY_BUFFERED
        # Unknown or large: streamed through and kept here, never held in Envoy, whose buffer
        # limit would turn the answer into a 500 (memory must never break a success).
        self._json = JsonAnswerBody()
        return p.RESPONSE_BODY_STREAMED

    def _response_body(self, message: p.pb.HttpBody) -> p.ProcessingResponse:
        if not self._awaiting_answer or self.api is None:
            return p.CONTINUE_RESPONSE_BODY
        if self._sse is not None:
            chunk = self._gzip.feed(message.body) if self._gzip else message.body
            self._sse.feed(chunk)
            if message.end_of_stream:
                self._sse.close()
                self._finish(self._sse.answer(), too_large=self._sse.too_large)
        elif self._json is not None:
            self._json.feed(message.body)
            if message.end_of_stream:
                self._finish_json(self._json.body(), too_large=self._json.too_large)
        elif message.end_of_stream:
            self._finish_json(message.body)
        return p.CONTINUE_RESPONSE_BODY

    def _finish_json(self, raw: bytes, *, too_large: bool = False) -> None:
        assert self.api is not None
        body = None if too_large else decode_body(raw, self._content_encoding)
        answer = answer_from_json(self.api, body) if body is not None else None
        self._finish(answer, too_large=too_large)  # undecodable (br, corrupt gzip): no_text

    def _finish(self, answer: Answer | None, *, too_large: bool = False) -> None:
        self._awaiting_answer = False
        extraction, headers, request = self._deps.extraction, self.headers, self.request
        if answer is None or extraction is None or headers is None or request is None:
            metrics.TURNS.labels("too_large" if too_large else "no_text").inc()
            return
        extraction.capture(
            CapturedTurn(
                user_id=headers.user_id,
                project_id=headers.project_id,
                turns=request.turns,
                answer=answer.text,
                at_ms=headers.at_ms or now_ms(),
                response_id=answer.response_id,
                previous_response_id=request.previous_response_id,
                recalled=self._recalled,
            )
        )

    def _log_extra(self) -> dict[str, str]:
        return {"request_id": self.request_id, "api": self.api.value if self.api else "other"}
