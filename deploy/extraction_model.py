"""The extraction model's container (deploy/Dockerfile, target `extraction-model`): the local
model of `make run` (devstack/local_llm.py), served OpenAI-compatible on a port other containers
reach. It is not part of the product image; the processors see an ordinary `memory_extraction`
endpoint (deploy/compose.yaml).

    prepare OUT  build stage only (the `local-model` extra, devstack/ and memory_extproc/ there):
                 moves the GGUF that `python -m devstack.local_llm assemble` joined and
                 sha256-checked to OUT/model.gguf, and writes OUT/model.json (its served name and
                 digest) and OUT/requirements.txt (the `local-model` extra of pyproject.toml less
                 its 22 weight packages, which are data already joined into the GGUF)
    serve DIR    final stage: llama.cpp's server (xllamacpp) on --host/--port until SIGTERM

Standard library only, apart from `devstack` in `prepare` and `xllamacpp` in `serve`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRA = "local-model"


def _distribution(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def serving_requirements(pyproject: Path, data_packages: tuple[str, ...]) -> list[str]:
    """The `local-model` extra as pyproject.toml pins it, less the weight packages."""
    extra = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"][EXTRA]
    data = {_distribution(p) for p in data_packages}
    return [r for r in extra if _distribution(r) not in data]


def prepare(out: Path) -> None:
    from devstack import local_llm  # build stage only

    gguf = local_llm.gguf_path()  # assembled and sha256-checked by `assemble` before this
    out.mkdir(parents=True, exist_ok=True)
    shutil.move(gguf, out / "model.gguf")
    (out / "model.gguf").chmod(0o644)  # joined in a 0600 temporary file; served by a non-root user
    meta = {"name": local_llm.MODEL_NAME, "sha256": local_llm.GGUF_SHA256,
            "bytes": local_llm.GGUF_BYTES, "context_tokens": local_llm.CONTEXT_TOKENS}  # fmt: skip
    (out / "model.json").write_text(json.dumps(meta, indent=2) + "\n")
    pins = serving_requirements(ROOT / "pyproject.toml", local_llm.PARTS)
    (out / "requirements.txt").write_text("".join(f"{p}\n" for p in pins))


def serve(directory: Path, host: str, port: int, threads: int) -> None:
    """Serve DIR/model.gguf as ``prepare`` left it, until SIGTERM/SIGINT."""
    meta = json.loads((directory / "model.json").read_text())
    model = directory / "model.gguf"
    if model.stat().st_size != meta["bytes"]:  # the full digest was checked at build time
        raise SystemExit(f"{model} is not {meta['bytes']} bytes")
    serve_model(model, meta["name"], meta["context_tokens"], host, port, threads)


def serve_model(
    model: Path, name: str, context_tokens: int, host: str, port: int, threads: int
) -> None:
    """llama.cpp's server (xllamacpp) until SIGTERM/SIGINT: this image's, and `make run`'s
    (devstack/local_llm.py serves the same way on loopback)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {name}
    params.hostnames = [host]
    params.port = port
    params.n_ctx = context_tokens
    params.n_parallel = 1
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = threads
        cpu.poll = 0  # sleep when idle instead of spinning
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # the server's threads inherit the mask
    server = xllamacpp.Server(params)
    print(f"serving {name} on {host}:{port}", flush=True)
    signal.sigwait(stop)
    del server
    os._exit(0)  # llama.cpp's teardown adds nothing a process exit does not


def main() -> None:
    parser = argparse.ArgumentParser(prog="extraction_model.py")
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("prepare", help="build stage: model file, name and pins into OUT")
    build.add_argument("out", type=Path)
    run = commands.add_parser("serve", help="serve DIR/model.gguf until SIGTERM")
    run.add_argument("directory", type=Path)
    run.add_argument("--host", default="0.0.0.0")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.out)
    else:
        serve(args.directory, args.host, args.port, args.threads)


if __name__ == "__main__":
    main()
