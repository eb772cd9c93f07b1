"""Chat Completions and Responses API requests: what the user asked, and the rewritten body.

Pure functions on bytes and plain data. Identity is never read from the body: the non-standard
``memory_context`` field is removed before forwarding and otherwise ignored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeGuard

import orjson

from memory_extproc.llm_api import json_splice
from memory_extproc.store.model import MemoryType

MEMORY_FIELDS = ("memory_config", "memory_context")


class Api(StrEnum):
    CHAT_COMPLETIONS = "chat_completions"
    RESPONSES = "responses"


class InvalidRequestBody(ValueError):
    """Not a request we can read; it is forwarded untouched and the LLM answers it."""


@dataclass(frozen=True, slots=True)
class Turn:
    role: str  # system, developer, user, assistant, tool
    text: str


@dataclass(frozen=True, slots=True)
class MemoryOptions:
    """Per-request ``memory_config``. Each value can only narrow what the operator allows."""

    enabled: bool | None = None
    auto_store: bool | None = None
    retrieval_limit: int | None = None
    similarity_threshold: float | None = None
    memory_types: tuple[MemoryType, ...] | None = None
    compress: bool | None = None  # a long conversation sent shorter (compression/plan.py)


@dataclass(frozen=True, slots=True)
class ChatRequest:
    api: Api
    body: dict[str, Any]  # the parsed body, memory fields already removed
    model: str
    turns: tuple[Turn, ...]
    stream: bool
    options: MemoryOptions
    had_memory_fields: bool
    previous_response_id: str = ""
    raw: bytes = b""  # the body as the client sent it: edits are spliced into these bytes

    @property
    def query(self) -> str:
        """The latest user message: what retrieval searches for."""
        for turn in reversed(self.turns):
            if turn.role == "user":
                return turn.text
        return ""

    @property
    def earlier_user_messages(self) -> list[str]:
        users = [t.text for t in self.turns if t.role == "user" and t.text]
        return users[:-1]

    @property
    def ends_with_tool_output(self) -> bool:
        """The request carries a tool result back to the model: a tool loop, not a user turn."""
        return bool(self.turns) and self.turns[-1].role == "tool"


def parse_request(api: Api, raw: bytes) -> ChatRequest:
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequestBody("body is not valid JSON") from exc
    if not isinstance(body, dict):
        raise InvalidRequestBody("body is not a JSON object")
    had_memory_fields = any(k in body for k in MEMORY_FIELDS)
    options = _memory_options(body.get("memory_config"))
    for key in MEMORY_FIELDS:
        body.pop(key, None)
    turns = _chat_turns(body) if api is Api.CHAT_COMPLETIONS else _responses_turns(body)
    model = body.get("model")
    previous = body.get("previous_response_id")
    return ChatRequest(
        api=api,
        body=body,
        model=model if isinstance(model, str) else "",
        turns=tuple(turns),
        stream=body.get("stream") is True,
        options=options,
        had_memory_fields=had_memory_fields,
        previous_response_id=previous if isinstance(previous, str) else "",
        raw=raw,
    )


def with_memory_context(
    request: ChatRequest,
    context: str,
    *,
    replaced: Sequence[tuple[int, int]] = (),
    summary: str = "",
) -> bytes:
    """The body with the memory context added (one system message, or Responses instructions),
    the ``replaced`` ranges of its conversation (``conversation_items``) replaced by one system
    message holding ``summary`` (a compressed request), and the memory fields removed; every
    other byte as the client sent it.

    The memory message goes after the operator's leading system/developer messages, so their
    prompt keeps its place and the conversation follows unchanged. Raises SpliceError when the
    body cannot be edited exactly (the caller forwards it unchanged).
    """
    raw, body = request.raw, request.body
    top = json_splice.root(raw, descend=True)
    doomed = _memory_members(top)
    edits = json_splice.removals(top.children, doomed)
    items = conversation_items(request)
    name = "messages" if request.api is Api.CHAT_COMPLETIONS else "input"
    array = None
    if request.api is Api.CHAT_COMPLETIONS or replaced:
        at = _member(top, name).value_start
        array = top.inner.get(at) or json_splice.container(raw, at)
        if len(array.children) != len(items):
            raise json_splice.SpliceError(f"{name} read differently")
    if replaced and array is not None:
        edits += _replacements(array, replaced, {"role": "system", "content": summary})
    if context and request.api is Api.CHAT_COMPLETIONS:
        at = 0
        while at < len(items) and _role(items[at]) in ("system", "developer"):
            at += 1
        if array is None:
            raise json_splice.SpliceError("messages read differently")
        message = orjson.dumps({"role": "system", "content": context})
        edits.append(json_splice.insertion(array, at, message))
    elif context:
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise json_splice.SpliceError("instructions is not a string: kept as sent")
        if instructions and instructions.strip():
            context = f"{instructions}\n\n{context}"
        value = orjson.dumps(context)
        try:
            member = _member(top, "instructions")
        except KeyError:
            comma = b"," if len(top.children) > len(doomed) else b""
            opening = top.open + 1
            edits.append((opening, opening, b'"instructions":' + value + comma))
        else:
            edits.append((member.value_start, member.value_end, value))
    return json_splice.apply(raw, edits)


def conversation_items(request: ChatRequest) -> list[Any]:
    """The conversation's elements as sent: ``messages``, or a Responses ``input`` list (a
    string input has none)."""
    key = "messages" if request.api is Api.CHAT_COMPLETIONS else "input"
    items = request.body.get(key)
    return items if isinstance(items, list) else []


def _replacements(
    array: json_splice.Container, runs: Sequence[tuple[int, int]], message: dict[str, str]
) -> list[tuple[int, int, bytes]]:
    """The first run replaced by ``message``, the others removed; each run is followed by a
    kept element (a compressed request keeps its last turns)."""
    items = array.children
    edits = []
    for number, (start, end) in enumerate(runs):
        if not 0 <= start < end < len(items):
            raise json_splice.SpliceError("a replaced range must be followed by a kept element")
        element = orjson.dumps(message) + b"," if number == 0 else b""
        edits.append((items[start].value_start, items[end].value_start, element))
    return edits


def without_memory_fields(request: ChatRequest) -> bytes:
    """The body minus ``memory_config`` / ``memory_context``, every other byte unchanged."""
    top = json_splice.root(request.raw)
    return json_splice.apply(request.raw, json_splice.removals(top.children, _memory_members(top)))


def _key(child: json_splice.Child) -> str:
    key = orjson.loads(child.key or b'""')  # "mem\u006fry_config" is memory_config too
    return key if isinstance(key, str) else ""


def _memory_members(top: json_splice.Container) -> set[int]:
    return {i for i, child in enumerate(top.children) if _key(child) in MEMORY_FIELDS}


def _member(top: json_splice.Container, name: str) -> json_splice.Child:
    """The last member of that name: the one a JSON parser keeps."""
    for child in reversed(top.children):
        if _key(child) == name:
            return child
    raise KeyError(name)


def _role(message: Any) -> str:
    role = message.get("role", "") if isinstance(message, dict) else ""
    return role if isinstance(role, str) else ""


def message_text(content: Any) -> str:
    """Text of a message content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def _chat_turns(body: dict[str, Any]) -> list[Turn]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise InvalidRequestBody("messages is not a list")
    turns = []
    for message in messages:
        role = _role(message)
        if role == "function":
            role = "tool"
        if role:
            turns.append(Turn(role, message_text(message.get("content"))))
    return turns


def _responses_turns(body: dict[str, Any]) -> list[Turn]:
    items = body.get("input")
    if isinstance(items, str):
        return [Turn("user", items)]
    if not isinstance(items, list):
        raise InvalidRequestBody("input is neither a string nor a list")
    turns = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and isinstance(item.get("role"), str):
            turns.append(Turn(item["role"], message_text(item.get("content"))))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            turns.append(Turn("tool", message_text(item.get("output"))))
        elif kind in ("function_call", "custom_tool_call"):
            turns.append(Turn("assistant", ""))
    return turns


def _memory_options(config: Any) -> MemoryOptions:
    """Read ``memory_config`` leniently: a value of the wrong type is ignored, not fatal."""
    if not isinstance(config, dict):
        return MemoryOptions()
    limit = config.get("retrieval_limit")
    threshold = config.get("similarity_threshold")
    types = config.get("memory_types")
    return MemoryOptions(
        enabled=_bool(config.get("enabled")),
        auto_store=_bool(config.get("auto_store")),
        retrieval_limit=limit if _is_int(limit) and limit >= 0 else None,
        similarity_threshold=(
            float(threshold)
            if isinstance(threshold, int | float)
            and not isinstance(threshold, bool)
            and math.isfinite(threshold)
            else None
        ),
        memory_types=_memory_types(types),
        compress=_bool(config.get("compress")),
    )


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _memory_types(value: Any) -> tuple[MemoryType, ...] | None:
    if not isinstance(value, list):
        return None
    known = {t.value for t in MemoryType}
    return tuple(MemoryType(v) for v in value if isinstance(v, str) and v in known)
