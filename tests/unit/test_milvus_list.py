"""A listing reads the keys of a user's rows, then fetches one page of them: what happens to a
memory between the two reads must not end the listing early or drop the memory."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from memory_extproc.store import milvus_schema
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory

MEMORIES = [Memory.new("alice", f"fact {i}", created_at=1000 + i) for i in range(6)]


class Client:
    """Milvus as seen from a listing while one memory is mid-revision (deleted, not yet
    inserted again: found only by a read behind its writer) and one was forgotten."""

    def __init__(self, revised: str, forgotten: str) -> None:
        self.revised, self.forgotten = revised, forgotten

    async def query(
        self,
        collection: str,
        *,
        filter: str,
        output_fields: list[str],
        consistency_level: str = "",
        **_: object,
    ) -> list[dict]:
        if output_fields == ["user_id", "created_at"]:  # the key scan, before either happened
            return [{"id": m.id, "user_id": m.user_id, "created_at": m.created_at}
                    for m in MEMORIES]  # fmt: skip
        wanted = re.findall(r"mem_[0-9a-f]{32}", filter)
        rows: list[dict[str, Any]] = []
        for m in MEMORIES:
            if m.id not in wanted or m.id == self.forgotten:
                continue
            if m.id == self.revised and consistency_level != "Strong":
                continue
            rows.append(milvus_schema.row(m, np.zeros(384, dtype=np.float32)))
        return rows


async def test_a_listing_is_whole_while_a_memory_is_revised_or_forgotten() -> None:
    newest = sorted(MEMORIES, key=lambda m: m.created_at, reverse=True)
    store = MilvusStore("http://127.0.0.1:1", "c", 384)
    store.connection._client = Client(revised=newest[0].id, forgotten=newest[1].id)  # type: ignore[assignment]
    page = await store.list("alice", limit=3)
    assert [m.id for m in page] == [newest[0].id, newest[2].id, newest[3].id]
