"""What a learning job asks the extraction model, and how often."""

from __future__ import annotations

import orjson

from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder
from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import JsonSchema
from memory_extproc.memories.facts import FactLimits
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.worker.inbox import Batch
from memory_extproc.worker.jobs import LearningJobs
from memory_extproc.worker.pool import WorkerPool

T0 = 1_700_000_000_000
KNOWN = ("User's budget for the Hawaii trip is $10,000",)


class CopyingModel:
    """Answers with the known fact when it was shown one, else with what it was told to say."""

    role = "memory_extraction"

    def __init__(self, otherwise: str) -> None:
        self.otherwise = otherwise
        self.prompts: list[str] = []

    async def complete(
        self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
    ) -> str:
        said = messages[-1]["content"]
        self.prompts.append(said)
        fact = KNOWN[0] if KNOWN[0] in said else self.otherwise
        return orjson.dumps({"facts": [fact]}).decode()

    async def close(self) -> None:
        return None


async def learn(embedder: OnnxEmbedder, model: CopyingModel, said: str) -> InMemoryStore:
    store = InMemoryStore()
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(store, EmbeddingBatcher(embedder, name="test"), None),
        store=None,
        extractor=model,  # type: ignore[arg-type]
        limits=FactLimits(),
    )
    turns = (Turn("user", said), Turn("assistant", "Noted."))
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle", recalled=KNOWN))
    return store


async def test_a_copied_known_fact_is_asked_again_without_the_known_facts(
    embedder: OnnxEmbedder,
) -> None:
    model = CopyingModel("User's budget for the Hawaii trip is $15,000")
    store = await learn(embedder, model, "Actually, my Hawaii budget is now $15,000.")
    assert len(model.prompts) == 2
    assert KNOWN[0] in model.prompts[0]
    assert KNOWN[0] not in model.prompts[1]
    assert [m.content for m in await store.list("alice")] == [model.otherwise]


async def test_without_known_facts_shown_an_unusable_answer_is_not_asked_again(
    embedder: OnnxEmbedder,
) -> None:
    model = CopyingModel("User enjoys skiing in the Alps")  # not what was said
    store = await learn(embedder, model, "My sister Anna lives in Oslo.")
    assert len(model.prompts) == 1  # nothing was shown, so nothing was copied
    assert await store.list("alice") == []
