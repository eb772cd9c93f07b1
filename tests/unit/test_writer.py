"""The writer's consistency rules: in-memory store, the real model, a scripted reconciler."""

from __future__ import annotations

import orjson
import pytest

from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder
from memory_extproc.extraction.facts import Fact, FactLimits
from memory_extproc.extraction.llm_client import LlmError
from memory_extproc.extraction.writer import MemoryWriter, Written
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import RETIRED, MemoryType, now_ms

T0 = 1_700_000_000_000


class Reconciler:
    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.prompts: list[list[dict[str, str]]] = []

    async def complete(self, messages: list[dict[str, str]], *, json_mode: bool = True) -> str:
        self.prompts.append(messages)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def fact(text: str) -> Fact:
    return Fact(MemoryType.SEMANTIC, text)


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore()


def writer(
    store: InMemoryStore, embedder: OnnxEmbedder, reconciler: Reconciler | None
) -> MemoryWriter:
    return MemoryWriter(store, EmbeddingBatcher(embedder, name="test"), reconciler, FactLimits())  # type: ignore[arg-type]


async def test_new_fact_is_stored_with_the_conversation_time(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    w = writer(store, embedder, Reconciler())
    assert (
        await w.write("alice", "p", fact("User lives in Lisbon"), T0, source="conversation")
        is Written.STORED
    )
    (memory,) = await store.list("alice")
    assert (memory.content, memory.project_id, memory.created_at, memory.source) == (
        "User lives in Lisbon", "p", T0, "conversation",
    )  # fmt: skip


async def test_exact_duplicates_are_not_stored_twice(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    w = writer(store, embedder, Reconciler())
    await w.write("alice", "", fact("User lives in Lisbon"), T0, source="c")
    assert (
        await w.write("alice", "", fact("user  lives in LISBON"), T0, source="c") is Written.DEDUPED
    )
    assert len(await store.list("alice")) == 1
    assert await w.write("bob", "", fact("User lives in Lisbon"), T0, source="c") is Written.STORED


async def test_update_decided_by_the_model_sees_numbers_not_ids(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    reconciler = Reconciler(orjson.dumps({"action": "UPDATE", "id": 0}).decode())
    w = writer(store, embedder, reconciler)
    await w.write("alice", "", fact("User's budget for the Hawaii trip is $10,000"), T0, source="c")
    (old,) = await store.list("alice")
    written = await w.write(
        "alice", "", fact("User raised the Hawaii vacation budget to $15,000"), T0 + 1, source="c"
    )
    assert written is Written.UPDATED
    (current,) = await store.list("alice")
    assert current.id == old.id
    assert current.created_at == T0
    assert current.content == "User raised the Hawaii vacation budget to $15,000"
    shown = reconciler.prompts[0][1]["content"]
    assert "0: User's budget for the Hawaii trip is $10,000" in shown
    assert old.id not in shown
    audit = [m for m, _ in store._rows.values() if m.superseded_by == old.id]
    assert [m.content for m in audit] == ["User's budget for the Hawaii trip is $10,000"]


OLD, NEW = "User's favourite colour is green", "User likes the colour green a lot"


@pytest.mark.parametrize(
    ("answer", "outcome", "active"),
    [
        ('{"action": "NOOP"}', Written.NOOP, [OLD]),
        ('{"action": "ADD"}', Written.STORED, [OLD, NEW]),
        ('{"action": "DELETE", "id": 0}', Written.DELETED, []),
        ('{"action": "UPDATE", "id": 7}', Written.STORED_UNRECONCILED, [OLD, NEW]),
        ("garbage", Written.STORED_UNRECONCILED, [OLD, NEW]),
        (LlmError("down", transient=True), Written.STORED_UNRECONCILED, [OLD, NEW]),
    ],
)
async def test_reconcile_outcomes(
    store: InMemoryStore,
    embedder: OnnxEmbedder,
    answer: str | Exception,
    outcome: Written,
    active: list[str],
) -> None:
    w = writer(store, embedder, Reconciler(answer))
    await w.write("alice", "", fact("User's favourite colour is green"), T0, source="c")
    assert (
        await w.write("alice", "", fact("User likes the colour green a lot"), T0, source="c")
        is outcome
    )
    assert sorted(m.content for m in await store.list("alice")) == sorted(active)
    if outcome is Written.DELETED:
        assert [m.superseded_by for m, _ in store._rows.values()] == [RETIRED]


async def test_a_restatement_revises_without_asking(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    reconciler = Reconciler()
    w = writer(store, embedder, reconciler)
    await w.write("alice", "", fact("User's budget for the Hawaii trip is $10,000"), T0, source="c")
    new = "User's budget for the Hawaii trip is now $15,000"
    assert await w.write("alice", "", fact(new), T0, source="c") is Written.UPDATED
    assert [m.content for m in await store.list("alice")] == [new]
    assert reconciler.prompts == []


async def test_unrelated_facts_are_added_without_asking(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    reconciler = Reconciler()
    w = writer(store, embedder, reconciler)
    await w.write("alice", "", fact("User's budget for the Hawaii trip is $10,000"), T0, source="c")
    assert (
        await w.write("alice", "", fact("User plays the cello in an orchestra"), T0, source="c")
        is Written.STORED
    )
    assert reconciler.prompts == []


async def test_episodic_chunks_skip_reconciliation(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    w = writer(store, embedder, None)
    chunk = 'On 2026-11-22 the user said: "What is my budget?" Answer: "$10,000"'
    assert (
        await w.write("a", "", Fact(MemoryType.EPISODIC, chunk), T0, source="c", reconcile=False)
        is Written.STORED
    )
    assert (
        await w.write("a", "", Fact(MemoryType.EPISODIC, chunk), T0, source="c", reconcile=False)
        is Written.DEDUPED
    )


async def test_a_batch_is_deduplicated_within_itself_and_against_the_store(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    w = writer(store, embedder, Reconciler())
    await w.write("alice", "", fact("User lives in Lisbon"), T0, source="c")
    results = await w.write_batch(
        "alice",
        "",
        [
            fact("User lives in Lisbon"),  # already stored
            fact("User plays the cello in an orchestra"),
            fact("User plays the cello in an orchestra."),  # the same, reworded, same job
            fact("User is allergic to kiwi"),
        ],
        T0,
        source="c",
    )
    assert results == [Written.DEDUPED, Written.STORED, Written.DEDUPED, Written.STORED]
    assert sorted(m.content for m in await store.list("alice")) == [
        "User is allergic to kiwi", "User lives in Lisbon", "User plays the cello in an orchestra",
    ]  # fmt: skip


async def test_retention_sets_expiry_and_caps_each_user(
    store: InMemoryStore, embedder: OnnxEmbedder
) -> None:
    w = MemoryWriter(
        store, EmbeddingBatcher(embedder, name="test"), None, FactLimits(),  # type: ignore[arg-type]
        ttl_ms=86_400_000, max_per_user=2,
    )  # fmt: skip
    before = now_ms()
    for text in ["User lives in Lisbon", "User plays the cello", "User's cat is Miso"]:
        await w.write("alice", "", fact(text), T0, source="c")
    kept = await store.list("alice")
    assert len(kept) == 2
    assert all(before + 86_400_000 <= m.expires_at <= now_ms() + 86_400_000 for m in kept)
