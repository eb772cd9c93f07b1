"""The product's embedder behind an OpenAI-compatible ``POST /v1/embeddings``, for `make compare`.

mem0, the peer we compare with, embeds only through an embeddings API. Served from the very
model the product runs by default (all-MiniLM-L6-v2, int8, on onnxruntime: unit-length,
384 dimensions, each text read in the memory voice first as the product reads it), both systems
see the same vectors, so what differs is what they do with them.
Loopback only; not part of the product.

    python -m devstack.embeddings --port N     serve until SIGTERM/SIGINT
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import signal
from typing import Any

import numpy as np
import orjson
from aiohttp import web

from devstack.aio_server import serve
from memory_extproc.embedding import OnnxEmbedder, model_files
from memory_extproc.embedding.quantize import int8_model
from memory_extproc.words import in_memory_voice

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_INPUTS = 2048  # OpenAI's own limit per request


class InvalidRequest(ValueError):
    """A request this endpoint cannot answer: a 400 with OpenAI's error shape."""


def product_embedder() -> OnnxEmbedder:
    """Built as the product builds its default (memory_extproc/wiring.py, precision int8)."""
    return OnnxEmbedder(int8_model(model_files()))


def parse_inputs(body: Any, dimension: int) -> tuple[list[str], str]:
    """The texts of an OpenAI embeddings request, and the encoding the answer is wanted in."""
    if not isinstance(body, dict):
        raise InvalidRequest("the body must be a JSON object")
    given = body.get("input")
    texts = [given] if isinstance(given, str) else given
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise InvalidRequest("input must be a string or a non-empty list of strings (no tokens)")
    if len(texts) > MAX_INPUTS:
        raise InvalidRequest(f"at most {MAX_INPUTS} inputs per request")
    dimensions = body.get("dimensions")
    if dimensions is not None and dimensions != dimension:
        raise InvalidRequest(f"{MODEL_NAME} has {dimension} dimensions, not {dimensions}")
    encoding = body.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise InvalidRequest("encoding_format must be float or base64")
    return texts, encoding


def embeddings_json(vectors: np.ndarray, encoding: str) -> dict[str, Any]:
    """OpenAI's response shape. Floats are the float32 values exactly; base64 is what the
    `openai` client asks for by default (little-endian float32)."""
    data = [
        {
            "object": "embedding",
            "index": i,
            "embedding": (
                base64.b64encode(row.astype("<f4").tobytes()).decode()
                if encoding == "base64"
                else row.tolist()
            ),
        }
        for i, row in enumerate(vectors)
    ]
    return {
        "object": "list",
        "data": data,
        "model": MODEL_NAME,
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


class EmbeddingsServer:
    """An aiohttp server with start()/stop(), like devstack/mock_llm.py."""

    def __init__(self, embedder: OnnxEmbedder | None = None) -> None:
        self._embedder = embedder
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        if self._embedder is None:  # loading the model takes a moment: off the event loop
            self._embedder = await asyncio.to_thread(product_embedder)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/embeddings", self._handle)
        self._runner, self.port = await serve(app, host, port)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _handle(self, request: web.Request) -> web.Response:
        embedder = self._embedder
        assert embedder is not None  # set by start()
        try:
            body = orjson.loads(await request.read())
            texts, encoding = parse_inputs(body, embedder.dimension)
        except (orjson.JSONDecodeError, InvalidRequest) as exc:
            error = {"message": str(exc), "type": "invalid_request_error"}
            return web.json_response({"error": error}, status=400)
        voiced = [in_memory_voice(t) for t in texts]
        vectors = await asyncio.to_thread(embedder.embed, voiced)  # CPU-bound
        return web.Response(
            body=orjson.dumps(embeddings_json(vectors, encoding)), content_type="application/json"
        )


async def _serve(host: str, port: int) -> None:
    server = EmbeddingsServer()
    await server.start(host, port)
    print(f"serving {MODEL_NAME} embeddings on http://{host}:{server.port}/v1", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devstack.embeddings")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    asyncio.run(_serve(args.host, args.port))


if __name__ == "__main__":
    main()
