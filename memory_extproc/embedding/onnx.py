"""all-MiniLM-L6-v2 on onnxruntime: tokenize, run, mean-pool, normalize."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from memory_extproc.embedding.model import DIMENSION, MAX_SEQUENCE_TOKENS, ModelFiles


def session(graph: Path, threads: int) -> ort.InferenceSession:
    """A graph on the CPU, ``threads`` for each run and one run at a time (each model has its
    own thread: embedding/batcher.py)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


class OnnxEmbedder:
    """Synchronous and CPU-bound: call it from a worker thread, never from the event loop."""

    dimension = DIMENSION

    def __init__(self, files: ModelFiles, threads: int = 1) -> None:
        files.verify()
        self._tokenizer = Tokenizer.from_file(str(files.tokenizer))
        self._tokenizer.enable_truncation(max_length=MAX_SEQUENCE_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # a token, not a secret
        self._session = session(files.onnx, threads)
        output = self._session.get_outputs()[0]
        if output.shape[-1] != DIMENSION:
            raise ValueError(
                f"model {files.onnx} outputs {output.shape[-1]} dimensions, expected {DIMENSION}"
            )
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._batchable = files.batchable

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text; a text's vector never depends on the
        other texts of the call."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        if not self._batchable and len(texts) > 1:
            return np.concatenate([self._run([text]) for text in texts])
        return self._run(texts)

    def _run(self, texts: list[str]) -> np.ndarray:
        # one text (every text of an int8 graph): ``encode`` costs ~0.3 ms less than a batch of
        # one, which hands it to the tokenizer's thread pool and gives up the GIL to get it back
        tokenizer = self._tokenizer
        encodings = (
            [tokenizer.encode(texts[0])] if len(texts) == 1 else tokenizer.encode_batch(texts)
        )
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self._session.run(None, feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
