from __future__ import annotations

import dataclasses

import orjson
import pytest

from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import Api, ChatRequest, parse_request
from memory_extproc.retrieval.decision import (
    DecisionInput,
    Skip,
    decide,
    is_greeting,
    learns_from_answer,
)
from memory_extproc.words import speaks_of_self

BASE = DecisionInput(
    has_user=True,
    opted_out=False,
    enabled_by_request=None,
    path_excluded=False,
    model_excluded=False,
    ends_with_tool_output=False,
    tool_signal=False,
    fact_signal=False,
    query="What's my budget for the Hawaii trip?",
    limit=5,
)


def with_(**changes: object) -> DecisionInput:
    return dataclasses.replace(BASE, **changes)  # type: ignore[arg-type]


def test_a_personal_question_searches_memory() -> None:
    assert decide(BASE) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"has_user": False}, Skip.NO_USER),
        ({"opted_out": True}, Skip.OPTED_OUT),
        ({"enabled_by_request": False}, Skip.DISABLED_BY_REQUEST),
        ({"path_excluded": True}, Skip.ROUTE_EXCLUDED),
        ({"model_excluded": True}, Skip.MODEL_EXCLUDED),
        ({"ends_with_tool_output": True}, Skip.TOOL_OUTPUT),
        ({"tool_signal": True}, Skip.TOOL_SIGNAL),
        ({"limit": 0}, Skip.ZERO_LIMIT),
        ({"query": "   "}, Skip.NO_QUERY),
        ({"query": "Hello!"}, Skip.GREETING),
        ({"fact_signal": True, "query": "What is the capital of France?"}, Skip.FACT_QUERY),
    ],
)
def test_each_skip_has_its_reason(changes: dict, reason: Skip) -> None:
    assert decide(with_(**changes)) is reason


def test_fact_signal_is_overridden_by_a_personal_question() -> None:
    assert decide(with_(fact_signal=True, query="What is my favourite capital?")) is None


@pytest.mark.parametrize(
    "query", ["我住在哪里？", "Wo wohne ich jetzt?", "私はどこに住んでいますか？", "Onde eu moro?"]
)
def test_fact_signal_does_not_turn_away_what_the_rules_cannot_read_as_impersonal(
    query: str,
) -> None:
    """A question speaking of its user in a filed language, or in one without a file (its
    words unread, Portuguese here), searches memory whatever an upstream classifier said."""
    assert decide(with_(fact_signal=True, query=query)) is None
    assert decide(with_(fact_signal=True, query="Wie hoch ist der Eiffelturm?")) is Skip.FACT_QUERY


def test_enabled_true_in_the_request_cannot_override_a_missing_user() -> None:
    assert decide(with_(has_user=False, enabled_by_request=True)) is Skip.NO_USER


@pytest.mark.parametrize(
    "text", ["hi", "Hello!", "hey there", "Thanks!", "ok", "bye.", "Good morning"]
)
def test_greetings(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize(
    "text",
    ["Hi, what's my budget?", "hello world program in rust", "thanks for the list of hotels"],
)
def test_not_greetings(text: str) -> None:
    assert not is_greeting(text)


@pytest.mark.parametrize(
    "text", ["what's my budget", "I need a hotel", "remind me", "I\u2019m going", "where do i live"]
)
def test_personal(text: str) -> None:
    assert speaks_of_self(text)


@pytest.mark.parametrize(
    "text", ["capital of France", "Minecraft servers", "Imagine", "I/O errors", "print(I)"]
)
def test_not_personal(text: str) -> None:
    assert not speaks_of_self(text)


def _asked(body: dict[str, object]) -> ChatRequest:
    return parse_request(Api.CHAT_COMPLETIONS, orjson.dumps({"model": "m", **body}))


CHAT = "/v1/chat/completions"
ASKED = {"messages": [{"role": "user", "content": "I moved to Lisbon last week"}]}
TOOL_LOOP = {
    "messages": [
        {"role": "user", "content": "Weather in Lisbon?"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                               "function": {"name": "w", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
}  # fmt: skip


@pytest.mark.parametrize(
    ("headers", "body", "learned"),
    [
        (HeaderSignals("alice", CHAT), ASKED, True),
        (HeaderSignals("", CHAT), ASKED, False),  # nobody to learn for
        (HeaderSignals("alice", CHAT, opted_out=True), ASKED, False),
        (HeaderSignals("alice", CHAT), {**ASKED, "memory_config": {"enabled": False}}, False),
        (HeaderSignals("alice", CHAT), {**ASKED, "memory_config": {"auto_store": False}}, False),
        (HeaderSignals("alice", CHAT), TOOL_LOOP, True),  # the loop's answer to the user
    ],
)
def test_an_answer_is_learned_from_only_with_the_users_consent(
    headers: HeaderSignals, body: dict[str, object], learned: bool
) -> None:
    assert learns_from_answer(headers, _asked(body)) is learned
