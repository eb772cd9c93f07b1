from __future__ import annotations

import pytest

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
