"""A small OpenAI-compatible server: the only stand-in in the stack.

It records every request exactly as received (so tests can see what the processor injected),
answers Chat Completions and Responses API calls as JSON or SSE, and follows a script when a test
gives one. In demo mode (`make run` without LLM_BASE_URL) it says which memories it was given.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from devstack.aio_server import serve
from memory_extproc.words import sentences

_MEMORY_BLOCK = re.compile(r"<user_memories>(.*?)</user_memories>", re.DOTALL)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None


@dataclass
class Reply:
    """What to answer to one request. Unset fields follow the request (stream or not)."""

    text: str | None = None
    status: int = 200
    body: bytes | None = None  # exact bytes instead of a generated answer
    content_type: str | None = None
    chunks: list[bytes] | None = None  # exact SSE chunks instead of generated events
    release: asyncio.Event | None = None  # hold the answer (SSE: after its first chunk) until set
    headers: dict[str, str] = field(default_factory=dict)


def memory_lines(request_json: Any) -> list[str]:
    """The memory bullets the processor injected into a recorded request, if any."""
    lines: list[str] = []
    for text in _strings(request_json):
        for block in _MEMORY_BLOCK.findall(text):
            lines.extend(line[2:] for line in block.splitlines() if line.startswith("- "))
    return lines


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


ModelHandler = Callable[[dict[str, Any]], Reply | Awaitable[Reply]]


class MockLLM:
    def __init__(self, *, demo: bool = False) -> None:
        self.demo = demo
        self.recorded: list[Recorded] = []
        self._script: deque[Reply] = deque()
        self._models: dict[str, ModelHandler] = {}
        self._runner: web.AppRunner | None = None
        self.port = 0

    def script(self, *replies: Reply) -> None:
        self._script.extend(replies)

    def on_model(self, model: str, handler: ModelHandler | None) -> None:
        """Requests naming ``model`` are answered by ``handler`` (the memory models in tests)."""
        if handler is None:
            self._models.pop(model, None)
        else:
            self._models[model] = handler

    def for_model(self, model: str) -> list[Recorded]:
        return [
            r for r in self.recorded if isinstance(r.json, dict) and r.json.get("model") == model
        ]

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner, self.port = await serve(app, host, port)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        record = Recorded(
            request.method, request.path, {k.lower(): v for k, v in request.headers.items()}, body
        )
        self.recorded.append(record)
        payload = record.json if isinstance(record.json, dict) else {}
        handler = self._models.get(str(payload.get("model", "")))
        if handler is not None:
            produced = handler(payload)
            reply = await produced if inspect.isawaitable(produced) else produced
        else:
            reply = self._script.popleft() if self._script else Reply()
        if request.path.endswith("/models"):
            return web.json_response(
                {
                    "object": "list",
                    "data": [{"id": m, "object": "model"} for m in ["mock", *self._models]],
                }
            )
        if reply.release is not None and payload.get("stream") is not True:
            await reply.release.wait()  # a slow (or hung) model
        if reply.body is not None or reply.status >= 400:
            return web.Response(
                status=reply.status,
                body=reply.body if reply.body is not None else b'{"error":{"message":"scripted"}}',
                content_type=reply.content_type or "application/json",
                headers=reply.headers,
            )
        text = reply.text if reply.text is not None else self._answer(payload)
        responses_api = request.path.endswith("/responses")
        if reply.chunks is not None or payload.get("stream") is True:
            chunks = reply.chunks or (
                responses_events(text) if responses_api else chat_events(text)
            )
            return await self._stream(request, reply, chunks)
        answer = responses_json(text) if responses_api else chat_json(text)
        return web.json_response(answer, status=reply.status, headers=reply.headers)

    async def _stream(
        self, request: web.Request, reply: Reply, chunks: list[bytes]
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            status=reply.status,
            headers={"content-type": reply.content_type or "text/event-stream", **reply.headers},
        )
        await response.prepare(request)
        for i, chunk in enumerate(chunks):
            await response.write(chunk)
            if i == 0 and reply.release is not None:
                await reply.release.wait()
        await response.write_eof()
        return response

    def _answer(self, payload: dict[str, Any]) -> str:
        if not self.demo:
            return "ok"
        memories = memory_lines(payload)
        if not memories:
            return "(demo LLM) I was given no memories for this request."
        listed = "\n".join(f"- {m}" for m in memories)
        counted = "1 memory" if len(memories) == 1 else f"{len(memories)} memories"
        return f"(demo LLM) I was given {counted}:\n{listed}"


def chat_json(text: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "mock",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _pieces(text: str, n: int = 3) -> list[str]:
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return head.encode() + b"data: " + orjson.dumps(data) + b"\n\n"


def chat_events(text: str) -> list[bytes]:
    base = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse({**base, "choices": [choice]})

    return [
        chunk({"role": "assistant", "content": ""}),
        *(chunk({"content": piece}) for piece in _pieces(text)),
        chunk({}, "stop"),
        b"data: [DONE]\n\n",
    ]


def responses_json(text: str) -> dict[str, Any]:
    return {
        "id": f"resp_{uuid.uuid4().hex[:12]}",
        "object": "response",
        "created_at": int(time.time()),
        "model": "mock",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_mock",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
    }


def responses_events(text: str) -> list[bytes]:
    done = responses_json(text)
    created = {**done, "status": "in_progress", "output": []}
    events = [_sse({"type": "response.created", "response": created}, "response.created")]
    for piece in _pieces(text):
        delta = {"type": "response.output_text.delta", "item_id": "msg_mock", "delta": piece}
        events.append(_sse(delta, "response.output_text.delta"))
    events.append(_sse({"type": "response.completed", "response": done}, "response.completed"))
    return events


def statement_extractor(payload: dict[str, Any]) -> Reply:
    """A synthetic extraction model for load tests: each sentence of a user line that starts
    with "My " or "I " becomes one fact; "is the old fact still true?" gets yes."""
    if "still_true" in payload["messages"][0]["content"]:
        return Reply(text='{"still_true": true}')
    lines = payload["messages"][-1]["content"].splitlines()
    facts = [
        {"type": "semantic", "content": "User said: " + sentence}
        for line in lines
        if line.startswith("user: ")
        for sentence in sentences(line[6:])
        if sentence.startswith(("My ", "I "))
    ]
    return Reply(text=orjson.dumps({"facts": facts}).decode())
