"""The request body leaves byte for byte as sent, outside the one injected message and the
stripped memory fields: numbers, escapes, key order, spacing, unknown fields, depth."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_extproc.llm_api import json_splice
from memory_extproc.llm_api.requests import (
    Api,
    parse_request,
    with_memory_context,
    without_memory_fields,
)

CONTEXT = "<user_memories>\nBudget is $15,000\n</user_memories>"
SYSTEM = orjson.dumps({"role": "system", "content": CONTEXT})


def test_what_the_client_wrote_survives_the_injection() -> None:
    raw = (
        b'{ "seed" : 123456789012345678901234567890,\n  "temperature": 1.0e0,'
        b'  "model":"gpt\\u002d4o", "x-vendor": {"keep": [1, 2.50, true, null]},\n'
        b'  "messages": [ {"role": "system", "content": "be \\"brief\\""} ,\n'
        b'   {"role":"user","content":"caf\\u00e9 \xe2\x98\x95 budget?"} ] }'
    )
    request = parse_request(Api.CHAT_COMPLETIONS, raw)
    edited = with_memory_context(request, CONTEXT)
    at = raw.index(b'{"role":"user"')
    assert edited == raw[:at] + SYSTEM + b"," + raw[at:]


def test_memory_fields_are_cut_out_and_nothing_else_changes() -> None:
    raw = (
        b'{"memory_config": {"enabled": true}, "seed": 18446744073709551617,'
        b' "messages": [{"role": "user", "content": "hi"}], "memory_context": {"user_id": "m"}}'
    )
    request = parse_request(Api.CHAT_COMPLETIONS, raw)
    assert without_memory_fields(request) == (
        b'{"seed": 18446744073709551617, "messages": [{"role": "user", "content": "hi"}]}'
    )
    edited = with_memory_context(request, CONTEXT)
    assert edited == (
        b'{"seed": 18446744073709551617, "messages": [' + SYSTEM
        + b',{"role": "user", "content": "hi"}]}'
    )  # fmt: skip


def test_an_escaped_memory_field_name_is_still_removed() -> None:
    raw = b'{"mem\\u006fry_context": {"user_id": "mallory"}, "messages": []}'
    request = parse_request(Api.CHAT_COMPLETIONS, raw)
    assert request.had_memory_fields
    assert without_memory_fields(request) == b'{"messages": []}'


def test_a_body_deeper_than_any_encoder_allows_is_edited_too() -> None:
    deep = b"[" * 300 + b"1" + b"]" * 300
    raw = b'{"memory_config": {}, "tools": ' + deep + b', "messages": [{"role": "user"}]}'
    request = parse_request(Api.CHAT_COMPLETIONS, raw)
    edited = with_memory_context(request, CONTEXT)
    assert edited == b'{"tools": ' + deep + b', "messages": [' + SYSTEM + b',{"role": "user"}]}'


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"input": "q"}', b'{"instructions":' + orjson.dumps(CONTEXT) + b',"input": "q"}'),
        (
            b'{"input":"q","instructions":"Be brief."}',
            b'{"input":"q","instructions":' + orjson.dumps("Be brief.\n\n" + CONTEXT) + b"}",
        ),
        (b'{"memory_config":{}}', b'{"instructions":' + orjson.dumps(CONTEXT) + b"}"),
    ],
)
def test_responses_instructions_are_the_only_change(raw: bytes, expected: bytes) -> None:
    request = parse_request(Api.RESPONSES, raw) if b"input" in raw else None
    if request is None:  # no input: not a request we read; the splice alone
        request = parse_request(Api.RESPONSES, raw[:-1] + b',"input":"q"}')
        expected = expected[:-1] + b',"input":"q"}'
    assert with_memory_context(request, CONTEXT) == expected


# Property: any JSON document, written in any of the ways a client may write it.
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "developer", "user", "assistant"]),
         "content": st.text(max_size=30)}
    ),
    max_size=5,
)  # fmt: skip


def _write(value: object, style: int) -> bytes:
    """The same document as different clients write it: compact, spaced, indented, ASCII-only."""
    if style == 0:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    if style == 1:
        return json.dumps(value, ensure_ascii=True).encode()
    return json.dumps(value, indent=style, ensure_ascii=False).encode()


@settings(max_examples=300, deadline=None)
@given(
    extra=st.dictionaries(st.text(max_size=10), _values, max_size=5),
    messages=_messages,
    memory=st.booleans(),
    style=st.integers(0, 3),
)
def test_any_chat_body_changes_by_exactly_one_message(
    extra: dict, messages: list, memory: bool, style: int
) -> None:
    document = {k: v for k, v in extra.items() if k not in ("messages", "memory_config")}
    document["messages"] = messages
    if memory:
        document["memory_config"] = {"enabled": True}
    raw = _write(document, style)
    request = parse_request(Api.CHAT_COMPLETIONS, raw)
    edited = with_memory_context(request, CONTEXT)

    parsed = json.loads(edited)
    expected = {k: v for k, v in json.loads(raw).items() if k != "memory_config"}
    at = 0
    while at < len(messages) and messages[at]["role"] in ("system", "developer"):
        at += 1
    expected["messages"] = [*messages[:at], {"role": "system", "content": CONTEXT}, *messages[at:]]
    assert parsed == expected
    # Byte for byte: taking the inserted message out gives the body as sent (minus the field).
    sent = without_memory_fields(request) if memory else raw
    for inserted in (SYSTEM + b",", b"," + SYSTEM, SYSTEM):
        if inserted in edited:
            assert edited.replace(inserted, b"", 1) == sent
            break
    else:
        raise AssertionError("no inserted message")
    if memory:  # and the field went with exactly its own bytes
        assert json.loads(sent) == {
            k: v for k, v in json.loads(raw).items() if k != "memory_config"
        }


@settings(max_examples=300, deadline=None)
@given(value=_values, style=st.integers(0, 3))
def test_the_scanner_reads_any_document_as_a_parser_does(value: object, style: int) -> None:
    raw = _write(value, style)
    if raw.lstrip()[:1] not in (b"{", b"["):
        return
    top = json_splice.root(raw)
    children = [json.loads(raw[c.value_start : c.value_end]) for c in top.children]
    if isinstance(value, dict):
        keys = [json.loads(c.key or b"") for c in top.children]
        assert dict(zip(keys, children, strict=True)) == json.loads(raw)
    else:
        assert children == json.loads(raw)
    # read with its members' containers, for an edit inside one: the same children, and each
    # container as reading it alone gives
    deep = json_splice.root(raw, descend=True)
    assert deep.children == top.children
    assert deep.inner == {
        c.value_start: json_splice.container(raw, c.value_start)
        for c in top.children
        if isinstance(value, dict) and raw[c.value_start] in b"[{"
    }
