"""Retention through the real stack: TTL set at write, renewal by use (counted in the processor,
written by the worker), the per-user cap, and the pruner."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime

import numpy as np
import pytest

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM
from devstack.tokens import DevIdentity
from memory_extproc.store.model import Memory
from tests.integration.conftest import Stack, open_store, running_stack, until

pytestmark = pytest.mark.integration
COLLECTION = "it_retention"
DAY_MS = 86_400_000


@pytest.fixture(scope="module")
async def retaining(
    tmp_path_factory: pytest.TempPathFactory,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
) -> AsyncIterator[Stack]:
    retention = {
        "ttl_days": 1,
        "max_memories_per_user": 3,
        "usage_flush_seconds": 0.2,
        "prune_interval_seconds": 0.5,
    }
    async with running_stack(
        tmp_path_factory.mktemp("retention"), f"127.0.0.1:{milvus.port}", llm, identity,
        collection=COLLECTION, memory={"auto_store": False, "retention": retention},
    ) as stack:  # fmt: skip
        yield stack


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


async def test_ttl_is_set_at_write(retaining: Stack, user: str) -> None:
    before = int(time.time() * 1000)
    _, added = await retaining.api(
        "POST", "/v1/memory", {"content": "User is allergic to peanuts"}, user=user
    )
    assert before + DAY_MS <= ms(added["expires_at"]) <= int(time.time() * 1000) + DAY_MS


async def test_use_renews_a_memory_close_to_expiry(
    retaining: Stack, milvus: MilvusProcess, stored_vector: Callable[[str], np.ndarray], user: str
) -> None:
    store = await open_store(milvus, COLLECTION)
    hour = 3_600_000
    try:
        memory = dataclasses.replace(
            Memory.new(user, "User is allergic to peanuts"),
            expires_at=int(time.time() * 1000) + hour,  # less than half the TTL left: due
        )
        await store.store(memory, stored_vector(memory.content))
    finally:
        await store.close()
    for _ in range(2):
        assert len(await retaining.ask("Am I allergic to peanuts?", user=user)) == 1

    async def renewed() -> dict | None:
        # 404 for a moment while the worker renews it (delete + insert, from another process)
        status, got = await retaining.api("GET", f"/v1/memory/{memory.id}", user=user)
        return got if status == 200 and got["access_count"] == 2 else None

    got = await until(renewed)
    assert ms(got["expires_at"]) > memory.expires_at + DAY_MS - 2 * hour  # ~a day from now


async def test_the_least_recently_used_go_over_the_cap(retaining: Stack, user: str) -> None:
    texts = ["User owns a red kayak", "User's sister is Ana", "User drinks oolong", "User is 41"]
    ids = []
    for text in texts:
        _, added = await retaining.api("POST", "/v1/memory", {"content": text}, user=user)
        ids.append(added["id"])
    _, page = await retaining.api("GET", "/v1/memory", user=user)
    assert [m["id"] for m in page["data"]] == ids[:0:-1]  # the oldest, never used, went
    assert (
        await retaining.metric("memory_retention_removed_total", {"reason": "over_user_cap"}) >= 1
    )


async def test_expired_memories_are_pruned(
    retaining: Stack, milvus: MilvusProcess, stored_vector: Callable[[str], np.ndarray], user: str
) -> None:
    store = await open_store(milvus, COLLECTION)
    try:
        memory = dataclasses.replace(
            Memory.new(user, "User's passport number ends in 77"),
            expires_at=int(time.time() * 1000) - 1,
        )
        await store.store(memory, stored_vector(memory.content))
        assert (await retaining.api("GET", f"/v1/memory/{memory.id}", user=user))[0] == 404

        async def pruned() -> bool:
            return await store.get(user, memory.id) is None

        await until(pruned)
    finally:
        await store.close()
