"""devstack/embeddings.py: mem0 (`make compare`) must get exactly the product's vectors."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import numpy as np
import pytest

from devstack.embeddings import MODEL_NAME, EmbeddingsServer
from devstack.ports import free_port
from memory_extproc.embedding import OnnxEmbedder
from memory_extproc.words import in_memory_voice

TEXTS = ["My budget for the Hawaii trip is $10,000", "I live in Berlin, in a flat near the river."]


@pytest.fixture
async def server(embedder: OnnxEmbedder) -> AsyncIterator[EmbeddingsServer]:
    served = EmbeddingsServer(embedder)
    await served.start(port=free_port())
    yield served
    await served.stop()


async def _post(server: EmbeddingsServer, body: dict[str, Any]) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{server.base_url}/embeddings", json=body) as response,
    ):
        return response.status, await response.json()


async def test_a_string_gets_the_product_embedders_vector(
    server: EmbeddingsServer, embedder: OnnxEmbedder
) -> None:
    status, answer = await _post(server, {"input": TEXTS[0], "model": MODEL_NAME})
    assert status == 200
    assert answer["model"] == MODEL_NAME
    (item,) = answer["data"]
    served = np.array(item["embedding"], dtype=np.float32)
    assert served.shape == (embedder.dimension,)
    assert np.array_equal(served, embedder.embed([in_memory_voice(TEXTS[0])])[0])  # bit for bit


async def test_a_list_gets_one_vector_per_item_in_order(
    server: EmbeddingsServer, embedder: OnnxEmbedder
) -> None:
    texts = [TEXTS[1], TEXTS[0], TEXTS[1]]
    status, answer = await _post(server, {"input": texts, "encoding_format": "float"})
    assert status == 200
    assert [item["index"] for item in answer["data"]] == [0, 1, 2]
    served = np.array([item["embedding"] for item in answer["data"]], dtype=np.float32)
    expected = np.stack([embedder.embed([in_memory_voice(t)])[0] for t in texts])
    assert np.array_equal(served, expected)  # a vector never depends on the call's other texts


async def test_base64_the_openai_clients_default_decodes_to_the_same_vector(
    server: EmbeddingsServer, embedder: OnnxEmbedder
) -> None:
    status, answer = await _post(server, {"input": [TEXTS[0]], "encoding_format": "base64"})
    assert status == 200
    raw = base64.b64decode(answer["data"][0]["embedding"])
    assert np.array_equal(
        np.frombuffer(raw, dtype="<f4"), embedder.embed([in_memory_voice(TEXTS[0])])[0]
    )


@pytest.mark.parametrize(
    "body",
    [{"input": []}, {"input": [1, 2, 3]}, {"input": "x", "dimensions": 1536}, {"text": "x"}],
)
async def test_what_it_cannot_answer_is_a_400_in_openais_shape(
    server: EmbeddingsServer, body: dict[str, Any]
) -> None:
    status, answer = await _post(server, body)
    assert status == 400
    assert answer["error"]["type"] == "invalid_request_error"
