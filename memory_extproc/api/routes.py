"""/v1/memory requests → typed calls, or a 4xx ApiError saying exactly what is wrong.

Pure: method, path, query string and body bytes in; no store, no I/O. The user is never read from
here: it is the authenticated one, passed separately by the ext_proc edge.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote

import orjson

from memory_extproc import tracing
from memory_extproc.memories.preferences import kind_said
from memory_extproc.receipts import is_receipt_id
from memory_extproc.store.model import (
    MAX_CONTENT_CHARS,
    InvalidScopeError,
    MemoryType,
    is_memory_id,
    validate_scope_value,
)

PREFIX = "/v1/memory"
MAX_BODY_BYTES = 64 * 1024
MAX_PAGE = 100
DEFAULT_PAGE = 20
MAX_SEARCH_LIMIT = 50
MAX_QUERY_CHARS = 2000


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def bad_request(message: str) -> ApiError:
    return ApiError(400, "invalid_request", message)


@dataclass(frozen=True, slots=True)
class Cursor:
    """Position after the last memory of a page (newest first: created_at, then id, descending)."""

    created_at: int
    memory_id: str

    def encode(self) -> str:
        raw = f"{self.created_at}:{self.memory_id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, token: str) -> Cursor:
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
            created, memory_id = raw.split(":", 1)
            cursor = cls(int(created), memory_id)
        except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
            raise bad_request("cursor is not one this API returned") from exc
        if not is_memory_id(memory_id) or cursor.created_at < 0:
            raise bad_request("cursor is not one this API returned")
        return cursor


@dataclass(frozen=True, slots=True)
class ListMemories:
    limit: int = DEFAULT_PAGE
    cursor: Cursor | None = None
    types: tuple[MemoryType, ...] = ()
    project_id: str | None = None
    pending: bool = False  # ?status=pending: those held for review


@dataclass(frozen=True, slots=True)
class GetMemory:
    memory_id: str


@dataclass(frozen=True, slots=True)
class GetHistory:
    memory_id: str


@dataclass(frozen=True, slots=True)
class AddMemory:
    content: str
    type: MemoryType = MemoryType.SEMANTIC  # unless given: a preference when it states one
    project_id: str | None = None  # None: the authenticated project


@dataclass(frozen=True, slots=True)
class SearchMemories:
    query: str
    limit: int = 5
    threshold: float | None = None  # None: the configured default
    types: tuple[MemoryType, ...] = ()
    project_id: str | None = None


@dataclass(frozen=True, slots=True)
class UpdateMemory:
    """PUT (content required) and PATCH (at least one field)."""

    memory_id: str
    content: str | None = None
    type: MemoryType | None = None


@dataclass(frozen=True, slots=True)
class DeleteMemory:
    memory_id: str


@dataclass(frozen=True, slots=True)
class Review:
    """A memory held for review, confirmed (it becomes current) or rejected (it is deleted)."""

    memory_id: str
    confirmed: bool


@dataclass(frozen=True, slots=True)
class DeleteScope:
    project_id: str | None  # None: everything of the user


@dataclass(frozen=True, slots=True)
class GetReceipt:
    receipt_id: str


@dataclass(frozen=True, slots=True)
class Conversation:
    """What compression keeps of one conversation: shown, or deleted."""

    conversation_id: str
    delete: bool


Call = (
    ListMemories
    | GetMemory
    | GetHistory
    | AddMemory
    | SearchMemories
    | UpdateMemory
    | DeleteMemory
    | Review
    | DeleteScope
    | GetReceipt
    | Conversation
)

_CONVERSATION_ID = re.compile("[0-9a-f]{32}")

# method, path template: documented in openapi/memory-api.yaml (a test keeps them equal)
ROUTES = frozenset(
    {
        ("GET", PREFIX),
        ("POST", PREFIX),
        ("DELETE", PREFIX),
        ("POST", PREFIX + "/search"),
        ("GET", PREFIX + "/{id}"),
        ("PUT", PREFIX + "/{id}"),
        ("PATCH", PREFIX + "/{id}"),
        ("DELETE", PREFIX + "/{id}"),
        ("GET", PREFIX + "/{id}/history"),
        ("POST", PREFIX + "/{id}/confirm"),
        ("POST", PREFIX + "/{id}/reject"),
        ("GET", PREFIX + "/receipts/{id}"),
        ("GET", PREFIX + "/conversations/{id}"),
        ("DELETE", PREFIX + "/conversations/{id}"),
    }
)


def request_path(raw: str) -> str:
    """The path a router would match: percent-escapes decoded, repeated slashes merged, dot
    segments resolved. ``//v1/memory`` or ``/v1/%6Demory`` must reach the memory API, never the
    LLM (whose server may read them as /v1/memory and log the body)."""
    return posixpath.normpath("/" + re.sub("/+", "/", unquote(raw)).lstrip("/"))


def is_api_path(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


def parse_call(method: str, path: str, query: str, body: bytes) -> Call:
    template, memory_id = _template(path)
    if template is None:
        raise ApiError(404, "not_found", f"no such endpoint: {path[:100]}")
    if (method, template) not in ROUTES:
        allowed = sorted(m for m, t in ROUTES if t == template)
        raise ApiError(405, "method_not_allowed", f"{method} not allowed here; use {allowed}")
    if len(body) > MAX_BODY_BYTES:
        raise ApiError(413, "payload_too_large", f"body is larger than {MAX_BODY_BYTES} bytes")
    params = _query(query)
    if template == PREFIX:
        if method == "GET":
            return _list(params)
        if method == "POST":
            _no_params(params)
            return _add(_json_object(body))
        return _delete_scope(params)
    if template == PREFIX + "/search":
        _no_params(params)
        return _search(_json_object(body))
    _no_params(params)
    if template == PREFIX + "/receipts/{id}":
        if memory_id is None or not is_receipt_id(memory_id):
            raise bad_request("receipt id must look like rcpt_ followed by 32 hex digits")
        return GetReceipt(memory_id)
    if template == PREFIX + "/conversations/{id}":
        if memory_id is None or not _CONVERSATION_ID.fullmatch(memory_id):
            raise bad_request("conversation id must be 32 hex digits (x-memory-receipt names it)")
        return Conversation(memory_id, delete=method == "DELETE")
    if memory_id is None or not is_memory_id(memory_id):
        raise bad_request("memory id must look like mem_ followed by 32 hex digits")
    if template.endswith("/history"):
        return GetHistory(memory_id)
    if template.endswith(("/confirm", "/reject")):
        return Review(memory_id, confirmed=template.endswith("/confirm"))
    if method == "GET":
        return GetMemory(memory_id)
    if method == "DELETE":
        return DeleteMemory(memory_id)
    return _update(memory_id, _json_object(body), require_content=method == "PUT")


# what each route does to memories, in OpenTelemetry's GenAI names (a listing or a read by id
# is a query of the store too)
_OPERATIONS = {
    ("GET", PREFIX): tracing.SEARCH_MEMORY,
    ("POST", PREFIX): tracing.CREATE_MEMORY,
    ("DELETE", PREFIX): tracing.DELETE_MEMORY,
    ("POST", PREFIX + "/search"): tracing.SEARCH_MEMORY,
    ("GET", PREFIX + "/{id}"): tracing.SEARCH_MEMORY,
    ("PUT", PREFIX + "/{id}"): tracing.UPDATE_MEMORY,
    ("PATCH", PREFIX + "/{id}"): tracing.UPDATE_MEMORY,
    ("DELETE", PREFIX + "/{id}"): tracing.DELETE_MEMORY,
    ("GET", PREFIX + "/{id}/history"): tracing.SEARCH_MEMORY,
    ("POST", PREFIX + "/{id}/confirm"): tracing.UPDATE_MEMORY,
    ("POST", PREFIX + "/{id}/reject"): tracing.DELETE_MEMORY,
    ("DELETE", PREFIX + "/conversations/{id}"): tracing.DELETE_MEMORY,
}


def operation_of(method: str, path: str) -> str | None:
    """The GenAI memory operation a call is (None: not a route of ours)."""
    return _OPERATIONS.get((method, route_of(path)))


def route_of(path: str) -> str:
    """The route a path matches ("/v1/memory/{id}"), or "unknown": never an id or a client's
    stray text (for spans)."""
    return _template(path)[0] or "unknown"


def _template(path: str) -> tuple[str | None, str | None]:
    path = path.rstrip("/") or "/"
    if path == PREFIX:
        return PREFIX, None
    rest = path[len(PREFIX) + 1 :] if path.startswith(PREFIX + "/") else None
    if rest is None or not rest:
        return None, None
    if rest == "search":
        return PREFIX + "/search", None
    memory_id, _, sub = rest.partition("/")
    if memory_id == "receipts" and sub:
        return PREFIX + "/receipts/{id}", sub
    if memory_id == "conversations" and sub:
        return PREFIX + "/conversations/{id}", sub
    if not sub:
        return PREFIX + "/{id}", memory_id
    if sub in ("history", "confirm", "reject"):
        return PREFIX + "/{id}/" + sub, memory_id
    return None, None


def _query(query: str) -> dict[str, str]:
    try:
        parsed = parse_qs(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError as exc:
        raise bad_request("malformed query string") from exc
    repeated = [k for k, v in parsed.items() if len(v) > 1]
    if repeated:
        raise bad_request(f"query parameter given more than once: {repeated[0]}")
    return {k: v[0] for k, v in parsed.items()}


def _no_params(params: dict[str, str]) -> None:
    if params:
        raise bad_request(f"unknown query parameter: {sorted(params)[0]}")


def _check_keys(params: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise bad_request(f"unknown {where}: {unknown[0]} (allowed: {sorted(allowed)})")


def _list(params: dict[str, str]) -> ListMemories:
    _check_keys(params, {"limit", "cursor", "type", "project_id", "status"}, "query parameter")
    if params.get("status", "active") not in ("active", "pending"):
        raise bad_request("status must be active (the default) or pending (held for review)")
    limit = DEFAULT_PAGE
    if "limit" in params:
        raw = params["limit"]  # isdigit alone accepts "²", which int() refuses
        if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_PAGE:
            raise bad_request(f"limit must be an integer from 1 to {MAX_PAGE}")
        limit = int(params["limit"])
    types = _types(params["type"].split(",")) if "type" in params else ()
    cursor = Cursor.decode(params["cursor"]) if params.get("cursor") else None
    project = _project(params["project_id"]) if "project_id" in params else None
    pending = params.get("status") == "pending"
    return ListMemories(
        limit=limit, cursor=cursor, types=types, project_id=project, pending=pending
    )


def _delete_scope(params: dict[str, str]) -> DeleteScope:
    _check_keys(params, {"scope", "project_id"}, "query parameter")
    if "project_id" in params and "scope" not in params:
        return DeleteScope(_project(params["project_id"]))
    if params.get("scope") == "user" and "project_id" not in params:
        return DeleteScope(None)
    raise bad_request("say what to forget: ?scope=user (everything) or ?project_id=… (one project)")


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        data = orjson.loads(body) if body else None
    except orjson.JSONDecodeError as exc:
        raise bad_request(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise bad_request("body must be a JSON object")
    return data


def _add(data: dict[str, Any]) -> AddMemory:
    _check_keys(data, {"content", "type", "project_id"}, "field")
    if "content" not in data:
        raise bad_request("content is required")
    project = _project(_string(data, "project_id")) if "project_id" in data else None
    return AddMemory(
        content=_content(data["content"]),
        type=_types([_string(data, "type")])[0] if "type" in data else kind_said(data["content"]),
        project_id=project,
    )


def _search(data: dict[str, Any]) -> SearchMemories:
    _check_keys(data, {"query", "limit", "threshold", "type", "project_id"}, "field")
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise bad_request("query is required and must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise bad_request(f"query is longer than {MAX_QUERY_CHARS} characters")
    limit = data.get("limit", 5)
    if type(limit) is not int or not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise bad_request(f"limit must be an integer from 1 to {MAX_SEARCH_LIMIT}")
    threshold = data.get("threshold")
    if threshold is not None and (
        type(threshold) not in (int, float) or not -1.0 <= threshold <= 1.0
    ):
        raise bad_request("threshold must be a number from -1 to 1")
    types = data.get("type", [])
    if isinstance(types, str):
        types = [types]
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise bad_request("type must be a memory type or a list of them")
    project = _project(_string(data, "project_id")) if "project_id" in data else None
    return SearchMemories(
        query=query.strip(),
        limit=limit,
        threshold=None if threshold is None else float(threshold),
        types=_types(types),
        project_id=project,
    )


def _update(memory_id: str, data: dict[str, Any], *, require_content: bool) -> UpdateMemory:
    _check_keys(data, {"content", "type"}, "field")
    if require_content and "content" not in data:
        raise bad_request("content is required (PATCH changes single fields)")
    if not data:
        raise bad_request("nothing to change: give content and/or type")
    return UpdateMemory(
        memory_id=memory_id,
        content=_content(data["content"]) if "content" in data else None,
        type=_types([_string(data, "type")])[0] if "type" in data else None,
    )


def _string(data: dict[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise bad_request(f"{key} must be a string")
    return value


def _content(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad_request("content must be a non-empty string")
    content = value.strip()
    if len(content) > MAX_CONTENT_CHARS:
        raise bad_request(f"content is longer than {MAX_CONTENT_CHARS} characters")
    return content


def _types(values: list[str]) -> tuple[MemoryType, ...]:
    try:
        return tuple(dict.fromkeys(MemoryType(v.strip()) for v in values))
    except ValueError as exc:
        allowed = ", ".join(t.value for t in MemoryType)
        raise bad_request(f"unknown memory type (allowed: {allowed})") from exc


def _project(value: str) -> str:
    if value == "":
        return ""  # memories outside any project
    try:
        return validate_scope_value(value, "project_id")
    except InvalidScopeError as exc:
        raise bad_request(str(exc)) from exc
