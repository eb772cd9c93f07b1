"""LLM query rewriting: only for vague messages, only within the budget, never a failure."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import numpy as np
import orjson
import pytest

from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import Api, parse_request
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rewrite import QueryRewriter, parse_rewrite, rewrite_messages
from memory_extproc.retrieval.service import MemoryRetrieval, Outcome
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Memory

ALICE = HeaderSignals("alice", path="/v1/chat/completions")
BUDGET = "User's budget for the Hawaii trip is $10,000"


class Model:
    def __init__(self, answer: str = "", delay_s: float = 0.0, error: Exception | None = None):
        self.answer, self.delay_s, self.error = answer, delay_s, error
        self.asked: list[list[dict[str, str]]] = []

    async def complete(self, messages: list[dict[str, str]], *, json_mode: bool = True) -> str:
        self.asked.append(messages)
        await asyncio.sleep(self.delay_s)
        if self.error:
            raise self.error
        return self.answer


class Recording(Embeddings):
    def __init__(self, embedder: OnnxEmbedder) -> None:
        super().__init__(EmbeddingBatcher(embedder, name="t"), EmbeddingBatcher(embedder, name="u"))
        self.texts: list[str] = []

    async def query(self, text: str, *, in_language_of: str = "", language: str = "") -> np.ndarray:
        self.texts.append(text)
        return await super().query(text, language=language)


def chat(*user_messages: str):  # type: ignore[no-untyped-def]
    messages = []
    for text in user_messages:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return parse_request(Api.CHAT_COMPLETIONS, orjson.dumps({"messages": messages[:-1]}))


@pytest.fixture
async def store(stored_vector: Callable[[str], np.ndarray]) -> InMemoryStore:
    memories = InMemoryStore()
    await memories.store(Memory.new("alice", BUDGET), stored_vector(BUDGET))
    return memories


async def test_a_vague_follow_up_is_rewritten_and_finds_the_memory(
    embedder: OnnxEmbedder, store: InMemoryStore
) -> None:
    model = Model("budget for the Hawaii trip")
    batcher = Recording(embedder)
    retrieval = MemoryRetrieval(
        batcher, store, RetrievalPolicy(), 1.0, rewriter=QueryRewriter(model)
    )
    result = await retrieval.process(chat("I'm planning my Hawaii trip", "How much?"), ALICE)
    assert batcher.texts == ["budget for the Hawaii trip"]
    assert result.outcome is Outcome.INJECTED
    assert "Last message: How much?" in model.asked[0][1]["content"]
    assert "I'm planning my Hawaii trip" in model.asked[0][1]["content"]


async def test_self_contained_messages_are_not_rewritten(
    embedder: OnnxEmbedder, store: InMemoryStore
) -> None:
    model = Model("something else")
    retrieval = MemoryRetrieval(
        Recording(embedder), store, RetrievalPolicy(), 1.0, rewriter=QueryRewriter(model)
    )
    await retrieval.process(chat("Hi", "What's my budget for the Hawaii trip?"), ALICE)
    assert model.asked == []


@pytest.mark.parametrize(
    "model", [Model("late", delay_s=0.5), Model(error=RuntimeError("502")), Model("a\nb\nc")]
)
async def test_slow_failing_or_chatty_models_fall_back_within_the_budget(
    embedder: OnnxEmbedder, store: InMemoryStore, model: Model
) -> None:
    batcher = Recording(embedder)
    retrieval = MemoryRetrieval(
        batcher, store, RetrievalPolicy(), 0.2, rewriter=QueryRewriter(model)
    )
    started = asyncio.get_running_loop().time()
    result = await retrieval.process(chat("I'm planning my Hawaii trip", "How much?"), ALICE)
    # the late model (0.5 s) is not waited for; the 0.2 s budget holds (slack for slow machines)
    assert asyncio.get_running_loop().time() - started < 0.4
    assert result.outcome is not Outcome.TIMEOUT
    assert batcher.texts == ["How much? planning hawaii trip"]  # the built query


def test_parse_rewrite() -> None:
    assert parse_rewrite('  "budget for Hawaii"\n') == "budget for Hawaii"
    assert parse_rewrite("") is None
    assert parse_rewrite("Sure! Here is the query:\nbudget") is None
    assert parse_rewrite("x" * 301) is None
    assert len(rewrite_messages(["a", "b", "c", "d"], "q")[1]["content"].splitlines()) == 6
