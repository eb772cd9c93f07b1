from __future__ import annotations

import hypothesis.core
import pytest
from hypothesis.vendor import pretty

from memory_extproc.embedding import OnnxEmbedder, model_files
from memory_extproc.embedding.quantize import int8_model


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    """The model as the service runs it by default: the int8 variant (built once, cached)."""
    return OnnxEmbedder(int8_model(model_files()))


@pytest.fixture(scope="session")
def float_embedder() -> OnnxEmbedder:
    """The packaged file as shipped (int8 storage, float32 compute)."""
    return OnnxEmbedder(model_files())


@pytest.fixture(autouse=True)
def _falsifying_examples_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """schemathesis' pytest plugin (loaded in every run once installed) swaps Hypothesis' printer
    for one that prints nothing, to save time: a failing example would read ``value=,``."""
    monkeypatch.setattr(hypothesis.core, "RepresentationPrinter", pretty.RepresentationPrinter)
