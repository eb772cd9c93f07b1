"""One vector per memory that two models read: MiniLM for English, multilingual-e5 for the rest.

A stored memory holds both readings and a constant, ``[MiniLM (384) | e5 (384) | 1]``, in one
Milvus field searched by inner product. A question is embedded by one model only, chosen by its
language (languages.py), and placed so the inner product is that model's score:

* English: ``[q | 0 | 0]`` — exactly MiniLM's cosine, as before: English pays nothing more;
* any other language: ``[0 | a·(q - m) | b]`` — e5's score on MiniLM's scale, so one threshold
  and every ranking value keep their meaning. Per language (``Calibration``):

  * ``m``, the mean e5 reading of a memory in the question's language. e5 places the texts of
    one language near each other: a Chinese question scored every Chinese memory, whatever its
    subject, above the English one that answered it (1 of 12 found first); with ``m`` taken off
    the question, that pull goes (11 of 12);
  * ``a`` and ``b``: LoCoMo's questions against its memories, centred, onto MiniLM's scores,
    quantile by quantile; then, for each language, its scores onto English's on the same
    memories translated (e5 spreads Chinese and Spanish scores less than English ones).

  All fitted by `python -m eval.language_means` (eval/RESULTS.md, "Multilingual").

A memory in another language than English has no MiniLM reading worth the name: its MiniLM
part is e5's reading carried into MiniLM's space (bridge.py), so an English question finds it
with MiniLM alone. An English memory of a user who writes English only has its e5 part carried
the other way, from MiniLM's (``carried``): e5 costs ~5 times MiniLM per text, and English
memories read by it cost English requests +4 ms p50 under mixed load (`make bench`), for
questions in other languages that user does not ask. Carried parts are told by the vector
alone (``is_carried``), so whatever wrote them, they are read again by e5 when the user writes
another language (memories/writer.py).
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory_extproc.embedding import bridge, multilingual
from memory_extproc.embedding import model as english_model
from memory_extproc.embedding.batcher import EmbeddingBatcher
from memory_extproc.languages import is_english, language_of

_EN = english_model.DIMENSION
_ML = multilingual.DIMENSION
DIMENSION = _EN + _ML + 1
# e5's plain cosine on MiniLM's scale (LoCoMo dev's questions against its memories, quantile by
# quantile): how a new statement is compared with the memories held, the scale the truth bars
# (memories/reconcile.py) were set on for other languages; centred scores are fitted onto it
PLAIN_SCALE = 4.32
PLAIN_OFFSET = -3.06
_SAME = 0.9999  # a carried part against its MiniLM part carried again: float32 rounding only
# per language (ISO 639-1; "other": the average, for a language without its own)
MEANS = Path(__file__).with_name("e5_language_means.npz")


@dataclass(frozen=True, slots=True)
class Calibration:
    mean: np.ndarray  # a memory's mean e5 (passage) reading in the language
    scale: float
    offset: float


@functools.cache
def _calibrations() -> dict[str, Calibration]:
    with np.load(MEANS) as fitted:
        columns = ("languages", "means", "scales", "offsets")
        rows = zip(*(fitted[c] for c in columns), strict=True)
        return {str(c): Calibration(m, float(s), float(o)) for c, m, s, o in rows}


def calibration(language: str) -> Calibration:
    fitted = _calibrations()
    return fitted.get(language, fitted["other"])


def memory_vector(english: np.ndarray, other: np.ndarray) -> np.ndarray:
    vector = np.empty(DIMENSION, dtype=np.float32)
    vector[:_EN], vector[_EN:-1], vector[-1] = english, other, 1.0
    return vector


def carried(english: np.ndarray) -> np.ndarray:
    """An English memory under MiniLM's reading, its e5 part carried from it (bridge.py)."""
    return memory_vector(english, bridge.to_e5(english))


def is_carried(memory: np.ndarray) -> bool:
    """Whether the e5 part of a stored memory is carried from its MiniLM part, not e5's own."""
    other = np.asarray(memory[_EN:-1], dtype=np.float32)
    return bool(other.any()) and float(np.dot(other, bridge.to_e5(memory[:_EN]))) > _SAME


def with_other_part(memory: np.ndarray, read: np.ndarray) -> np.ndarray:
    """``memory`` with the e5 part of ``read``: a carried part replaced by e5's own reading."""
    return memory_vector(memory[:_EN], read[_EN:-1])


def english_query(english: np.ndarray) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[:_EN] = english
    return vector


def other_statement(other: np.ndarray) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[_EN:-1], vector[-1] = PLAIN_SCALE * other, PLAIN_OFFSET
    return vector


def other_query(other: np.ndarray, language: str) -> np.ndarray:
    fitted = calibration(language)
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[_EN:-1], vector[-1] = fitted.scale * (other - fitted.mean), fitted.offset
    return vector


def blend(parts: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """Memory vectors mixed by weight, each model's part at the first's length again (unit,
    or a carried reading's, bridge.py): what a memory is stored under when it leans toward
    other words (memories/writer.py)."""
    if len(parts) == 1:
        return parts[0][0]
    mixed = np.sum([weight * vector for vector, weight in parts], axis=0)
    english, other = mixed[:_EN], mixed[_EN:-1]
    english = np.linalg.norm(parts[0][0][:_EN]) * english / np.linalg.norm(english)
    if is_carried(parts[0][0]):  # carried again from the mix: still told as carried
        return carried(english)
    return memory_vector(english, other / np.linalg.norm(other))


def score(query: np.ndarray, memory: np.ndarray) -> float:
    """What a search scores ``memory`` for ``query`` (Milvus' inner product)."""
    return float(np.dot(query, memory))


class Embeddings:
    """The front both processes embed through: a memory in both spaces, a query in its own."""

    dimension = DIMENSION

    def __init__(self, english: EmbeddingBatcher, other: EmbeddingBatcher) -> None:
        self._english = english
        self._other = other

    async def memory(self, text: str, *, by_e5: bool = True) -> np.ndarray:
        """An English memory under both models' readings; one in another language under e5's,
        twice: as it is and carried into MiniLM's space (bridge.py), where English questions
        look, as MiniLM cannot read it. Not ``by_e5``: an English memory's e5 part is carried
        from MiniLM's (a user who writes English only)."""
        if not is_english(text):
            other = await self._other.embed(multilingual.PASSAGE + text)
            return memory_vector(bridge.to_minilm(other), other)
        if not by_e5:
            return carried(await self._english.embed(text))
        english, other = await asyncio.gather(
            self._english.embed(text), self._other.embed(multilingual.PASSAGE + text)
        )
        return memory_vector(english, other)

    async def memories(self, texts: list[str]) -> list[np.ndarray]:
        return list(await asyncio.gather(*(self.memory(t) for t in texts)))

    async def context(self, text: str, *, of_english: bool) -> np.ndarray:
        """The sentence a memory was said in, which its key leans toward (memories/writer.py).
        For an English memory, an English sentence is read by MiniLM alone: e5 costs ~5 times
        MiniLM per text, ~70 ms of CPU for a sentence, and only a question in another language
        reads that part (read on every memory written, it cost English requests +4 ms p50
        under mixed load). The requests a preference bears on are read by both: without them
        in e5's part, Chinese requests missed English food allergies."""
        if of_english and is_english(text):
            return memory_vector(await self._english.embed(text), np.zeros(_ML, np.float32))
        return await self.memory(text)

    async def query(self, text: str, *, in_language_of: str = "", language: str = "") -> np.ndarray:
        """``in_language_of``: a longer text in the same language, for a text too short to tell
        ("carro" of "El usuario vendió su carro"); ``language``: already told (``language_of``)."""
        language = language or language_of(in_language_of or text)
        if language == "en":
            return english_query(await self._english.embed(text))
        return other_query(await self._other.embed(multilingual.QUERY + text), language)

    async def statement(self, text: str, *, in_language_of: str = "") -> np.ndarray:
        """A new statement, to compare with the memories held (memories/writer.py): read like a
        question, but not centred. The truth bars between memories of another language
        (reconcile.py) were set on plain scores; centring moves such pairs by up to 0.15 either
        way ("用户喜欢吃披萨" / "…寿司" 0.95 → 0.79, "…apartados para su viaje a Hawái" /
        "…presupuesto…" 1.09 → 1.19)."""
        language = language_of(in_language_of or text)
        if language == "en":
            return english_query(await self._english.embed(text))
        return other_statement(await self._other.embed(multilingual.QUERY + text))

    async def statements(self, texts: list[str]) -> list[np.ndarray]:
        return list(await asyncio.gather(*(self.statement(t) for t in texts)))

    def clear_cache(self) -> None:
        """After a forget: no text it was asked to embed stays here."""
        self._english.clear_cache()
        self._other.clear_cache()

    def close(self) -> None:
        self._english.close()
        self._other.close()
