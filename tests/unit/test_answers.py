from __future__ import annotations

import gzip

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from devstack.mock_llm import (
    chat_events,
    chat_json,
    responses_events,
    responses_json,
)
from memory_extproc.llm_api.answers import (
    MAX_BODY_BYTES,
    GzipStream,
    JsonAnswerBody,
    SseAnswerReader,
    answer_from_json,
    decode_body,
)
from memory_extproc.llm_api.requests import Api

TEXT = "Your budget is $10,000 ✅ — have a great trip! 日本"


def test_chat_json_answer() -> None:
    answer = answer_from_json(Api.CHAT_COMPLETIONS, orjson.dumps(chat_json(TEXT)))
    assert answer is not None
    assert answer.text == TEXT


def test_responses_json_answer_and_id() -> None:
    body = responses_json(TEXT)
    answer = answer_from_json(Api.RESPONSES, orjson.dumps(body))
    assert answer is not None
    assert answer.text == TEXT
    assert answer.response_id == body["id"]


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b'{"choices": []}',
        b'{"choices": [{"message": {"role": "assistant", "content": "   "}}]}',
        b'{"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": []}}]}',
        b'{"error": {"message": "rate limited"}}',
    ],
)
def test_chat_bodies_without_assistant_text(body: bytes) -> None:
    assert answer_from_json(Api.CHAT_COMPLETIONS, body) is None


def test_incomplete_responses_answer_is_ignored() -> None:
    body = {**responses_json(TEXT), "status": "incomplete"}
    assert answer_from_json(Api.RESPONSES, orjson.dumps(body)) is None


def stream_in(chunks: list[bytes], api: Api, *, close: bool = True) -> SseAnswerReader:
    reader = SseAnswerReader(api)
    for chunk in chunks:
        reader.feed(chunk)
    if close:
        reader.close()
    return reader


def one_byte_at_a_time(events: list[bytes]) -> list[bytes]:
    data = b"".join(events)
    return [data[i : i + 1] for i in range(len(data))]


@pytest.mark.parametrize("split", [lambda e: e, one_byte_at_a_time])
def test_chat_stream_split_anywhere(split) -> None:  # type: ignore[no-untyped-def]
    reader = stream_in(split(chat_events(TEXT)), Api.CHAT_COMPLETIONS)
    answer = reader.answer()
    assert answer is not None
    assert answer.text == TEXT


@pytest.mark.parametrize("split", [lambda e: e, one_byte_at_a_time])
def test_responses_stream_split_anywhere(split) -> None:  # type: ignore[no-untyped-def]
    answer = stream_in(split(responses_events(TEXT)), Api.RESPONSES).answer()
    assert answer is not None
    assert answer.text == TEXT
    assert answer.response_id.startswith("resp_")


@given(st.text(min_size=1, max_size=60), st.lists(st.integers(0, 400), max_size=6))
def test_any_split_of_any_text_reads_back(text: str, cuts: list[int]) -> None:
    data = b"".join(chat_events(text))
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    answer = stream_in(chunks, Api.CHAT_COMPLETIONS).answer()
    if text.strip():
        assert answer is not None
        assert answer.text == text
    else:
        assert answer is None


def test_crlf_framing_and_empty_final_chunk() -> None:
    events = [e.replace(b"\n", b"\r\n") for e in chat_events(TEXT)]
    answer = stream_in([*events, b""], Api.CHAT_COMPLETIONS).answer()
    assert answer is not None
    assert answer.text == TEXT


def test_a_stream_cut_short_has_no_answer() -> None:
    events = chat_events(TEXT)
    partial = stream_in(events[:2], Api.CHAT_COMPLETIONS)
    assert not partial.finished
    assert partial.answer() is None
    responses = stream_in(responses_events(TEXT)[:-1], Api.RESPONSES)
    assert responses.answer() is None


def test_error_events_discard_the_answer() -> None:
    error = b'data: {"error": {"message": "overloaded"}}\n\n'
    assert (
        stream_in([chat_events(TEXT)[1], error, b"data: [DONE]\n\n"], Api.CHAT_COMPLETIONS).answer()
        is None
    )
    failed = b'event: response.failed\ndata: {"type": "response.failed"}\n\n'
    assert stream_in([*responses_events(TEXT)[:-1], failed], Api.RESPONSES).answer() is None
    for broken in (
        b'event: error\ndata: {"message": "upstream reset"}\n\n',
        b'data: {"type": "error", "message": "upstream reset"}\n\n',
    ):
        cut = stream_in([chat_events(TEXT)[1], broken, b"data: [DONE]\n\n"], Api.CHAT_COMPLETIONS)
        assert cut.answer() is None, broken


def test_garbage_in_a_stream_is_skipped() -> None:
    events = [b": keep-alive comment\n\n", b"data: {not json\n\n", *chat_events(TEXT)]
    answer = stream_in(events, Api.CHAT_COMPLETIONS).answer()
    assert answer is not None
    assert answer.text == TEXT


def test_gzip_bodies_and_streams() -> None:
    body = orjson.dumps(chat_json(TEXT))
    assert decode_body(gzip.compress(body), "gzip") == body
    assert decode_body(body, "") == body
    assert decode_body(b"garbage", "gzip") is None
    assert decode_body(body, "br") is None
    packed = gzip.compress(b"".join(chat_events(TEXT)))
    inflater = GzipStream()
    reader = stream_in(
        [inflater.feed(packed[i : i + 7]) for i in range(0, len(packed), 7)], Api.CHAT_COMPLETIONS
    )
    answer = reader.answer()
    assert answer is not None
    assert answer.text == TEXT


def test_one_huge_event_is_dropped_quickly_and_the_answer_not_learned() -> None:
    """A 40 MiB event in 64 KiB chunks: given up past MAX_EVENT_CHARS (it was re-joined and
    re-split per chunk, stalling the event loop ~2.5 s), and the answer is not learned."""
    reader = SseAnswerReader(Api.CHAT_COMPLETIONS)
    chunk = b"x" * 65536
    reader.feed(b'data: {"choices": [{"index": 0, "delta": {"content": "')
    for _ in range(640):
        reader.feed(chunk)
    reader.feed(b'"}}]}\n\n')
    for event in chat_events(TEXT):
        reader.feed(event)
    reader.close()
    assert reader.too_large
    assert reader.answer() is None


def test_a_separator_split_across_one_character_chunks_still_ends_the_event() -> None:
    events = b"".join(chat_events(TEXT)).replace(b"\n", b"\r\n")
    answer = stream_in([events[i : i + 1] for i in range(len(events))], Api.CHAT_COMPLETIONS)
    assert answer.answer() is not None


def test_a_gzip_bomb_decodes_to_a_bounded_size() -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024))  # 64 MiB from ~64 KiB
    assert decode_body(bomb, "gzip") is None
    inflater = GzipStream()
    decoded = sum(len(inflater.feed(bomb[i : i + 4096])) for i in range(0, len(bomb), 4096))
    assert decoded <= MAX_BODY_BYTES


def test_a_streamed_json_body_is_kept_up_to_its_bound() -> None:
    body = JsonAnswerBody()
    body.feed(b'{"a": 1}')
    assert body.body() == b'{"a": 1}'
    assert not body.too_large
    body.feed(b" " * MAX_BODY_BYTES)
    assert body.too_large
    assert body.body() == b""
