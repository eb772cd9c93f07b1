"""An LLM API call (Chat Completions or Responses) over one ext_proc stream.

Request phase: memories injected into the body. Response phase: the answer passes through
untouched and, when it may be learned from, is read on the side and captured for the worker.
"""

from __future__ import annotations

import logging

from memory_extproc import metrics, receipts
from memory_extproc.clock import now_ms
from memory_extproc.compression.plan import NotCompressed
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc.receipt import KEY as RECEIPT_KEY
from memory_extproc.extproc.receipt import NAMESPACE as RECEIPT_NAMESPACE
from memory_extproc.extproc.receipt import receipt
from memory_extproc.identity import HeaderSignals
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
from memory_extproc.llm_api.requests import Api, ChatRequest, InvalidRequestBody, parse_request
from memory_extproc.receipts import NotLearned
from memory_extproc.retrieval.decision import Skip, learns_from_answer
from memory_extproc.retrieval.service import Compressed, MemoryRetrieval, Outcome
from memory_extproc.tracing import Context, current_traceparent, traced

log = logging.getLogger(__name__)

_GZIP = ("gzip", "x-gzip", "deflate")
# JSON answers up to this size (by content-length) are buffered in Envoy, read in one message;
# far below Envoy's default 1 MiB buffer limit, so no listener configuration can make it a 500.
BUFFERED_ANSWER_BYTES = 256 * 1024


class LlmExchange:
    def __init__(
        self,
        api: Api,
        headers: HeaderSignals,
        request_id: str,
        retrieval: MemoryRetrieval | None,  # None: memory disabled by configuration
        learning: LearningService | None,  # None: nothing is learned from answers
        trace: Context | None = None,  # Envoy's span of this request, when traces are on
    ) -> None:
        self.api = api
        self._trace = trace
        self._traceparent = ""  # our request span, linked from the learning job
        self.headers = headers
        self._request_id = request_id
        self._retrieval = retrieval
        self._learning = learning
        self.request: ChatRequest | None = None
        self._sse: SseAnswerReader | None = None
        self._gzip: GzipStream | None = None
        self._json: JsonAnswerBody | None = None  # a JSON answer streamed through
        self._content_encoding = ""
        self._awaiting_answer = False
        self._reads_answer = False  # decided with the request body: learning from the answer
        self.finished = False  # the request is forwarded and the answer will not be read
        self._recalled: tuple[str, ...] = ()  # memories injected into this request
        self._injected: tuple[str, ...] = ()  # …their ids
        self._outcome = ""  # what memory did to the request, for its receipt
        self._compression: Compressed | NotCompressed | None = None  # …and compression
        self._conversation = ""
        self._receipt = ""  # named to the client, until the turn is captured or cannot be
        self._received_ms = now_ms()  # a forget after this moment does not cover the turn

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse:
        if kind == "request_headers":
            if self.headers.invalid_identity:
                log.warning("Unusable identity header, memory skipped", extra=self._log_extra())
            return p.LLM_REQUEST_HEADERS
        if kind == "request_body":
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
        self._not_learned(NotLearned.CUT_OFF)

    # request phase

    async def _request_body(self, message: p.pb.HttpBody) -> p.ProcessingResponse:
        if not message.end_of_stream:  # only BUFFERED bodies are read and rewritten
            return p.CONTINUE_REQUEST_BODY
        try:
            reply = await self._request_read(message)
        finally:  # a retrieval that failed still learns from the answer
            request = self.request
            self._reads_answer = (
                self._learning is not None
                and request is not None
                and learns_from_answer(self.headers, request)
            )
            self.finished = not self._reads_answer
        self._receipt = receipts.new_id() if self._reads_answer else ""
        told = receipt(self._outcome, self._injected, self._receipt, self._compression,
                       self._conversation)  # fmt: skip
        return p.with_metadata(reply, RECEIPT_NAMESPACE, {RECEIPT_KEY: told})

    async def _request_read(self, message: p.pb.HttpBody) -> p.ProcessingResponse:
        retrieval = self._retrieval
        if retrieval is None:
            self._outcome = "disabled"
            return p.CONTINUE_REQUEST_BODY
        try:
            request = parse_request(self.api, message.body)
        except InvalidRequestBody as exc:
            self._outcome = Outcome.INVALID_BODY.value
            metrics.RETRIEVAL_OUTCOMES.labels(Outcome.INVALID_BODY.value).inc()
            log.info("Unreadable LLM request passed through: %s", exc, extra=self._log_extra())
            return p.CONTINUE_REQUEST_BODY
        self.request = request
        with traced("memory.request", context=self._trace) as span:
            span.set_attribute("memory.api", self.api.value)
            result = await retrieval.process(request, self.headers)
            span.set_attribute("memory.outcome", result.outcome.value)
            span.set_attribute("memory.injected", len(result.recalled))
            if result.compression is not None:
                span.set_attribute("memory.compression", getattr(
                    result.compression, "value", "compressed"
                ))  # fmt: skip
            self._traceparent = current_traceparent()
        self._recalled, self._injected = result.recalled, result.ids
        self._outcome, self._compression = result.outcome.value, result.compression
        self._conversation = result.conversation
        if result.outcome not in (Skip.NO_USER, Skip.GREETING):
            log.info(
                "Memory %s",
                result.outcome.value,
                extra={**self._log_extra(), "injected": len(result.recalled)},
            )
        if result.body is None:
            return p.CONTINUE_REQUEST_BODY
        return p.replace_request_body(result.body)

    # response phase

    def _response_headers(self, message: p.pb.HttpHeaders) -> p.ProcessingResponse:
        headers = p.header_dict(message.headers)
        learning = self._reads_answer
        if learning and not headers.get(":status", "").startswith("2"):
            metrics.TURNS.labels("not_2xx").inc()  # errors are never remembered
            self._not_learned(NotLearned.ERROR_ANSWER)
            learning = False
        if not learning or self.request is None:
            return p.answer_not_read(headers)
        self._content_encoding = headers.get("content-encoding", "").strip().lower()
        self._awaiting_answer = True
        if p.is_sse(headers):
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
        if not self._awaiting_answer:
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
        body = None if too_large else decode_body(raw, self._content_encoding)
        answer = answer_from_json(self.api, body) if body is not None else None
        self._finish(answer, too_large=too_large)  # undecodable (br, corrupt gzip): no_text

    def _finish(self, answer: Answer | None, *, too_large: bool = False) -> None:
        self._awaiting_answer = False
        learning, headers, request = self._learning, self.headers, self.request
        if answer is None or learning is None or request is None:
            metrics.TURNS.labels("too_large" if too_large else "no_text").inc()
            self._not_learned(NotLearned.TOO_LARGE if too_large else NotLearned.NO_TEXT)
            return
        learning.capture(
            CapturedTurn(
                user_id=headers.user_id,
                project_id=headers.project_id,
                turns=request.turns,
                answer=answer.text,
                at_ms=headers.at_ms or now_ms(),
                response_id=answer.response_id,
                previous_response_id=request.previous_response_id,
                recalled=self._recalled,
                received_ms=self._received_ms,
                traceparent=self._traceparent,
                receipt=self._receipt,
                injected=self._injected,
                compress=self._compression is not None,
            )
        )
        self._receipt = ""

    def _not_learned(self, why: NotLearned) -> None:
        """The named receipt says why its turn will not be learned from."""
        if self._receipt and self._learning is not None:
            self._learning.not_captured(
                self.headers.user_id, self.headers.project_id, self._receipt,
                self._received_ms, self._injected, why,
            )  # fmt: skip
        self._receipt = ""

    def _log_extra(self) -> dict[str, str]:
        return {"request_id": self._request_id, "api": self.api.value}
