"""An OpenAI-compatible /v1/chat/completions client for the memory models (async, keep-alive).

Transient failures (connection errors, timeouts, 429, 5xx) are retried with exponential backoff
and jitter; anything else fails at once. The caller's job timeout bounds the whole thing.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import aiohttp
import orjson

from memory_extproc import metrics
from memory_extproc.config import ExternalModel


class LlmError(RuntimeError):
    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


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

    async def complete(self, messages: list[dict[str, str]], *, json_mode: bool = True) -> str:
        """The first choice's text."""
        body: dict[str, Any] = {
            "model": self._model.llm_model_name,
            "messages": messages,
            "max_tokens": self._model.max_tokens,
            "temperature": self._model.temperature,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        payload = orjson.dumps(body)
        attempt = 0
        while True:
            try:
                return await self._once(payload)
            except LlmError as exc:
                if not exc.transient or attempt >= self._retries:
                    raise
            await asyncio.sleep(self._backoff * 2**attempt * (0.5 + random.random()))
            attempt += 1

    async def _once(self, payload: bytes) -> str:
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
                    raise LlmError(f"HTTP {response.status}: {raw[:200]!r}", transient=False)
            text = _first_choice(raw)
            outcome = "ok"
            return text
        except TimeoutError as exc:
            outcome = "timeout"
            raise LlmError("timed out", transient=True) from exc
        except aiohttp.ClientError as exc:
            outcome = "connection"
            raise LlmError(f"{type(exc).__name__}: {exc}", transient=True) from exc
        finally:
            metrics.LLM_SECONDS.labels(self.role, outcome).observe(time.perf_counter() - started)

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


def _first_choice(raw: bytes) -> str:
    try:
        data = orjson.loads(raw)
        content = data["choices"][0]["message"]["content"]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
        raise LlmError("not a chat completion", transient=False) from exc
    if not isinstance(content, str):
        raise LlmError("no text in the completion", transient=False)
    return content
