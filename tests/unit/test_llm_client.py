"""The extraction model client against a real (local) HTTP server: retries, errors, timeouts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson
import pytest

from devstack.mock_llm import MockLLM, Reply
from devstack.ports import free_port
from memory_extproc.config import ExternalModel, LlmEndpoint
from memory_extproc.llm_client import ChatClient, JsonSchema, LlmError


@pytest.fixture
async def mock() -> AsyncIterator[MockLLM]:
    server = MockLLM()
    await server.start()
    yield server
    await server.stop()


def client(port: int, timeout_s: float = 5.0, retries: int = 2) -> ChatClient:
    model = ExternalModel(
        model_role="memory_extraction",
        llm_endpoint=LlmEndpoint(address="127.0.0.1", port=port, api_key="sk-test"),
        llm_model_name="extractor",
        llm_timeout_seconds=timeout_s,
        max_tokens=123,
        temperature=0.1,
    )
    return ChatClient(model, retries=retries, backoff_s=0.01)


async def test_sends_an_openai_request_and_returns_the_text(mock: MockLLM) -> None:
    mock.script(Reply(text='{"facts": []}'))
    chat = client(mock.port)
    assert await chat.complete([{"role": "user", "content": "hi"}]) == '{"facts": []}'
    (sent,) = mock.recorded
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    body = orjson.loads(sent.body)
    assert body["model"] == "extractor"
    assert body["max_tokens"] == 123
    assert body["response_format"] == {"type": "json_object"}
    await chat.close()


async def test_transient_errors_are_retried(mock: MockLLM) -> None:
    mock.script(Reply(status=503), Reply(status=429), Reply(text="fine"))
    chat = client(mock.port)
    assert await chat.complete([{"role": "user", "content": "hi"}]) == "fine"
    assert len(mock.recorded) == 3
    await chat.close()


async def test_retries_are_bounded(mock: MockLLM) -> None:
    mock.script(*[Reply(status=502)] * 5)
    chat = client(mock.port, retries=2)
    with pytest.raises(LlmError, match="HTTP 502"):
        await chat.complete([{"role": "user", "content": "hi"}])
    assert len(mock.recorded) == 3
    await chat.close()


async def test_client_errors_are_not_retried(mock: MockLLM) -> None:
    mock.script(Reply(status=400, body=b'{"error": "bad"}'))
    chat = client(mock.port)
    with pytest.raises(LlmError) as error:
        await chat.complete([{"role": "user", "content": "hi"}])
    assert not error.value.transient
    assert len(mock.recorded) == 1
    await chat.close()


async def test_an_error_names_its_kind_never_its_message(mock: MockLLM) -> None:
    """A server may quote the prompt in its error message: the user's words, which the log
    line the error becomes must not hold."""
    quoted = b'{"error": {"message": "bad input: my PIN is 4417", "type": "invalid_request_error"}}'
    mock.script(Reply(status=400, body=quoted))
    chat = client(mock.port)
    with pytest.raises(LlmError) as error:
        await chat.complete([{"role": "user", "content": "my PIN is 4417"}])
    assert str(error.value) == "HTTP 400 (invalid_request_error)"
    await chat.close()


async def test_connection_refused_and_timeout_are_transient_errors(mock: MockLLM) -> None:
    refused = client(free_port(), retries=1)
    with pytest.raises(LlmError) as error:
        await refused.complete([{"role": "user", "content": "hi"}])
    assert error.value.transient
    await refused.close()
    hang = asyncio.Event()
    mock.script(Reply(text="late", release=hang), Reply(text="late", release=hang))
    slow = client(mock.port, timeout_s=0.2, retries=1)
    with pytest.raises(LlmError, match="timed out"):
        await slow.complete([{"role": "user", "content": "hi"}])
    hang.set()
    await slow.close()


async def test_a_non_completion_answer_is_an_error(mock: MockLLM) -> None:
    mock.script(Reply(body=b'{"unexpected": true}', status=200))
    chat = client(mock.port)
    with pytest.raises(LlmError, match="not a chat completion"):
        await chat.complete([{"role": "user", "content": "hi"}])
    await chat.close()


SCHEMA = JsonSchema("facts", {"type": "object", "properties": {"facts": {"type": "array"}}})


async def test_a_schema_is_asked_for_as_json_schema(mock: MockLLM) -> None:
    mock.script(Reply(text='{"facts": []}'))
    chat = client(mock.port)
    await chat.complete([{"role": "user", "content": "hi"}], schema=SCHEMA)
    (sent,) = mock.recorded
    assert orjson.loads(sent.body)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "facts", "strict": True, "schema": SCHEMA.schema},
    }
    await chat.close()


async def test_an_endpoint_refusing_the_format_is_asked_again_without_it_and_remembered(
    mock: MockLLM,
) -> None:
    refusal = b'{"error": {"message": "response_format json_schema is not supported"}}'
    mock.script(
        Reply(status=400, body=refusal),
        Reply(status=400, body=b'{"error": "unknown field response_format"}'),
        Reply(text='{"facts": []}'),
        Reply(text='{"facts": []}'),
    )
    chat = client(mock.port)
    messages = [{"role": "user", "content": "hi"}]
    assert await chat.complete(messages, schema=SCHEMA) == '{"facts": []}'
    formats = [orjson.loads(r.body).get("response_format", {}).get("type") for r in mock.recorded]
    assert formats == ["json_schema", "json_object", None]
    await chat.complete(messages, schema=SCHEMA)  # remembered: asked without a format at once
    assert "response_format" not in orjson.loads(mock.recorded[-1].body)
    await chat.close()


async def test_tokens_and_prompt_cache_hits_are_counted_by_task(mock: MockLLM) -> None:
    """llama.cpp says how much of the prompt came from its cache (timings.cache_n), OpenAI in
    usage.prompt_tokens_details: either way the fixed prompt part's hits can be seen."""
    from memory_extproc import metrics

    def tokens(kind: str) -> float:
        value = metrics.REGISTRY.get_sample_value(
            "memory_llm_tokens_total",
            {"role": "memory_extraction", "task": "memory_facts", "kind": kind},
        )
        return value or 0.0

    before = {k: tokens(k) for k in ("prompt", "cached_prompt", "completion")}
    llama = {"choices": [{"message": {"content": "{}"}}], "timings": {"cache_n": 600},
             "usage": {"prompt_tokens": 650, "completion_tokens": 9}}  # fmt: skip
    openai = {"choices": [{"message": {"content": "{}"}}],
              "usage": {"prompt_tokens": 700, "completion_tokens": 5,
                        "prompt_tokens_details": {"cached_tokens": 640}}}  # fmt: skip
    mock.script(Reply(body=orjson.dumps(llama)), Reply(body=orjson.dumps(openai)))
    chat = client(mock.port)
    schema = JsonSchema("memory_facts", {"type": "object"})
    for _ in range(2):
        await chat.complete([{"role": "user", "content": "hi"}], schema=schema)
    assert tokens("prompt") - before["prompt"] == 1350
    assert tokens("cached_prompt") - before["cached_prompt"] == 1240
    assert tokens("completion") - before["completion"] == 14
    await chat.close()
