from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import hypothesis.core
import numpy as np
import pytest
from hypothesis.vendor import pretty

from memory_extproc.embedding import EmbeddingBatcher, OnnxEmbedder, bridge, model_files
from memory_extproc.embedding.multilingual import PASSAGE, QUERY, MultilingualEmbedder
from memory_extproc.embedding.quantize import int8_model
from memory_extproc.embedding.spaces import Embeddings, english_query, memory_vector, other_query
from memory_extproc.languages import is_english, language_of
from memory_extproc.words import in_memory_voice


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    """The model as the service runs it by default: the int8 variant (built once, cached)."""
    return OnnxEmbedder(int8_model(model_files()))


@pytest.fixture(scope="session")
def float_embedder() -> OnnxEmbedder:
    """The packaged file as shipped (int8 storage, float32 compute)."""
    return OnnxEmbedder(model_files())


@pytest.fixture(scope="session")
def multilingual() -> MultilingualEmbedder:
    return MultilingualEmbedder()


@pytest.fixture
def embeddings(embedder: OnnxEmbedder, multilingual: MultilingualEmbedder) -> Iterator[Embeddings]:
    """Both models behind the front the service embeds through."""
    made = Embeddings(
        EmbeddingBatcher(embedder, name="test"),
        EmbeddingBatcher(multilingual, name="test_multilingual"),
    )
    yield made
    made.close()


@pytest.fixture(scope="session")
def stored_vector(
    embedder: OnnxEmbedder, multilingual: MultilingualEmbedder
) -> Callable[[str], np.ndarray]:
    """What the service stores a memory's text under (``Embeddings.memory``), synchronously."""

    def vector(text: str) -> np.ndarray:
        other = multilingual.embed([in_memory_voice(PASSAGE + text)])[0]
        if not is_english(text):
            return memory_vector(bridge.to_minilm(other), other)
        return memory_vector(embedder.embed([in_memory_voice(text)])[0], other)

    return vector


@pytest.fixture(scope="session")
def query_vector(
    embedder: OnnxEmbedder, multilingual: MultilingualEmbedder
) -> Callable[[str], np.ndarray]:
    """What the service searches with for a text (``Embeddings.query``), synchronously."""

    def vector(text: str) -> np.ndarray:
        if is_english(text):
            return english_query(embedder.embed([in_memory_voice(text)])[0])
        read = multilingual.embed([in_memory_voice(QUERY + text)])[0]
        return other_query(read, language_of(text))

    return vector


@dataclass(frozen=True)
class Vectors:
    """A text as the service stores it, and as it searches with it."""

    stored: Callable[[str], np.ndarray]
    query: Callable[[str], np.ndarray]


@pytest.fixture(scope="session")
def vectors(
    stored_vector: Callable[[str], np.ndarray], query_vector: Callable[[str], np.ndarray]
) -> Vectors:
    return Vectors(stored_vector, query_vector)


@pytest.fixture(autouse=True)
def _falsifying_examples_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """schemathesis' pytest plugin (loaded in every run once installed) swaps Hypothesis' printer
    for one that prints nothing, to save time: a failing example would read ``value=,``."""
    monkeypatch.setattr(hypothesis.core, "RepresentationPrinter", pretty.RepresentationPrinter)
