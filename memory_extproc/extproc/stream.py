"""One ext_proc stream, one HTTP exchange: the request headers pick who handles the rest.

An LLM API call (llm_exchange.py), a memory API call answered here (memory_api_call.py), or
anything else, passed through untouched. Created inside ``Process()`` for each stream, so nothing
request-specific outlives the stream or leaks between streams.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from memory_extproc import metrics
from memory_extproc.api.routes import is_api_path, request_path
from memory_extproc.api.service import MemoryApi
from memory_extproc.config import IdentityConfig, ServerConfig, SignalsConfig
from memory_extproc.extproc import protocol as p
from memory_extproc.extproc.llm_exchange import LlmExchange
from memory_extproc.extproc.memory_api_call import MemoryApiCall
from memory_extproc.identity import read_headers
from memory_extproc.learning.service import LearningService
from memory_extproc.llm_api.requests import Api
from memory_extproc.retrieval.service import MemoryRetrieval, Outcome
from memory_extproc.tracing import Context, incoming

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
    learning: LearningService | None = None  # None: nothing is learned from answers
    date_header: str = ""
    memory_api: MemoryApi | None = None  # None: memory disabled, /v1/memory answers 503
    max_body_bytes: int = ServerConfig().max_body_bytes


class Exchange(Protocol):
    # True once the exchange wants no more messages: the stream then closes cleanly and Envoy
    # goes on without us (a round trip fewer than answering the response headers with NONE).
    finished: bool

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse: ...

    def close(self) -> None: ...


class PassThrough:
    """Not ours: Envoy is told to send nothing more (and should it still send the answer's
    headers, the answer is not held)."""

    finished = True

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse:
        if kind == "request_headers":
            return p.PASS_THROUGH
        if kind == "response_headers":
            return p.answer_not_read(p.header_dict(message.response_headers.headers))
        return p.CONTINUE_BY_KIND[kind]

    def close(self) -> None:
        return None


class Stream:
    def __init__(self, deps: ProcessorDeps, trace: Context | None = None) -> None:
        self._deps = deps
        self._trace = trace  # Envoy's span of the ext_proc call, when traces are on
        self._exchange: Exchange | None = None

    async def handle(self, kind: str, message: p.ProcessingRequest) -> p.ProcessingResponse:
        if self._exchange is None:
            self._exchange = self._open(kind, message)
        return await self._exchange.handle(kind, message)

    @property
    def finished(self) -> bool:
        return self._exchange is not None and self._exchange.finished

    def close(self) -> None:
        if self._exchange is not None:
            self._exchange.close()

    def _open(self, kind: str, message: p.ProcessingRequest) -> Exchange:
        if kind != "request_headers":  # Envoy always starts with them; anything else: not ours
            return PassThrough()
        deps = self._deps
        headers = p.header_dict(message.request_headers.headers)
        raw_path, _, query = headers.get(":path", "").partition("?")
        path = request_path(raw_path)
        method = headers.get(":method", "")
        request_id = headers.get("x-request-id", "")
        if is_api_path(path):
            metrics.REQUESTS.labels("memory_api").inc()
            signals = read_headers(headers, path, deps.identity, deps.signals)
            return MemoryApiCall(
                deps.memory_api, method, query, signals, request_id, self._trace_of(headers)
            )
        api = _LLM_ROUTES.get((method, path))
        metrics.REQUESTS.labels(api.value if api else "other").inc()
        if api is None:
            return PassThrough()
        length = headers.get("content-length", "")
        if length.isascii() and length.isdigit() and int(length) > deps.max_body_bytes:
            # Envoy could not buffer it for us (a 413): it goes to the LLM as sent, unread
            metrics.RETRIEVAL_OUTCOMES.labels(Outcome.TOO_LARGE.value).inc()
            log.warning("LLM request too large for memory, passed through unread",
                        extra={"bytes": int(length), "limit": deps.max_body_bytes})  # fmt: skip
            return PassThrough()
        signals = read_headers(headers, path, deps.identity, deps.signals, deps.date_header)
        return LlmExchange(
            api, signals, request_id, deps.retrieval, deps.learning, self._trace_of(headers)
        )

    def _trace_of(self, headers: dict[str, str]) -> Context | None:
        """Envoy's ext_proc span, or else the client's own ``traceparent``."""
        return self._trace if self._trace is not None else incoming(headers)
