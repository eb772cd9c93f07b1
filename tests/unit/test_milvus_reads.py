"""A read under a memory's write lock sees what this process wrote, deletes included: Milvus 2.3
answers a delete with timestamp 0, so a Session read after it still returned the deleted row
(a retired memory retired twice, or revised back to life)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from memory_extproc.store import milvus_schema
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory

HOME = Memory.new("alice", "User lives in Denver", created_at=1000)
MOVE = Memory.new("alice", "User moved to Seattle", created_at=2000)


class Milvus23:
    """Rows by id; a Session read still sees the rows deleted since the last insert."""

    def __init__(self, *memories: Memory) -> None:
        self.rows = {m.id: milvus_schema.row(m, np.zeros(384, dtype=np.float32)) for m in memories}
        self.unseen: dict[str, dict[str, Any]] = {}  # deleted, no timestamp recorded

    async def insert(self, collection: str, rows: list[dict[str, Any]], **_: object) -> None:
        self.rows.update({r["id"]: r for r in rows})
        self.unseen.clear()  # the insert's timestamp is later than the delete's

    async def delete(self, collection: str, *, ids: list[str], **_: object) -> dict[str, int]:
        gone = {i: self.rows.pop(i) for i in ids if i in self.rows}
        self.unseen.update(gone)
        return {"delete_count": len(gone)}

    async def query(
        self, collection: str, *, filter: str, consistency_level: str = "", **_: object
    ) -> list[dict[str, Any]]:
        field, wanted = re.match(r'(\w+) == "([^"]+)"', filter).groups()  # type: ignore[union-attr]
        seen = self.rows if consistency_level == "Strong" else {**self.unseen, **self.rows}
        return [r for r in seen.values() if r[field] == wanted]


async def test_a_retired_memory_is_gone_for_the_process_that_retired_it() -> None:
    store = MilvusStore("http://127.0.0.1:1", "c", 384)
    store.connection._client = Milvus23(HOME, MOVE)  # type: ignore[assignment]
    assert await store.retire("alice", HOME.id, MOVE.id, "changed by a newer memory")
    assert await store.get("alice", HOME.id) is None
    assert not await store.retire("alice", HOME.id, MOVE.id, "changed by a newer memory")
    assert not await store.revise(HOME, np.zeros(384, dtype=np.float32), "updated")
    history = await store.history("alice", MOVE.id)
    assert [m.content for m in history] == [HOME.content]
