"""An OpenAI-compatible /v1/chat/completions client for the memory models (async, keep-alive).

Transient failures (connection errors, timeouts, 429, 5xx) are retried with exponential backoff
and jitter; anything else fails at once. The caller's job timeout bounds the whole thing.

Structured output: a call that brings a JSON schema asks for it (`response_format` json_schema:
llama.cpp, vLLM and OpenAI constrain decoding to it, so even a 1.5B model answers in shape). An
endpoint that refuses that (HTTP 400) is asked again with `json_object`, then with no format at
all, and the client remembers what it accepts; the answers are read leniently either way
(memories/model_json.py).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from memory_extproc import metrics
from memory_extproc.config import ExternalModel

log = logging.getLogger(__name__)


class LlmError(RuntimeError):
    def __init__(self, message: str, *, transient: bool, refused_format: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        self.refused_format = refused_format  # a 400 that may be about response_format


@dataclass(frozen=True, slots=True)
class JsonSchema:
    name: str
    schema: dict[str, Any]


_FORMATS = ("json_schema", "json_object", "none")  # most to least constrained


class ChatClient:
    def __init__(self, model: ExternalModel, *, retries: int = 2, backoff_s: float = 0.5) -> None:
        endpoint = model.llm_endpoint
        self.role = model.model_role
        self._url = f"{endpoint.scheme}://{endpoint.address}:{endpoint.port}/v1/chat/completions"
        self._model = model
        self._retries = retries
        self._backoff = backoff_s
        self._headers = {"content-type": "application/json"}
        if endpoint.api_key:
            self._headers["authorization"] = f"Bearer {endpoint.api_key}"
        self._session: aiohttp.ClientSession | None = None
        self._refused: set[str] = set()  # response formats this endpoint answered 400 to

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        schema: JsonSchema | None = None,
        json_mode: bool = True,
    ) -> str:
        """The first choice's text, asked for as JSON (of ``schema``, where the endpoint can)."""
        wanted = "json_schema" if schema else "json_object" if json_mode else "none"
        formats = [f for f in _FORMATS[_FORMATS.index(wanted) :] if f not in self._refused]
        task = schema.name if schema else "chat"
        for kind in formats or ["none"]:
            try:
                return await self._retried(self._payload(messages, kind, schema), task)
            except LlmError as exc:
                if not exc.refused_format or kind == "none":
                    raise
                self._refused.add(kind)
                metrics.LLM_FORMAT_FALLBACKS.labels(self.role, kind).inc()
                log.warning("LLM endpoint refused response_format %s, asking without it", kind)
        raise AssertionError("unreachable: the last format is 'none'")

    def _payload(
        self, messages: list[dict[str, str]], kind: str, schema: JsonSchema | None
    ) -> bytes:
        body: dict[str, Any] = {
            "model": self._model.llm_model_name,
            "messages": messages,
            "max_tokens": self._model.max_tokens,
            "temperature": self._model.temperature,
        }
        if kind == "json_schema" and schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.name, "strict": True, "schema": schema.schema},
            }
        elif kind == "json_object":
            body["response_format"] = {"type": "json_object"}
        return orjson.dumps(body)

    async def _retried(self, payload: bytes, task: str) -> str:
        attempt = 0
        while True:
            try:
                return await self._once(payload, task)
            except LlmError as exc:
                if not exc.transient or attempt >= self._retries:
                    raise
            await asyncio.sleep(self._backoff * 2**attempt * (0.5 + random.random()))
            attempt += 1

    async def _once(self, payload: bytes, task: str) -> str:
        session = self._session_for_loop()
        started = time.perf_counter()
        outcome = "error"
        try:
            async with session.post(self._url, data=payload, headers=self._headers) as response:
                raw = await response.read()
                if response.status == 429 or response.status >= 500:
                    outcome = f"http_{response.status // 100}xx"
                    raise LlmError(f"HTTP {response.status}", transient=True)
                if response.status != 200:
                    outcome = "http_4xx"
                    log.debug("LLM refused the request: %r", raw[:500])  # may quote the prompt
                    raise LlmError(
                        f"HTTP {response.status}{_error_kind(raw)}",
                        transient=False,
                        refused_format=response.status == 400 and _about_format(raw),
                    )
            text, usage = _first_choice(raw)
            outcome = "ok"
            for kind, tokens in usage.items():
                metrics.LLM_TOKENS.labels(self.role, task, kind).inc(tokens)
            return text
        except TimeoutError as exc:
            outcome = "timeout"
            raise LlmError("timed out", transient=True) from exc
        except aiohttp.ClientError as exc:
            outcome = "connection"
            raise LlmError(f"{type(exc).__name__}: {exc}", transient=True) from exc
        finally:
            elapsed = time.perf_counter() - started
            metrics.LLM_SECONDS.labels(self.role, task, outcome).observe(elapsed)

    def _session_for_loop(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self._model.llm_timeout_seconds),
                connector=aiohttp.TCPConnector(limit=16, keepalive_timeout=60),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def _error_kind(error: bytes) -> str:
    """The error's type and code (OpenAI's error object), never its message: a server may quote
    the prompt, i.e. the user's words, in it."""
    try:
        detail = orjson.loads(error)["error"]
        kind = [str(detail[k])[:40] for k in ("type", "code") if detail.get(k)]
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        return ""
    return f" ({', '.join(kind)})" if kind else ""


def _about_format(error: bytes) -> bool:
    """A 400 that names the response format (OpenAI, vLLM, llama.cpp all do)."""
    text = error.lower()
    return any(word in text for word in (b"response_format", b"json_schema", b"schema", b"grammar"))


def _first_choice(raw: bytes) -> tuple[str, dict[str, int]]:
    """The first choice's text, and the tokens the endpoint says it used."""
    try:
        data = orjson.loads(raw)
        content = data["choices"][0]["message"]["content"]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
        raise LlmError("not a chat completion", transient=False) from exc
    if not isinstance(content, str):
        raise LlmError("no text in the completion", transient=False)
    return content, _usage(data)


def _usage(data: dict[str, Any]) -> dict[str, int]:
    """OpenAI's usage (cached prompt tokens in prompt_tokens_details), or llama.cpp's timings
    (cache_n: prompt tokens reused from its cache)."""
    usage = _mapping(data.get("usage"))
    details = _mapping(usage.get("prompt_tokens_details"))
    timings = _mapping(data.get("timings"))
    found = {
        "prompt": usage.get("prompt_tokens"),
        "completion": usage.get("completion_tokens"),
        "cached_prompt": details.get("cached_tokens", timings.get("cache_n")),
    }
    return {k: v for k, v in found.items() if isinstance(v, int) and v >= 0}


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
