"""An English question finds a memory said in another language: e5's reading of the memory,
carried into MiniLM's space by one matrix.

MiniLM reads only English, and an English question is read by MiniLM alone (spaces.py: English
pays nothing more). A memory in Chinese or Spanish would then be out of its reach: its MiniLM
reading is noise. So such a memory's MiniLM part is its multilingual-e5 reading times ``W``, a
384 x 384 matrix fitted by ridge regression of MiniLM's vectors on e5's over English text
(`python -m eval.bridge_fit`: LoCoMo dev's 4,969 texts; on the 2,344 of two conversations held
out, the carried vector's cosine with MiniLM's own is 0.69). e5 places a text near its
translations, so "用户对花生过敏" lands near where MiniLM puts "User is allergic to peanuts".

The matrix ships in the package (``e5_to_minilm.npy``, float32, 590 KB); an English memory
keeps MiniLM's own reading.

The other way, ``minilm_to_e5.npy`` (ridge 1, the same texts): an English memory's e5 part,
for a user who writes English only (spaces.py). e5 costs ~5 times MiniLM per text, and only a
question in another language reads that part, so it is carried from MiniLM's reading until the
user writes another language; their memories are then read by e5 itself (memories/writer.py).
The carried reading keeps a memory's topic (held-out cosine with e5's own 0.92; 0.62 centred
on e5's mean, as a question in another language ranks), not what tells one person's memories
apart: it finds a fact among a few, not among hundreds (eval/RESULTS.md, "Multilingual, fifth
pass").
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

MATRIX = Path(__file__).with_name("e5_to_minilm.npy")
TO_E5 = Path(__file__).with_name("minilm_to_e5.npy")


@functools.cache
def _matrix(path: Path = MATRIX) -> np.ndarray:
    return np.load(path)


# A carried reading of a Chinese or Spanish fact scores about half what MiniLM gives the same
# fact in English, question for question (the truth scenarios' facts in zh / es against their
# English: least squares 1.77 / 1.87, offset ~0): its length makes up for it, so an English
# question's score keeps its meaning.
SCALE = 1.8


def to_minilm(e5_passage: np.ndarray) -> np.ndarray:
    """A memory's e5 (passage) reading, as MiniLM would read its English (length ``SCALE``)."""
    carried = e5_passage @ _matrix()
    return (SCALE * carried / np.linalg.norm(carried)).astype(np.float32)


def to_e5(minilm: np.ndarray) -> np.ndarray:
    """An English memory's MiniLM reading, as e5 would read it (unit length, as e5's own)."""
    carried = minilm @ _matrix(TO_E5)
    return (carried / np.linalg.norm(carried)).astype(np.float32)


def fit(read: np.ndarray, wanted: np.ndarray, ridge: float) -> np.ndarray:
    """``W`` minimising ``|X·W - Y|² + ridge·|W|²``: X ``read`` by one model, Y the same texts
    as the other reads them (``wanted``), row for row."""
    gram = read.T @ read + ridge * np.eye(read.shape[1])
    return np.linalg.solve(gram, read.T @ wanted).astype(np.float32)
