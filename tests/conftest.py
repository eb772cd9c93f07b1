from __future__ import annotations

import pytest

from memory_extproc.embedding import OnnxEmbedder, model_files


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    """The real model (loads in well under a second)."""
    return OnnxEmbedder(model_files())
