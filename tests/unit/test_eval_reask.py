"""`python -m eval.reask` asks a finished run's questions as `make eval` did: each by the user
whose turns hold its evidence, in a new conversation, given what the service would inject."""

from __future__ import annotations

from eval.reask import reask
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Memory, MemoryType

ASKED = {
    "sample_id": "conv-1", "side": "b", "question": "Where did I go hiking last weekend?",
    "category": 1, "evidence": ["conv-1/D1:3"], "answer": "Mount Tam", "injected": [],
    "tokens": 0,
}  # fmt: skip


async def test_a_question_is_asked_by_its_speaker_and_given_their_memory(
    embeddings: Embeddings,
) -> None:
    store = InMemoryStore()
    for user, text in (
        ("locomo-conv-1-b", "User went hiking on Mount Tam last weekend"),
        ("locomo-conv-1-a", "User went hiking in the Alps last weekend"),  # the other speaker
    ):
        memory = Memory.new(user, text, MemoryType.SEMANTIC)
        await store.store(memory, await embeddings.memory(text))
    retrieval = MemoryRetrieval(embeddings, store, RetrievalPolicy(), 5.0)

    [asked] = await reask(retrieval, [ASKED])

    assert asked.question.evidence == frozenset({"conv-1/D1:3"})
    assert asked.injected, "the speaker's own memory answers the question"
    assert any("Mount Tam" in line for line in asked.injected)
    assert not any("Alps" in line for line in asked.injected)
