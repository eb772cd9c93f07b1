"""Another process revising one memory, for the cross-process write tests:
``python -m tests.integration.reviser URI COLLECTION LOCKS USER MEMORY_ID COUNT``, LOCKS a
directory of lock files, a Valkey URL, or "" for none."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path

import numpy as np

from memory_extproc.clock import now_ms
from memory_extproc.embedding.spaces import DIMENSION
from memory_extproc.store.locks import FileLocks, ProcessLocks
from memory_extproc.store.locks_valkey import ValkeyLocks
from memory_extproc.store.milvus import MilvusStore


async def revise(store: MilvusStore, user: str, memory_id: str, count: int, name: str) -> None:
    """``count`` revisions of one memory, each a new content ("<name> <i>")."""
    for i in range(count):
        current = await store.get(user, memory_id)
        assert current is not None, "the memory vanished during a revision"
        revised = dataclasses.replace(current, content=f"{name} {i}", updated_at=now_ms())
        vector = np.ones(DIMENSION, dtype=np.float32) / np.sqrt(DIMENSION)
        assert await store.revise(revised, vector, "test", wait_visible=False), "not found"


def process_locks(where: str) -> ProcessLocks | None:
    if where.startswith("valkey://"):
        return ValkeyLocks(where, timeout_s=1.0)
    return FileLocks(Path(where)) if where else None


async def main(uri: str, collection: str, locks: str, user: str, memory_id: str, n: str) -> None:
    store = MilvusStore(uri, collection, DIMENSION, locks=process_locks(locks))
    await store.start()
    assert await store.wait_available(60)
    print("ready", flush=True)
    sys.stdin.readline()
    await revise(store, user, memory_id, int(n), "child")
    await store.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
