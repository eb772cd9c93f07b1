"""Property tests (hypothesis) of what reads untrusted bytes: request and answer bodies, SSE
streams, gzip, the memory API's routing, and the memory fence. Each reader may only fail the way
it documents, and keeps its promises on every input, not just the ones the other tests spell out.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from urllib.parse import urlencode

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memory_extproc.api.routes import (
    MAX_PAGE,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
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
    parse_call,
    request_path,
)
from memory_extproc.llm_api import json_splice
from memory_extproc.llm_api.answers import (
    MAX_ANSWER_CHARS,
    MAX_BODY_BYTES,
    Answer,
    SseAnswerReader,
    answer_from_json,
    decode_body,
)
from memory_extproc.llm_api.requests import (
    MEMORY_FIELDS,
    Api,
    ChatRequest,
    InvalidRequestBody,
    MemoryOptions,
    Turn,
    parse_request,
    with_memory_context,
    without_memory_fields,
)
from memory_extproc.retrieval.context import CLOSE_TAG, OPEN_TAG, format_context
from memory_extproc.store.model import (
    MAX_CONTENT_CHARS,
    Memory,
    MemoryType,
    ScoredMemory,
    is_memory_id,
    new_memory_id,
)
from tests.openapi_contract import document

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


APIS = st.sampled_from(list(Api))

# JSON shaped like the bodies these readers look into: the keys and values they test for, mixed
# with anything else, nested anywhere, so generated documents get past the first type check.
KEYS = [
    "model", "messages", "input", "role", "content", "text", "type", "output", "output_text",
    "stream", "memory_config", "memory_context", "enabled", "auto_store", "retrieval_limit",
    "similarity_threshold", "memory_types", "previous_response_id", "instructions", "choices",
    "message", "delta", "index", "finish_reason", "status", "id", "response", "error",
]  # fmt: skip
WORDS = [
    "user", "assistant", "system", "developer", "tool", "function", "message",
    "function_call_output", "custom_tool_call_output", "function_call", "custom_tool_call",
    "semantic", "procedural", "episodic", "completed", "incomplete", "response.completed",
    "response.output_text.delta", "response.failed", "response.incomplete", "error", "stop",
    "", " ", "hi", "resp_1",
]  # fmt: skip
BIG = "x" * (MAX_ANSWER_CHARS + 1)  # an answer longer than is kept
leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(WORDS)
    | st.text(max_size=20)
)
shaped_json = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)
shaped_objects = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), shaped_json)


def either(*likely: st.SearchStrategy) -> st.SearchStrategy:
    """A value of the expected shape, a scalar, or anything (a third each: st.one_of would
    flatten the scalars' branches and bury the expected shape among them)."""
    return st.sampled_from([st.one_of(*likely), leaves, shaped_json]).flatmap(lambda s: s)


def template(required: dict, optional: dict) -> st.SearchStrategy:
    """An object of the API's shape (members may be missing, or anything), plus unknown keys."""
    return st.builds(
        lambda known, extra: {**extra, **known},
        st.fixed_dictionaries(required, optional=optional),
        st.dictionaries(st.text(max_size=8), shaped_json, max_size=2),
    )


roles = either(st.sampled_from(["system", "developer", "user", "assistant", "tool", "function"]))
content = either(
    st.text(max_size=30),
    st.just(BIG),
    st.lists(either(template({}, {"type": either(st.just("text")), "text": either(st.text())}))),
)
chat_message = either(template({}, {"role": roles, "content": content}))
memory_config = either(
    template(
        {},
        {
            "enabled": either(st.booleans()),
            "auto_store": either(st.booleans()),
            "retrieval_limit": either(st.integers(-5, 100)),
            "similarity_threshold": either(st.floats(-2, 2)),
            "memory_types": either(st.lists(either(st.sampled_from(list(MemoryType))))),
        },
    )
)
request_members = {
    "model": either(st.just("m")),
    "stream": either(st.booleans()),
    "memory_config": memory_config,
    "memory_context": shaped_json,
    "previous_response_id": either(st.just("resp_1")),
}
input_item = either(
    template(
        {},
        {
            "type": either(st.sampled_from(WORDS[6:11])),
            "role": roles,
            "content": content,
            "output": content,
        },
    )
)
request_bodies = st.one_of(
    template({"messages": either(st.lists(chat_message, max_size=5))}, request_members),
    template(
        {"input": either(st.text(max_size=20), st.lists(input_item, max_size=5))},
        {**request_members, "instructions": either(st.text(max_size=20))},
    ),
)
chat_choice = template(
    {},
    {
        "index": either(st.just(0), st.just(1)),
        "message": chat_message,
        "delta": chat_message,
        "finish_reason": either(st.none(), st.just("stop")),
    },
)
chat_answer = template(
    {}, {"choices": either(st.lists(either(chat_choice), max_size=3)), "error": shaped_json}
)
output_item = template(
    {},
    {"type": either(st.just("message")), "role": roles, "content": content},
)
responses_answer = template(
    {},
    {
        "id": either(st.just("resp_1")),
        "status": either(st.sampled_from(["completed", "incomplete", "failed"])),
        "output_text": either(st.text(max_size=20), st.just(BIG)),
        "output": either(st.lists(either(output_item), max_size=3)),
    },
)
EVENT_TYPES = [w for w in WORDS if w.startswith("response.")] + ["error"]
responses_event = template(
    {"type": st.sampled_from(EVENT_TYPES)},
    {"delta": either(st.text(max_size=20)), "response": either(responses_answer)},
)
answers = st.one_of(
    st.tuples(st.just(Api.CHAT_COMPLETIONS), chat_answer),
    st.tuples(st.just(Api.RESPONSES), responses_answer),
    st.tuples(APIS, shaped_json | shaped_objects),
)  # (the API, an answer body of its shape or not)


def cut(data: bytes, points: list[int]) -> list[bytes]:
    """``data`` split at the given offsets (any, in any order, repeated: empty chunks too)."""
    at = sorted(min(p, len(data)) for p in points)
    return [data[a:b] for a, b in zip([0, *at], [*at, len(data)], strict=True)]


# ---------------------------------------------------------------- requests


def check_request_promises(api: Api, raw: bytes, request: ChatRequest) -> None:
    sent = orjson.loads(raw)
    assert request.api is api
    assert request.raw == raw
    assert not set(MEMORY_FIELDS) & set(request.body)
    assert request.had_memory_fields == any(k in sent for k in MEMORY_FIELDS)
    assert request.body == {k: v for k, v in sent.items() if k not in MEMORY_FIELDS}
    assert isinstance(request.model, str)
    assert isinstance(request.previous_response_id, str)
    assert request.stream is (sent.get("stream") is True)
    for turn in request.turns:
        assert isinstance(turn, Turn)
        assert isinstance(turn.role, str)
        assert turn.role
        assert isinstance(turn.text, str)
    assert isinstance(request.query, str)
    options = request.options
    assert isinstance(options, MemoryOptions)
    assert options.enabled in (None, True, False)
    assert options.auto_store in (None, True, False)
    limit = options.retrieval_limit
    assert limit is None or (type(limit) is int and limit >= 0)
    threshold = options.similarity_threshold
    assert threshold is None or (type(threshold) is float and math.isfinite(threshold))
    types = options.memory_types
    assert types is None or all(isinstance(t, MemoryType) for t in types)


def parse_or_refuse(api: Api, raw: bytes) -> ChatRequest | None:
    """parse_request's only documented failure is InvalidRequestBody."""
    try:
        request = parse_request(api, raw)
    except InvalidRequestBody:
        return None
    check_request_promises(api, raw, request)
    return request


@FUZZ
@given(api=APIS, raw=st.binary(max_size=300))
def test_parse_request_on_any_bytes(api: Api, raw: bytes) -> None:
    parse_or_refuse(api, raw)


@FUZZ
@given(
    api=APIS, value=st.one_of(request_bodies, shaped_json, shaped_objects), ascii_only=st.booleans()
)
@example(  # found by this test: see the report
    api=Api.CHAT_COMPLETIONS, value={"messages": [{"role": 1}]}, ascii_only=False
)
def test_parse_request_on_any_json(api: Api, value: object, ascii_only: bool) -> None:
    # json (not orjson) writes what orjson may refuse too: integers past 64 bits
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    request = parse_or_refuse(api, raw)
    if request is None:
        return
    # Whatever it accepted, the edits on the way out succeed or fail the documented way.
    try:
        edited = with_memory_context(request, "<user_memories>\n- x\n</user_memories>")
        stripped = without_memory_fields(request)
    except json_splice.SpliceError:
        return
    assert orjson.loads(stripped) == request.body
    assert isinstance(orjson.loads(edited), dict)


# ---------------------------------------------------------------- answers


def check_answer(api: Api, answer: Answer | None) -> None:
    if answer is None:
        return
    assert isinstance(answer, Answer)
    assert isinstance(answer.text, str)
    assert answer.text.strip()
    assert len(answer.text) <= MAX_ANSWER_CHARS
    assert isinstance(answer.response_id, str)
    if api is Api.CHAT_COMPLETIONS:
        assert answer.response_id == ""


@FUZZ
@given(api=APIS, raw=st.binary(max_size=300))
def test_answer_from_json_on_any_bytes(api: Api, raw: bytes) -> None:
    check_answer(api, answer_from_json(api, raw))


@FUZZ
@given(answer=answers)
@example(answer=(Api.RESPONSES, {"output": 1}))  # found by this test: see the report
def test_answer_from_json_on_any_json(answer: tuple[Api, object]) -> None:
    api, value = answer
    check_answer(api, answer_from_json(api, orjson.dumps(value)))


def read_stream(api: Api, chunks: list[bytes]) -> SseAnswerReader:
    reader = SseAnswerReader(api)
    for chunk in chunks:
        reader.feed(chunk)
    reader.close()
    check_answer(api, reader.answer())
    return reader


# Between events: a blank line (half the time), or line endings as SSE allows them (LF, CRLF,
# CR), mixed, or none.
separators = st.sampled_from([b"\n\n", b"\r\n\r\n"]) | st.sampled_from(
    [b"\n", b"\r\n", b"\r", b"", b"\n\r", b"\r\r\n", b"\n\r\r\n"]
)


def sse_streams(api: Api) -> st.SearchStrategy[bytes]:
    """Streams of events of that API's shape (or not), garbage, comments, [DONE]."""
    shaped = chat_answer if api is Api.CHAT_COMPLETIONS else responses_event
    events = st.one_of(
        st.builds(lambda v: b"data: " + orjson.dumps(v), shaped),
        st.builds(lambda v: b"data:" + orjson.dumps(v), shaped_objects),
        st.just(b"data: [DONE]"),
        st.just(b'data: {"choices": [{"delta": {"content": "' + BIG.encode() + b'"}}]}'),
        st.sampled_from([b"event: response.completed", b": keep-alive", b"data: {", b"retry: 1"]),
        st.binary(max_size=20),
    )
    return st.lists(st.tuples(events, separators), max_size=8).map(
        lambda parts: b"".join(e + s for e, s in parts)
    )


@FUZZ
@given(api=APIS, data=st.binary(max_size=400), points=st.lists(st.integers(0, 400), max_size=8))
def test_sse_reader_on_any_bytes_split_anywhere(api: Api, data: bytes, points: list[int]) -> None:
    read_stream(api, cut(data, points))


# After "\n\r\r\n" (LF, CR, CRLF) the event ends if a chunk ends there too, else it goes on.
CR_HEAD = b'\n\ndata: {"choices": [{"delta": {"content": "X"}, "finish_reason": "stop"}]}\n\r\r\n'
CR_TAIL = b"data: {}\n\n"


@FUZZ
@given(
    stream=APIS.flatmap(lambda api: st.tuples(st.just(api), sse_streams(api))),
    points=st.lists(st.integers(0, 2000), max_size=10),
)
@example(  # answer_from_json's crash (see there), in a stream: see the report
    stream=(Api.RESPONSES, b'data: {"type": "response.completed", "response": {"output": 1}}\n\n'),
    points=[],
)
@example(  # found by this test (in a Responses stream, seed 7, 3000 examples): see the report
    stream=(Api.CHAT_COMPLETIONS, CR_HEAD + CR_TAIL), points=[len(CR_HEAD)]
)
def test_sse_reader_reads_the_same_however_the_stream_is_split(
    stream: tuple[Api, bytes], points: list[int]
) -> None:
    """The module's promise: an event, or a UTF-8 character, may be split anywhere."""
    api, data = stream
    whole = read_stream(api, [data])
    split = read_stream(api, cut(data, points))
    assert (split.answer(), split.finished, split.failed) == (
        whole.answer(),
        whole.finished,
        whole.failed,
    )


# ---------------------------------------------------------------- gzip


@FUZZ
@given(raw=st.binary(max_size=400), encoding=st.sampled_from(["gzip", ""]))
def test_decode_body_on_any_bytes(raw: bytes, encoding: str) -> None:
    decoded = decode_body(raw, encoding)
    assert decoded is None or (isinstance(decoded, bytes) and len(decoded) <= MAX_BODY_BYTES)
    if encoding == "":
        assert decoded == raw


@FUZZ
@given(
    members=st.lists(st.binary(max_size=200), min_size=1, max_size=3),
    wrap=st.sampled_from(["gzip", "zlib"]),
    cut_at=st.none() | st.integers(0, 300),
)
@example(members=[b"", b"\x00"], wrap="gzip", cut_at=None)  # found by this test: see the report
def test_decode_body_gives_the_body_as_sent_or_none(
    members: list[bytes], wrap: str, cut_at: int | None
) -> None:
    """Valid gzip (RFC 1952: one member or several, concatenated) or zlib: the body the LLM
    sent, whole. Cut short: what the complete members hold when the cut falls between two,
    else None; never a part of the body passed off as the whole."""
    if wrap == "zlib":
        packed = [zlib.compress(members[0])]
        members = members[:1]  # a zlib stream has a single member
    else:
        packed = [gzip.compress(m, mtime=0) for m in members]
    body = b"".join(packed)
    ends = [sum(map(len, packed[: i + 1])) for i in range(len(packed))]
    if cut_at is None or cut_at >= len(body):
        expected: bytes | None = b"".join(members)
    else:
        body = body[:cut_at]
        expected = b"".join(members[: ends.index(cut_at) + 1]) if cut_at in ends else None
    assert decode_body(body, "gzip") == expected


# ---------------------------------------------------------------- memory API routing

MID = new_memory_id()
ERROR_CODES = set(
    document()["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"][
        "enum"
    ]
)
METHODS = sorted({m for m, _ in ROUTES} | {"HEAD", "OPTIONS"})
API_PATHS = [
    "/v1/memory", "/v1/memory/", "/v1/memory/search", "/v1/memory/search/", f"/v1/memory/{MID}",
    f"/v1/memory/{MID}/", f"/v1/memory/{MID}/history", f"/v1/memory/{MID.upper()}",
    "/v1/memory//history", "/", "",
]  # fmt: skip
QUERY_KEYS = ["limit", "cursor", "type", "project_id", "scope", "user_id"]
QUERY_VALUES = [
    "", "1", "20", "100", "101", "0", "-1", "user", "semantic", "episodic,procedural", "secret",
    Cursor(1_700_000_000_000, MID).encode(), Cursor(0, MID).encode(), "p", "\u00b2",
]  # fmt: skip
BODY_KEYS = ["content", "type", "project_id", "query", "limit", "threshold"]
BODY_VALUES = [
    "semantic", "procedural", "episodic", "x" * MAX_CONTENT_CHARS, " " + "y" * MAX_CONTENT_CHARS,
    "z" * (MAX_CONTENT_CHARS + 1), "q" * (MAX_QUERY_CHARS + 1), "p" * 257, "\u00e9" * 200,
    50, 51, 0.5, -1, 1.0000001, [], ["semantic", "episodic"],
]  # fmt: skip
paths = st.one_of(
    st.sampled_from(API_PATHS),
    st.builds(lambda s: "/v1/memory/" + s, st.text(max_size=40)),
    st.text(max_size=40),
)
queries = st.one_of(
    st.lists(
        st.tuples(
            st.sampled_from(QUERY_KEYS) | st.text(max_size=8),
            st.sampled_from(QUERY_VALUES) | st.text(max_size=30),
        ),
        max_size=4,
    ).map(urlencode),
    st.text(max_size=40),
)
bodies = st.one_of(
    st.dictionaries(
        st.sampled_from(BODY_KEYS) | st.text(max_size=8),
        st.sampled_from(BODY_VALUES) | shaped_json,
        max_size=5,
    ).map(orjson.dumps),
    st.binary(max_size=100),
    st.just(b"{" * 100_000),  # over the API's 64 KiB
)


def check_memory_id(value: str) -> None:
    assert is_memory_id(value)


def check_project(value: str | None) -> None:
    assert value is None or len(value.encode()) <= 256


def check_content(value: str | None) -> None:
    assert value is None or (value and value == value.strip() and len(value) <= MAX_CONTENT_CHARS)


def check_types(types: tuple[MemoryType, ...]) -> None:
    assert all(isinstance(t, MemoryType) for t in types)
    assert len(set(types)) == len(types)


@FUZZ
@given(
    method=st.sampled_from(METHODS) | st.text(max_size=8),
    path=paths,
    query=queries,
    body=bodies,
)
def test_parse_call_fails_only_with_a_documented_4xx(
    method: str, path: str, query: str, body: bytes
) -> None:
    try:
        call = parse_call(method, path, query, body)
    except ApiError as error:
        refused: ApiError | None = error
    else:
        refused = None
    if refused is not None:
        assert 400 <= refused.status < 500
        assert refused.code in ERROR_CODES
        assert refused.message
        return
    match call:
        case ListMemories():
            assert 1 <= call.limit <= MAX_PAGE
            check_types(call.types)
            check_project(call.project_id)
            if call.cursor is not None:
                check_memory_id(call.cursor.memory_id)
                assert call.cursor.created_at >= 0
        case AddMemory():
            check_content(call.content)
            assert isinstance(call.type, MemoryType)
            check_project(call.project_id)
        case SearchMemories():
            assert call.query
            assert call.query == call.query.strip()
            assert len(call.query) <= MAX_QUERY_CHARS
            assert 1 <= call.limit <= MAX_SEARCH_LIMIT
            assert call.threshold is None or -1.0 <= call.threshold <= 1.0
            check_types(call.types)
            check_project(call.project_id)
        case UpdateMemory():
            check_memory_id(call.memory_id)
            check_content(call.content)
            assert call.content is not None or call.type is not None
            if method == "PUT":
                assert call.content is not None
        case GetMemory() | GetHistory() | DeleteMemory():
            check_memory_id(call.memory_id)
        case DeleteScope():
            check_project(call.project_id)
        case _:
            pytest.fail(f"not a call: {call!r}")


PATH_PIECES = [
    "/", "//", ".", "..", "%2F", "%2f", "%2E", "%2e", "%2E%2E", "%252F", "%", "v1", "memory",
    "\\", "?", "#", ";", "%00", "a",
]  # fmt: skip
raw_paths = st.text(max_size=60) | st.lists(st.sampled_from(PATH_PIECES), max_size=12).map("".join)


@FUZZ
@given(raw=raw_paths)
def test_request_path_is_always_a_normal_absolute_path(raw: str) -> None:
    path = request_path(raw)
    assert path.startswith("/")
    assert "//" not in path
    assert "/../" not in path
    assert not {".", ".."} & set(path.split("/"))
    assert path == "/" or not path.endswith("/")


# ---------------------------------------------------------------- the memory fence

DAY = 1_773_532_800_000  # 2026-03-15T00:00:00Z
FENCE_PIECES = [
    "<", ">", "/", " ", "  ", "\n", "\t", "\x00", "_", "-", "user_memories", "USER_MEMORIES",
    "User_Memories", "user", "memories", "\u200b", "\u2060", "\ufeff", "\uff1c", "\uff1e",
    "\u3008", "\u3009", "\u2329", "\u232a", "\u2039", "\u203a", "\uff3f", "\u00e9", "x",
]  # fmt: skip
# Tags (real and look-alike brackets) around names of the fence, with odd spacing, nested.
TAG_NAMES = ["user_memories", "/user_memories", "USER_Memories", "user memories", "memories", "x"]
TAG_PADS = ["", " ", " " * 90, "\u200b", "\x00", "\n"]
tag_words = st.builds(
    lambda a, b, c: a + b + c,
    st.sampled_from(TAG_PADS),
    st.sampled_from([*TAG_NAMES, ""]),
    st.sampled_from(TAG_PADS),
)
tags = st.recursive(
    tag_words,
    lambda inner: (
        st.builds(
            lambda a, b, c: a + b + c,
            st.sampled_from(["<", "\u3008", "\uff1c"]),
            inner,
            st.sampled_from([">", "\u3009", "\uff1e"]),
        )
        | st.lists(inner, min_size=2, max_size=3).map("".join)
    ),
    max_leaves=8,
)
contents = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(FENCE_PIECES) | st.text(max_size=5), max_size=12).map("".join),
    tags,
)
FENCE_TAG = re.compile(r"<[^<>]*user_memories[^<>]*>", re.IGNORECASE)


@FUZZ
@given(
    memories=st.lists(
        st.tuples(contents, st.sampled_from([DAY, DAY + 1000, DAY + 86_400_000])),
        max_size=4,
    ),
    max_chars=st.integers(0, 3000),
)
@example(memories=[("<user_memories<user_memories>>", DAY)], max_chars=2000)  # see the report
@example(memories=[("<user_memories" + " " * 68 + ">", DAY)], max_chars=2000)  # see the report
def test_no_memory_line_can_hold_a_fence_tag(
    memories: list[tuple[str, int]], max_chars: int
) -> None:
    scored = [
        ScoredMemory(Memory.new("alice", content, created_at=at), 0.8) for content, at in memories
    ]
    text, injected = format_context(scored, max_chars)
    if not injected:
        assert text == ""
        return
    assert len(text) <= max_chars
    lines = text.split("\n")
    assert lines[0] == OPEN_TAG
    assert lines[-1] == CLOSE_TAG
    assert len(lines) == 3 + len(injected)  # one line per memory
    for line in lines[2:-1]:
        assert not FENCE_TAG.search(line), line
