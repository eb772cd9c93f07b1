"""One vector per memory that two models read: MiniLM for English, multilingual-e5 for the rest.

A stored memory holds both readings and a constant, ``[MiniLM (384) | e5 (384) | 1]``, in one
Milvus field searched by inner product. A question is embedded by one model only, chosen by its
language (languages.py), and placed so the inner product is that model's score:

* English: ``[q | 0 | 0]`` — exactly MiniLM's cosine, as before: English pays nothing more;
* any other language: ``[0 | a·q | b]`` — e5's cosine on MiniLM's scale (``a·cos + b``), so
  one threshold and every ranking value keep their meaning. ``a`` and ``b`` map e5's scores of
  LoCoMo's questions against its memories onto MiniLM's, quantile by quantile (the relevant
  pairs' quartiles then agree within 0.02: eval/RESULTS.md, "Multilingual").

A memory in another language than English has no MiniLM reading worth the name: its MiniLM
part is e5's reading carried into MiniLM's space (bridge.py), so an English question finds it
with MiniLM alone.
"""

from __future__ import annotations

import asyncio

import numpy as np

from memory_extproc.embedding import bridge, multilingual
from memory_extproc.embedding import model as english_model
from memory_extproc.embedding.batcher import EmbeddingBatcher
from memory_extproc.languages import is_english

_EN = english_model.DIMENSION
_ML = multilingual.DIMENSION
DIMENSION = _EN + _ML + 1
# e5 cosine → MiniLM's scale (0.75 → 0.18, 0.80 → 0.39, 0.85 → 0.61)
SCALE = 4.32
OFFSET = -3.06


def memory_vector(english: np.ndarray, other: np.ndarray) -> np.ndarray:
    vector = np.empty(DIMENSION, dtype=np.float32)
    vector[:_EN], vector[_EN:-1], vector[-1] = english, other, 1.0
    return vector


def english_query(english: np.ndarray) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[:_EN] = english
    return vector


def other_query(other: np.ndarray) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[_EN:-1], vector[-1] = SCALE * other, OFFSET
    return vector


def blend(parts: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """Memory vectors mixed by weight, each model's part at the first's length again (unit,
    or a carried reading's, bridge.py): what a memory is stored under when it leans toward
    other words (memories/writer.py)."""
    if len(parts) == 1:
        return parts[0][0]
    mixed = np.sum([weight * vector for vector, weight in parts], axis=0)
    english, other = mixed[:_EN], mixed[_EN:-1]
    length = np.linalg.norm(parts[0][0][:_EN])
    return memory_vector(length * english / np.linalg.norm(english), other / np.linalg.norm(other))


def score(query: np.ndarray, memory: np.ndarray) -> float:
    """What a search scores ``memory`` for ``query`` (Milvus' inner product)."""
    return float(np.dot(query, memory))


class Embeddings:
    """The front both processes embed through: a memory in both spaces, a query in its own."""

    dimension = DIMENSION

    def __init__(self, english: EmbeddingBatcher, other: EmbeddingBatcher) -> None:
        self._english = english
        self._other = other

    async def memory(self, text: str) -> np.ndarray:
        """An English memory under both models' readings; one in another language under e5's,
        twice: as it is and carried into MiniLM's space (bridge.py), where English questions
        look, as MiniLM cannot read it."""
        if not is_english(text):
            other = await self._other.embed(multilingual.PASSAGE + text)
            return memory_vector(bridge.to_minilm(other), other)
        english, other = await asyncio.gather(
            self._english.embed(text), self._other.embed(multilingual.PASSAGE + text)
        )
        return memory_vector(english, other)

    async def memories(self, texts: list[str]) -> list[np.ndarray]:
        return list(await asyncio.gather(*(self.memory(t) for t in texts)))

    async def query(self, text: str, *, language_of: str = "") -> np.ndarray:
        """``language_of``: a longer text in the same language, for a text too short to tell
        ("carro" of "El usuario vendió su carro")."""
        if is_english(language_of or text):
            return english_query(await self._english.embed(text))
        return other_query(await self._other.embed(multilingual.QUERY + text))

    async def queries(self, texts: list[str]) -> list[np.ndarray]:
        return list(await asyncio.gather(*(self.query(t) for t in texts)))

    def clear_cache(self) -> None:
        """After a forget: no text it was asked to embed stays here."""
        self._english.clear_cache()
        self._other.clear_cache()

    def close(self) -> None:
        self._english.close()
        self._other.close()
