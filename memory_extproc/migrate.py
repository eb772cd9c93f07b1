"""Copy a collection of an earlier release into the configured one, every row re-embedded.

Schema v1 held MiniLM's vectors alone (English only); v2 holds both models' readings
(embedding/spaces.py), so rows cannot be copied as they are: each row's text is embedded again.
Everything else is copied as stored: ids, history rows, forget records, dates, expiry, use
counts. A memory stored leaning toward the words it was said in or the requests it bears on
(memories/writer.py) is stored under its own words: those are not kept in the row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from pymilvus import MilvusClient

from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.milvus_schema import OUTPUT_FIELDS, memory_of

BATCH = 256


def _rows(client: MilvusClient, collection: str) -> Iterator[list[dict[str, Any]]]:
    iterator = client.query_iterator(collection, batch_size=BATCH, output_fields=OUTPUT_FIELDS)
    try:
        while batch := iterator.next():
            yield batch
    finally:
        iterator.close()


async def migrate(
    source: MilvusClient, collection: str, target: MilvusStore, embeddings: Embeddings
) -> int:
    """Rows copied from ``collection`` into ``target`` (already started)."""
    batches = _rows(source, collection)
    copied = 0
    while batch := await asyncio.to_thread(next, batches, None):
        memories = [memory_of(row) for row in batch]
        vectors = await embeddings.memories([m.content for m in memories])
        await target.store_many(list(zip(memories, vectors, strict=True)), wait_visible=False)
        copied += len(memories)
    return copied
