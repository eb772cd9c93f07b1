from __future__ import annotations

import orjson
import pytest

from memory_extproc.llm_api.json_splice import SpliceError
from memory_extproc.llm_api.requests import (
    Api,
    InvalidRequestBody,
    parse_request,
    with_memory_context,
)
from memory_extproc.store.model import MemoryType


def chat(body: dict) -> bytes:
    return orjson.dumps(body)


def test_chat_query_is_the_last_user_message_and_history_excludes_it() -> None:
    request = parse_request(
        Api.CHAT_COMPLETIONS,
        chat(
            {
                "model": "m",
                "messages": [
                    {"role": "system", "content": "be nice"},
                    {"role": "user", "content": "Planning a vacation"},
                    {"role": "assistant", "content": "Where to?"},
                    {"role": "user", "content": [{"type": "text", "text": "How much?"}]},
                ],
            }
        ),
    )
    assert request.query == "How much?"
    assert request.earlier_user_messages == ["Planning a vacation"]
    assert request.model == "m"
    assert not request.ends_with_tool_output


def test_chat_request_ending_with_a_tool_result_is_a_tool_loop() -> None:
    request = parse_request(
        Api.CHAT_COMPLETIONS,
        chat(
            {
                "messages": [
                    {"role": "user", "content": "weather in Paris?"},
                    {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
                    {"role": "tool", "tool_call_id": "1", "content": "12C"},
                ]
            }
        ),
    )
    assert request.ends_with_tool_output


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"messages": "hi"}', "messages is not a list"),
    ],
)
def test_unreadable_chat_bodies_are_rejected_with_a_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(InvalidRequestBody, match=reason):
        parse_request(Api.CHAT_COMPLETIONS, raw)


def test_responses_api_input_string_and_items() -> None:
    simple = parse_request(Api.RESPONSES, chat({"model": "m", "input": "What's my budget?"}))
    assert simple.query == "What's my budget?"
    items = parse_request(
        Api.RESPONSES,
        chat(
            {
                "input": [
                    {"role": "user", "content": [{"type": "input_text", "text": "first"}]},
                    {"type": "message", "role": "assistant", "content": "answer"},
                    {"role": "user", "content": "second"},
                ],
                "previous_response_id": "resp_1",
            }
        ),
    )
    assert items.query == "second"
    assert items.earlier_user_messages == ["first"]
    assert items.previous_response_id == "resp_1"
    tool = parse_request(
        Api.RESPONSES,
        chat({"input": [{"type": "function_call_output", "call_id": "c", "output": "42"}]}),
    )
    assert tool.ends_with_tool_output


def test_memory_fields_are_removed_and_never_supply_identity() -> None:
    request = parse_request(
        Api.CHAT_COMPLETIONS,
        chat(
            {
                "messages": [{"role": "user", "content": "hi"}],
                "memory_config": {"enabled": False, "retrieval_limit": 2},
                "memory_context": {"user_id": "mallory"},
            }
        ),
    )
    assert request.had_memory_fields
    assert "memory_config" not in request.body
    assert "memory_context" not in request.body
    assert "mallory" not in orjson.dumps(request.body).decode()
    assert request.options.enabled is False
    assert request.options.retrieval_limit == 2


def test_memory_config_values_of_the_wrong_type_are_ignored() -> None:
    request = parse_request(
        Api.CHAT_COMPLETIONS,
        chat(
            {
                "messages": [{"role": "user", "content": "x"}],
                "memory_config": {
                    "enabled": "no",
                    "retrieval_limit": True,
                    "similarity_threshold": "high",
                    "memory_types": ["semantic", "bogus", 3],
                },
            }
        ),
    )
    options = request.options
    assert options.enabled is None
    assert options.retrieval_limit is None
    assert options.similarity_threshold is None
    assert options.memory_types == (MemoryType.SEMANTIC,)


def test_chat_context_goes_after_leading_system_messages() -> None:
    request = parse_request(
        Api.CHAT_COMPLETIONS,
        chat(
            {
                "messages": [
                    {"role": "system", "content": "operator prompt"},
                    {"role": "user", "content": "q"},
                ],
                "temperature": 0.2,
            }
        ),
    )
    body = orjson.loads(with_memory_context(request, "CONTEXT"))
    assert [m["content"] for m in body["messages"]] == ["operator prompt", "CONTEXT", "q"]
    assert body["messages"][1]["role"] == "system"
    assert body["temperature"] == 0.2
    assert len(request.body["messages"]) == 2  # the parsed request is not mutated


def test_chat_context_without_system_prompt_goes_first() -> None:
    request = parse_request(
        Api.CHAT_COMPLETIONS, chat({"messages": [{"role": "user", "content": "q"}]})
    )
    body = orjson.loads(with_memory_context(request, "CONTEXT"))
    assert body["messages"][0] == {"role": "system", "content": "CONTEXT"}


def test_responses_context_is_added_to_instructions() -> None:
    without = parse_request(Api.RESPONSES, chat({"input": "q"}))
    assert orjson.loads(with_memory_context(without, "CONTEXT"))["instructions"] == "CONTEXT"
    existing = parse_request(Api.RESPONSES, chat({"input": "q", "instructions": "Be brief."}))
    edited = orjson.loads(with_memory_context(existing, "CONTEXT"))
    assert edited["instructions"] == "Be brief.\n\nCONTEXT"
    for odd in ([{"type": "text", "text": "Be brief."}], 3):  # never overwritten: kept as sent
        unusual = parse_request(Api.RESPONSES, chat({"input": "q", "instructions": odd}))
        with pytest.raises(SpliceError):
            with_memory_context(unusual, "CONTEXT")
    nothing = parse_request(Api.RESPONSES, chat({"input": "q", "instructions": None}))
    assert orjson.loads(with_memory_context(nothing, "CONTEXT"))["instructions"] == "CONTEXT"
