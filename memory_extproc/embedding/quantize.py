"""The int8 variant of the model: weights *and* matrix products in int8 (VNNI), derived locally.

The packaged ONNX file stores int8 weights but computes in float32, so every query streams ~86 MB
of float weights through the CPU: 6.7 ms per short query when the caches are cold (measured on
the 2-core dev machine), 3.6 ms when warm. Dynamic per-channel int8 quantization of that graph
(onnxruntime.quantization, deterministic for pinned versions) runs in 2.7 / 1.8 ms, and moves
retrieval quality little: LoCoMo dev hit@5 0.732 → 0.725, vectors at cosine ≥ 0.99 of the float
model's. It is built once from the pinned file (no download) and checked by sha256 like it.

`python -m memory_extproc.embedding.quantize` builds it ahead of time (`make setup` does).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from memory_extproc.embedding.model import ModelFiles, ModelIntegrityError, model_files

INT8_SHA256 = "9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "memory-extproc"


def _digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def int8_model(source: ModelFiles, cache_dir: Path = DEFAULT_CACHE) -> ModelFiles:
    """The int8 variant of ``source`` (the pinned packaged files), built on first use."""
    target = cache_dir / f"all-MiniLM-L6-v2-int8-dynamic-{INT8_SHA256[:16]}.onnx"
    if not target.exists():
        _build(source, target)
    digest = _digest(target)
    if digest != INT8_SHA256:
        raise ModelIntegrityError(
            f"{target} has sha256 {digest}, expected {INT8_SHA256}: delete it to rebuild "
            "(onnxruntime must be the pinned version), or set embedding.precision: float"
        )
    return ModelFiles(target, source.tokenizer, None, source.tokenizer_sha256, batchable=False)


def _build(source: ModelFiles, target: Path) -> None:
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    source.verify()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        folded = Path(work) / "float.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)  # int8 storage folded into float weights
        ort.InferenceSession(str(source.onnx), options, providers=["CPUExecutionProvider"])
        quantized = Path(work) / "int8.onnx"
        quantize_dynamic(folded, quantized, weight_type=QuantType.QInt8, per_channel=True)
        os.replace(quantized, target)  # atomic: a concurrent start never reads half a file


if __name__ == "__main__":
    files = int8_model(model_files())
    print(f"{files.onnx} ({_digest(files.onnx)})")
