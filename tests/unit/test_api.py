"""The memory API's pure routing and its service on the in-memory store; the contract with
openapi/memory-api.yaml."""

from __future__ import annotations

import asyncio

import numpy as np
import orjson
import pytest

from memory_extproc import words
from memory_extproc.api.routes import (
    ROUTES,
    AddMemory,
    ApiError,
    Cursor,
    DeleteMemory,
    DeleteScope,
    GetHistory,
    GetMemory,
    ListMemories,
    SearchMemories,
    UpdateMemory,
    is_api_path,
    operation_of,
    parse_call,
    request_path,
    route_of,
)
from memory_extproc.api.service import MemoryApi
from memory_extproc.embedding import EmbeddingBatcher
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.memories.changes import compare
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.store import model
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import MemoryType
from tests.openapi_contract import check_request, check_response, operations

# fixed, not drawn: every pytest-xdist worker must collect the same test ids
MID = "mem_0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def test_the_openapi_document_describes_exactly_the_routes_served() -> None:
    assert operations() == set(ROUTES)


def test_the_openapi_document_is_valid_openapi() -> None:
    from openapi_spec_validator import validate

    from tests.openapi_contract import document

    validate(document())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "call"),
    [
        ("GET", "/v1/memory", "", b"", ListMemories()),
        ("GET", "/v1/memory/", "limit=5&type=episodic,semantic", b"",
         ListMemories(limit=5, types=(MemoryType.EPISODIC, MemoryType.SEMANTIC))),
        ("GET", "/v1/memory", "project_id=", b"", ListMemories(project_id="")),
        ("GET", f"/v1/memory/{MID}", "", b"", GetMemory(MID)),
        ("GET", f"/v1/memory/{MID}/history", "", b"", GetHistory(MID)),
        ("POST", "/v1/memory", "", b'{"content": " hi there "}', AddMemory("hi there")),
        # no type given: a preference when it states one, else a fact
        ("POST", "/v1/memory", "", b'{"content": "I am vegetarian"}',
         AddMemory("I am vegetarian", MemoryType.PREFERENCE)),
        ("POST", "/v1/memory", "", b'{"content": "I am vegetarian", "type": "semantic"}',
         AddMemory("I am vegetarian", MemoryType.SEMANTIC)),
        ("POST", "/v1/memory", "", b'{"content": "x", "type": "procedural", "project_id": "p"}',
         AddMemory("x", MemoryType.PROCEDURAL, "p")),
        ("POST", "/v1/memory/search", "", b'{"query": "q", "type": "episodic", "threshold": 0}',
         SearchMemories("q", threshold=0.0, types=(MemoryType.EPISODIC,))),
        ("PUT", f"/v1/memory/{MID}", "", b'{"content": "new"}', UpdateMemory(MID, "new")),
        ("PATCH", f"/v1/memory/{MID}", "", b'{"type": "episodic"}',
         UpdateMemory(MID, type=MemoryType.EPISODIC)),
        ("DELETE", f"/v1/memory/{MID}", "", b"", DeleteMemory(MID)),
        ("DELETE", "/v1/memory", "scope=user", b"", DeleteScope(None)),
        ("DELETE", "/v1/memory", "project_id=work", b"", DeleteScope("work")),
    ],
)  # fmt: skip
def test_calls(method: str, path: str, query: str, body: bytes, call: object) -> None:
    assert parse_call(method, path, query, body) == call
    if body:
        check_request(method, path.rstrip("/"), orjson.loads(body))  # the doc accepts it too


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "status", "says"),
    [
        ("GET", "/v1/memory/a/b", "", b"", 404, "no such endpoint"),
        ("GET", f"/v1/memory/{MID}/history/x", "", b"", 404, "no such endpoint"),
        ("DELETE", f"/v1/memory/{MID}/history", "", b"", 405, "not allowed"),
        ("PUT", "/v1/memory", "", b"{}", 405, "not allowed"),
        ("POST", "/v1/memory", "", b"{", 400, "not valid JSON"),
        ("POST", "/v1/memory", "", b"null", 400, "JSON object"),
        ("POST", "/v1/memory", "", b'{"type": "semantic"}', 400, "content is required"),
        ("POST", "/v1/memory", "", b'{"content": "x", "user_id": "bob"}', 400, "unknown field"),
        ("POST", "/v1/memory", "", b'{"content": "   "}', 400, "non-empty"),
        ("POST", "/v1/memory", "", b'{"content": "x", "project_id": "a\\u0000b"}', 400,
         "control characters"),
        ("POST", "/v1/memory", "", b"x" * 70_000, 413, "larger than"),
        ("POST", "/v1/memory/search", "", b'{"query": "q", "limit": true}', 400, "limit"),
        ("POST", "/v1/memory/search", "", b'{"query": "q", "threshold": 2}', 400, "threshold"),
        ("POST", "/v1/memory/search", "", b'{"query": ""}', 400, "query is required"),
        ("GET", "/v1/memory", "limit=0", b"", 400, "limit"),
        ("GET", "/v1/memory", "limit=1&limit=2", b"", 400, "more than once"),
        ("GET", "/v1/memory", "cursor=bWVtXzE", b"", 400, "cursor"),
        ("GET", "/v1/memory", "type=secret", b"", 400, "unknown memory type"),
        ("GET", "/v1/memory/mem_XYZ", "", b"", 400, "memory id"),
        ("GET", f"/v1/memory/{MID}\n", "", b"", 400, "memory id"),  # "$" passes a final "\n"
        ("GET", f"/v1/memory/{MID}", "user_id=bob", b"", 400, "unknown query parameter"),
        ("DELETE", "/v1/memory", "", b"", 400, "scope=user"),
        ("DELETE", "/v1/memory", "scope=user&project_id=p", b"", 400, "scope=user"),
        ("PUT", f"/v1/memory/{MID}", "", b'{"type": "semantic"}', 400, "content is required"),
        ("PATCH", f"/v1/memory/{MID}", "", b"{}", 400, "nothing to change"),
    ],
)  # fmt: skip
def test_bad_calls_say_why(
    method: str, path: str, query: str, body: bytes, status: int, says: str
) -> None:
    with pytest.raises(ApiError) as error:
        parse_call(method, path, query, body)
    assert error.value.status == status
    assert says in error.value.message


def test_cursor_round_trips_and_rejects_forgeries() -> None:
    cursor = Cursor(1_700_000_000_123, MID)
    assert Cursor.decode(cursor.encode()) == cursor
    for forged in ["", "!!", Cursor(-1, MID).encode(), "MTIzOmJvYg"]:  # "123:bob"
        with pytest.raises(ApiError):
            Cursor.decode(forged)


def test_api_paths() -> None:
    assert is_api_path("/v1/memory")
    assert is_api_path(f"/v1/memory/{MID}")
    assert not is_api_path("/v1/memoryx")
    assert not is_api_path("/v1/chat/completions")


@pytest.mark.parametrize(
    "raw", ["//v1/memory", "/v1//memory/", "/v1/%6Demory", "/v1/x/../memory", "/./v1/memory"]
)
def test_look_alike_paths_are_the_memory_api(raw: str) -> None:
    assert is_api_path(request_path(raw))


def test_a_limit_of_unicode_digits_is_a_clear_400() -> None:
    with pytest.raises(ApiError) as caught:
        parse_call("GET", "/v1/memory", "limit=%C2%B2", b"")
    assert caught.value.status == 400
    assert "limit" in caught.value.message


@pytest.fixture
def api(embeddings: Embeddings) -> MemoryApi:
    store = InMemoryStore()
    batcher = embeddings
    writer = MemoryWriter(store, batcher, None)
    return MemoryApi(store, batcher, writer, default_threshold=0.6)


async def call(api: MemoryApi, method: str, path: str, body: object = None, *, user: str = "alice",
               query: str = "", project: str = "") -> tuple[int, object]:  # fmt: skip
    raw = orjson.dumps(body) if body is not None else b""
    reply = await api.respond(method, path, query, raw, user, project)
    parsed = orjson.loads(reply.body) if reply.body else None
    check_response(method, path, reply.status, parsed)
    return reply.status, parsed


async def test_service_round_trip_on_the_in_memory_store(api: MemoryApi) -> None:
    status, added = await call(api, "POST", "/v1/memory", {"content": "User likes jazz"})
    assert status == 201
    assert isinstance(added, dict)
    mid = added["id"]
    assert (await call(api, "GET", f"/v1/memory/{mid}", user="bob"))[0] == 404
    status, page = await call(api, "GET", "/v1/memory", query="limit=1")
    assert status == 200
    assert isinstance(page, dict)
    assert [m["id"] for m in page["data"]] == [mid]
    assert page["next_cursor"] is None
    assert await call(api, "GET", f"/v1/memory/{mid}/history") == (200, {"data": []})
    status, _ = await call(api, "PATCH", f"/v1/memory/{mid}", {"content": "User likes blues"})
    assert status == 200
    status, versions = await call(api, "GET", f"/v1/memory/{mid}/history")
    assert status == 200
    assert isinstance(versions, dict)
    assert [(v["content"], v["reason"]) for v in versions["data"]] == [
        ("User likes jazz", "edited")
    ]
    assert (await call(api, "GET", f"/v1/memory/{mid}/history", user="bob"))[0] == 404
    _, found = await call(api, "POST", "/v1/memory/search", {"query": "likes blues"})
    assert isinstance(found, dict)
    assert [m["content"] for m in found["data"]] == ["User likes blues"]
    assert await call(api, "DELETE", f"/v1/memory/{mid}") == (204, None)
    assert (await call(api, "DELETE", "/v1/memory", query="scope=user"))[1] == {"deleted": 0}


class HeldForgets(InMemoryStore):
    """A store whose forgets wait until released (a slow Milvus)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def forget_by_scope(self, user_id: str, project_id: str | None = None) -> int:
        self.started.set()
        await self.release.wait()
        return await super().forget_by_scope(user_id, project_id)


async def test_a_forget_whose_caller_stops_waiting_is_still_carried_through(
    embeddings: Embeddings,
) -> None:
    """A client gone or Envoy's message timeout must not leave a forget half done: the
    memories deleted but the turns pending in the processor kept."""
    store = HeldForgets()
    batcher = embeddings
    dropped: list[tuple[str, str | None]] = []
    carried_through = asyncio.Event()

    async def on_forget(user: str, project: str | None) -> None:
        dropped.append((user, project))
        carried_through.set()

    api = MemoryApi(store, batcher, MemoryWriter(store, batcher, None), default_threshold=0.6,
                    on_forget=on_forget)  # fmt: skip
    await call(api, "POST", "/v1/memory", {"content": "User likes jazz"})
    caller = asyncio.create_task(call(api, "DELETE", "/v1/memory", query="scope=user"))
    await store.started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    store.release.set()
    async with asyncio.timeout(5):
        await carried_through.wait()
    assert dropped == [("alice", None)]
    assert await store.list("alice") == []


async def test_no_user_is_401_and_store_down_is_503(api: MemoryApi, embeddings: Embeddings) -> None:
    status, error = await call(api, "GET", "/v1/memory", user="")
    assert (status, error) == (
        401,
        {
            "error": {
                "code": "unauthenticated",
                "message": "the memory API needs an authenticated user",
            }
        },
    )

    class Down(InMemoryStore):
        @property
        def available(self) -> bool:
            return False

    store = Down()
    batcher = embeddings
    down = MemoryApi(store, batcher, MemoryWriter(store, batcher, None),
                     default_threshold=0.6)  # fmt: skip
    assert (await call(down, "GET", "/v1/memory"))[0] == 503


@pytest.mark.parametrize(
    ("path", "route"),
    [
        ("/v1/memory", "/v1/memory"),
        ("/v1/memory/search", "/v1/memory/search"),
        ("/v1/memory/mem_0123456789abcdef0123456789abcdef", "/v1/memory/{id}"),
        ("/v1/memory/not-an-id-alice/history", "/v1/memory/{id}/history"),
        ("/v1/memory/alice@example.com/x/y", "unknown"),
    ],
)
def test_spans_name_the_route_never_what_the_path_holds(path: str, route: str) -> None:
    assert route_of(path) == route


@pytest.mark.parametrize(
    ("method", "path", "operation"),
    [
        ("POST", "/v1/memory", "create_memory"),
        ("POST", "/v1/memory/search", "search_memory"),
        ("GET", "/v1/memory/mem_0123456789abcdef0123456789abcdef", "search_memory"),
        ("PATCH", "/v1/memory/mem_0123456789abcdef0123456789abcdef", "update_memory"),
        ("DELETE", "/v1/memory", "delete_memory"),
        ("POST", "/v1/memory/x/y", None),
    ],
)
def test_spans_say_the_genai_memory_operation(method: str, path: str, operation: str) -> None:
    """OpenTelemetry's GenAI names for what a call does (gen_ai.operation.name)."""
    assert operation_of(method, path) == operation


class CountingEmbedder:
    """Counts the texts the model is asked to embed: a cached text is not asked again."""

    dimension = 384

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.asked += texts
        return np.full((len(texts), self.dimension), self.dimension**-0.5, dtype=np.float32)


@pytest.mark.parametrize("forget", ["one", "scope"])
async def test_a_forget_leaves_nothing_read_of_memory_texts_in_any_cache(forget: str) -> None:
    """Forget means forget, in process memory too: the vectors of texts (the embedder's cache),
    their words and comparisons (memories/changes.py) go, and the worker is told to do the
    same; what is still stored is read again."""
    model, store, told = CountingEmbedder(), InMemoryStore(), []
    batcher = Embeddings(EmbeddingBatcher(model, name="t"), EmbeddingBatcher(model, name="t_other"))
    api = MemoryApi(store, batcher, MemoryWriter(store, batcher, None), default_threshold=0.0,
                    on_texts_forgotten=lambda: told.append(forget))  # fmt: skip
    status, added = await call(api, "POST", "/v1/memory", {"content": "User likes jazz"})
    assert status == 201
    await call(api, "POST", "/v1/memory/search", {"query": "What music do I like?"})
    compare("User likes jazz a lot", "User likes jazz")  # as injection and reconciliation do
    words.terms("User likes jazz")  # as ranking does
    asked = len(model.asked)
    await batcher.query("What music do I like?")
    assert len(model.asked) == asked  # cached
    assert compare.cache_info().currsize > 0
    assert terms_cache_size() > 0

    if forget == "one":
        assert await call(api, "DELETE", f"/v1/memory/{added['id']}") == (204, None)  # type: ignore[index]
    else:
        assert await call(api, "DELETE", "/v1/memory", query="scope=user") == (200, {"deleted": 1})
    assert compare.cache_info().currsize == 0
    assert terms_cache_size() == 0
    await batcher.query("What music do I like?")
    assert len(model.asked) == asked + 1  # read again
    assert told == [forget]


def terms_cache_size() -> int:
    return words._short_terms.cache_info().currsize


async def test_a_version_says_when_its_text_was_recorded_and_when_it_was_replaced(
    api: MemoryApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A helper's run found a version's recorded_at equal to its replaced_at."""
    _, added = await call(api, "POST", "/v1/memory", {"content": "User likes jazz"})
    assert isinstance(added, dict)
    later = 4_102_444_800_000  # 2100-01-01
    monkeypatch.setattr(model, "now_ms", lambda: later)
    await call(api, "PATCH", f"/v1/memory/{added['id']}", {"content": "User likes blues"})
    _, versions = await call(api, "GET", f"/v1/memory/{added['id']}/history")
    assert isinstance(versions, dict)
    (version,) = versions["data"]
    assert version["recorded_at"] == added["updated_at"]
    assert version["replaced_at"].startswith("2100-01-01")
