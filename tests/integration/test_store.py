"""One contract, two stores: MilvusStore (real Milvus) and the InMemoryStore unit tests use."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import numpy as np
import pytest
from pymilvus import MilvusClient

from devstack.milvus import MilvusProcess
from devstack.valkey import ValkeyProcess
from memory_extproc.clock import now_ms
from memory_extproc.embedding.spaces import DIMENSION
from memory_extproc.store.filters import forget_digest
from memory_extproc.store.locks import Fence
from memory_extproc.store.locks_valkey import Lease
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.milvus_schema import SchemaMismatchError
from memory_extproc.store.model import (
    PENDING,
    Memory,
    MemoryType,
    SearchRequest,
    Store,
    StoreUnavailableError,
    content_hash,
)
from tests.conftest import Vectors
from tests.integration.conftest import open_store, until
from tests.integration.reviser import process_locks, revise

pytestmark = pytest.mark.integration


@pytest.fixture(params=["milvus", "memory"])
async def store(request: pytest.FixtureRequest, milvus: MilvusProcess) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield InMemoryStore()
        return
    milvus_store = await open_store(milvus, "it_store_contract")
    yield milvus_store
    await milvus_store.close()


async def put(store: Store, vectors: Vectors, user: str, text: str, **kw: object) -> Memory:
    memory = Memory.new(user, text, **kw)  # type: ignore[arg-type]
    await store.store(memory, vectors.stored(text))
    return memory


def search(vectors: Vectors, user: str, text: str, **kw: object) -> SearchRequest:
    return SearchRequest(user, vectors.query(text), **kw)  # type: ignore[arg-type]


async def test_stored_memories_are_found_at_once_by_their_user_only(
    store: Store, vectors: Vectors
) -> None:
    alice, bob = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    mine = await put(store, vectors, alice, "My budget for the Hawaii trip is $10,000")
    await put(store, vectors, bob, "My budget for the Hawaii trip is $99")
    (found,) = await store.retrieve(search(vectors, alice, "What's my Hawaii trip budget?"))
    assert found.memory.id == mine.id
    assert found.memory.content == mine.content
    assert found.memory.created_at == mine.created_at
    assert 0.6 < found.score <= 1.0
    assert await store.get(alice, mine.id) == mine
    assert await store.get(bob, mine.id) is None  # another user's id: not found
    assert [m.id for m in await store.list(alice)] == [mine.id]


async def test_a_complete_search_returns_whole_memories(store: Store, vectors: Vectors) -> None:
    alice = f"alice-{uuid.uuid4().hex[:6]}"
    mine = await put(
        store, vectors, alice, "I keep my passport in the blue drawer", source="api",
        meta={"origin": "test"},
    )  # fmt: skip
    (found,) = await store.retrieve(search(vectors, alice, "Where is my passport?", complete=True))
    assert found.memory == mine


async def test_filters_by_type_project_and_threshold(store: Store, vectors: Vectors) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    text = "To deploy the app the user runs make release"
    await put(store, vectors, user, text, type=MemoryType.PROCEDURAL, project_id="work")
    await put(store, vectors, user, "User deployed the app on Friday", type=MemoryType.EPISODIC)
    query = "How do I deploy the app?"
    both = await store.retrieve(search(vectors, user, query, threshold=0.3))
    assert {m.memory.type for m in both} == {MemoryType.PROCEDURAL, MemoryType.EPISODIC}
    procedural = await store.retrieve(
        search(vectors, user, query, threshold=0.3, types=[MemoryType.PROCEDURAL])
    )
    assert [m.memory.type for m in procedural] == [MemoryType.PROCEDURAL]
    work = await store.retrieve(search(vectors, user, query, threshold=0.3, project_id="work"))
    assert [m.memory.project_id for m in work] == ["work"]
    assert await store.retrieve(search(vectors, user, query, threshold=0.99)) == []


async def test_revise_keeps_id_and_creation_and_leaves_an_audit_row(
    store: Store, vectors: Vectors
) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    old = await put(store, vectors, user, "User's budget for the Hawaii trip is $10,000")
    new_text = "User's budget for the Hawaii trip is now $15,000"
    revised = dataclasses.replace(
        old, content=new_text, content_hash=content_hash(new_text), updated_at=old.updated_at + 1
    )
    await store.revise(revised, vectors.stored(new_text), "updated")
    (active,) = await store.list(user)
    assert (active.id, active.content, active.created_at) == (old.id, new_text, old.created_at)
    digests = [content_hash(new_text), content_hash(old.content)]
    assert (await store.existing_hashes(user, digests)).keys() == {
        digests[0]
    }  # the audit row is inactive
    hits = await store.retrieve(search(vectors, user, "Hawaii trip budget", threshold=0.0))
    assert [h.memory.content for h in hits] == [new_text]


async def test_a_retired_memory_leaves_every_search_for_the_winners_history_and_goes_with_it(
    store: Store, vectors: Vectors
) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    home = await put(store, vectors, user, "User lives in Denver")
    moved = dataclasses.replace(
        home, content="User lives in Boulder", updated_at=home.updated_at + 1
    )
    await store.revise(moved, vectors.stored(moved.content), "changed by a newer memory")
    winner = await put(
        store, vectors, user, "User moved to Seattle", created_at=home.created_at + 2
    )
    assert not await store.retire("other-user", home.id, winner.id, "changed by a newer memory")
    assert await store.retire(user, home.id, winner.id, "changed by a newer memory")
    # gone, at once, for this client too (Milvus 2.3 records no timestamp for a delete)
    assert not await store.retire(user, home.id, winner.id, "changed by a newer memory")
    assert not await store.revise(moved, vectors.stored(moved.content), "updated")
    assert await store.get(user, home.id) is None
    assert [m.content for m in await store.list(user)] == ["User moved to Seattle"]
    hits = await store.retrieve(search(vectors, user, "Where does the user live?", threshold=-1))
    assert [h.memory.id for h in hits] == [winner.id]
    history = await store.history(user, winner.id)
    assert sorted(m.content for m in history) == ["User lives in Boulder", "User lives in Denver"]
    assert await store.history(user, home.id) == []
    assert await store.forget(user, winner.id)
    assert await store.history(user, winner.id) == []  # the retired memory and its history too


async def test_a_memory_is_rekeyed_only_as_it_was_read(store: Store, vectors: Vectors) -> None:
    """Another vector for the same memory (its e5 part read again, memories/writer.py): no
    audit row, its uses kept, and never over a revision or a forget that came meanwhile."""
    user = f"u-{uuid.uuid4().hex[:6]}"
    cello = await put(store, vectors, user, "User plays the cello")
    kiwi = await put(store, vectors, user, "User is allergic to kiwi")
    gone = await put(store, vectors, user, "User lives in Lisbon")
    await put(store, vectors, f"x{user}", "User plays the cello")
    held = {m.id: v for m, v in await store.stored_under(user)}
    assert held.keys() == {cello.id, kiwi.id, gone.id}  # theirs, with the vectors stored
    assert np.allclose(held[cello.id], vectors.stored(cello.content), atol=1e-6)
    await store.record_use([(user, cello.id, 2)], now_ms(), 0)
    stamps = vectors.stored("User collects vintage stamps")
    assert await store.rekey(cello, stamps)  # used since it was read: still the same memory
    asked = search(vectors, user, "What does the user collect?", limit=1, threshold=0.0)

    async def found_by_its_new_key() -> bool:  # visible a Milvus time tick later (not waited for)
        (found,) = await store.retrieve(asked)
        return (found.memory.id, found.memory.content) == (cello.id, cello.content)

    assert await until(found_by_its_new_key)
    current = await store.get(user, cello.id)
    assert current is not None
    assert current.access_count == 2
    assert await store.history(user, cello.id) == []
    text = "User is allergic to kiwi and mango"
    await store.revise(dataclasses.replace(kiwi, content=text, content_hash=content_hash(text),
                                           updated_at=kiwi.updated_at + 1),
                       vectors.stored(text), "updated")  # fmt: skip
    assert not await store.rekey(kiwi, stamps)  # revised meanwhile
    await store.forget(user, gone.id)
    assert not await store.rekey(gone, stamps)  # forgotten meanwhile
    assert await store.get(user, gone.id) is None


async def test_a_memory_held_for_review_is_listed_apart_never_searched_and_amended_in_place(
    store: Store, vectors: Vectors
) -> None:
    """What the confidence bar holds (memories/confidence.py): out of every search and of the
    active listing and hashes, listed with ``pending``; confirmed by an amend that keeps its
    vector and writes no audit row; forgotten with its user."""
    user = f"u-{uuid.uuid4().hex[:6]}"
    text = "User is allergic to shellfish"
    held = Memory.new(user, text, meta={"confidence": "uncertain"})
    held = dataclasses.replace(held, superseded_by=PENDING, expires_at=now_ms() + 60_000)
    await store.store(held, vectors.stored(text))
    asked = search(vectors, user, "Am I allergic to anything?", limit=5, threshold=0.0)
    assert await store.retrieve(asked) == []
    assert await store.list(user) == []
    assert await store.existing_hashes(user, [held.content_hash]) == {}
    assert [m.id for m in await store.list(user, pending=True)] == [held.id]
    assert await store.list(f"x{user}", pending=True) == []
    confirmed = dataclasses.replace(held, superseded_by="", expires_at=0,
                                    meta={"confidence": "stated"})  # fmt: skip
    assert await store.amend(confirmed)
    (found,) = await store.retrieve(asked)
    assert (found.memory.id, found.memory.content) == (held.id, text)
    assert await store.list(user, pending=True) == []
    current = await store.get(user, held.id)
    assert current is not None
    assert current.meta == {"confidence": "stated"}
    assert await store.history(user, held.id) == []
    edited = dataclasses.replace(held, content="User is allergic to shrimp", updated_at=1)
    assert not await store.amend(edited)  # not the memory as read: amend is no revision
    again = dataclasses.replace(Memory.new(user, "User might move to Oslo"),
                                superseded_by=PENDING)  # fmt: skip
    await store.store(again, vectors.stored(again.content))
    assert await store.forget_by_scope(user) == 2
    assert await store.list(user, pending=True) == []


async def test_many_at_once(store: Store, vectors: Vectors) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    texts = ["User lives in Lisbon", "User plays the cello", "User is allergic to kiwi"]
    stored = [vectors.stored(t) for t in texts]
    await store.store_many([(Memory.new(user, t), v) for t, v in zip(texts, stored, strict=True)])
    found = await store.retrieve_many(
        [SearchRequest(user, vectors.query(q), limit=1, threshold=0.3)
         for q in ("Where does the user live?", "Which instrument?", "Any allergies?")]
    )  # fmt: skip
    assert [hits[0].memory.content for hits in found] == texts
    assert (await store.existing_hashes(user, [content_hash(t) for t in texts])).keys() == {
        content_hash(t) for t in texts
    }
    assert await store.existing_hashes("someone-else", [content_hash(texts[0])]) == {}


async def test_forget_one_and_forget_a_scope(store: Store, vectors: Vectors) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    a = await put(store, vectors, user, "User likes green tea")
    await put(store, vectors, user, "User likes jazz", project_id="p1")
    await put(store, vectors, user, "User likes chess", project_id="p1")
    assert not await store.forget("other-user", a.id)
    assert sorted(await asyncio.gather(*(store.forget(user, a.id) for _ in range(3)))) == [
        False, False, True,
    ]  # fmt: skip  # of three forgets at once, one found it
    assert await store.get(user, a.id) is None
    assert await store.forget_by_scope(user, project_id="p1") == 2
    assert await store.list(user) == []
    assert (
        await store.retrieve(search(vectors, user, "What does the user like?", threshold=-1)) == []
    )


async def test_a_forget_record_is_nobodys_memory(store: Store, vectors: Vectors) -> None:
    """A forget is filed under a digest of its user id; a user whose id is that digest forgets
    their own memories, never the record (which keeps turns said before it from being learned)."""
    victim = f"u-{uuid.uuid4().hex[:6]}"
    await put(store, vectors, victim, "User likes green tea")
    assert await store.forget_by_scope(victim) == 1
    forgotten = await store.forgotten_at(victim, "")
    assert forgotten > 0
    namesake = forget_digest(victim)
    await put(store, vectors, namesake, "User likes jazz")
    assert await store.forget_by_scope(namesake) == 1  # their one memory, not the record
    assert await store.forgotten_at(victim, "") == forgotten


async def test_a_collection_of_another_dimension_is_refused(milvus: MilvusProcess) -> None:
    other = MilvusStore(milvus.uri, "it_store_contract", 768)
    with pytest.raises(
        SchemaMismatchError, match="769-dimensional vectors but the embedding model produces 768"
    ):
        await other.start()
    await other.close()


async def test_a_new_collection_gets_the_configured_partitions_and_the_exact_index(
    milvus: MilvusProcess,
) -> None:
    """`make scale` chose both: FLAT (exact: a search filters to one user's rows) and the
    partition count an operator sizes for (docs/operations/sizing.md), fixed when the
    collection is made."""
    name = f"it_partitions_{uuid.uuid4().hex[:6]}"
    store = MilvusStore(milvus.uri, name, DIMENSION, partitions=16)
    await store.start()
    assert await store.wait_available(60)
    await store.close()
    client = MilvusClient(uri=milvus.uri)
    try:
        assert client.describe_collection(name)["num_partitions"] == 16
        assert client.describe_index(name, "embedding")["index_type"] == "FLAT"
    finally:
        client.drop_collection(name)
        client.close()


async def test_expired_memories_are_not_found_and_get_pruned(
    store: Store, vectors: Vectors
) -> None:
    user = f"ttl-{uuid.uuid4().hex[:6]}"
    now = now_ms()
    alive = await put(store, vectors, user, "User's bike is blue", expires_at=now + 60_000)
    gone = await put(store, vectors, user, "User's car is blue", expires_at=now - 1)
    found = await store.retrieve(search(vectors, user, "what colour is my vehicle", threshold=0))
    assert [f.memory.id for f in found] == [alive.id]
    assert [m.id for m in await store.list(user)] == [alive.id]
    assert await store.existing_hashes(user, [gone.content_hash]) == {}  # re-learnable
    assert await store.prune_expired(now) >= 1
    assert await store.get(user, gone.id) is None
    assert await store.get(user, alive.id) == alive


async def test_record_use_counts_and_renews(store: Store, vectors: Vectors) -> None:
    user = f"use-{uuid.uuid4().hex[:6]}"
    now = now_ms()
    memory = await put(store, vectors, user, "User's gym is on Elm St", expires_at=now + 1000)
    never = await put(store, vectors, user, "User's shoe size is 42")
    day = 86_400_000
    changed = await store.record_use([(user, memory.id, 3), (user, never.id, 1)], now, day)
    assert changed == 2
    renewed = await store.get(user, memory.id)
    assert renewed is not None
    assert (renewed.access_count, renewed.expires_at) == (3, now + day)
    assert renewed.meta["last_used_at"] == now
    (found,) = await store.retrieve(search(vectors, user, "User's gym is on Elm St", limit=1))
    assert found.memory.id == memory.id  # still searchable after the rewrite
    assert await store.record_use([(f"x{user}", memory.id, 1)], now, day) == 0  # not theirs


async def test_trim_keeps_the_most_recently_used(store: Store, vectors: Vectors) -> None:
    user = f"cap-{uuid.uuid4().hex[:6]}"
    t0 = now_ms() - 10_000
    first = await put(store, vectors, user, "User likes figs", created_at=t0)
    second = await put(store, vectors, user, "User likes plums", created_at=t0 + 1)
    third = await put(store, vectors, user, "User likes kiwis", created_at=t0 + 2)
    await store.record_use([(user, first.id, 1)], now_ms(), 0)  # used lately: kept
    assert await store.trim(user, 2) == 1
    assert {m.id for m in await store.list(user)} == {first.id, third.id}
    assert await store.get(user, second.id) is None
    assert await store.trim(user, 2) == 0


class LostLocks:
    """Locks granted, then lost before the write (a lease that ended, in Valkey)."""

    @contextlib.asynccontextmanager
    async def memories(self, user_id: str, memory_ids: Iterable[str]) -> AsyncIterator[Fence]:
        yield Lease(time.monotonic(), valid_s=10.0, lost=True)

    @contextlib.asynccontextmanager
    async def user(self, user_id: str) -> AsyncIterator[Fence]:
        yield Lease(time.monotonic(), valid_s=10.0, lost=True)

    async def aclose(self) -> None:
        pass


async def test_a_write_whose_lock_was_lost_touches_nothing(
    milvus: MilvusProcess, vectors: Vectors
) -> None:
    good = await open_store(milvus, "it_store_contract")
    lost = MilvusStore(milvus.uri, "it_store_contract", DIMENSION, locks=LostLocks())
    await lost.start()
    assert await lost.wait_available(60)
    user = f"lost-{uuid.uuid4().hex[:6]}"
    try:
        kept = await put(good, vectors, user, "User's gym is on Elm St")
        revised = dataclasses.replace(kept, content="User's gym is on Oak St")
        with pytest.raises(StoreUnavailableError, match="lost"):
            await lost.revise(revised, vectors.stored(revised.content), "test")
        with pytest.raises(StoreUnavailableError, match="lost"):
            await lost.forget_by_scope(user)
        with pytest.raises(StoreUnavailableError, match="lost"):
            await put(lost, vectors, user, "User likes figs")
        assert await good.list(user) == [kept]
        assert await good.history(user, kept.id) == []  # no audit row either
    finally:
        await lost.close()
        await good.close()


async def two_processes_revising(milvus: MilvusProcess, locks: str, count: int) -> tuple[int, int]:
    """This process and another revise one memory ``count`` times each, at once, while a
    reader gets it again and again: (rows of the memory id after, gets that found nothing).
    ``locks``: where both take their write locks (tests/integration/reviser.py)."""
    store = MilvusStore(milvus.uri, "it_revisions", DIMENSION, locks=process_locks(locks))
    await store.start()
    assert await store.wait_available(60)
    user = f"rev-{uuid.uuid4().hex[:6]}"
    memory = Memory.new(user, "revision 0")
    await store.store(memory, np.ones(DIMENSION, dtype=np.float32) / np.sqrt(DIMENSION))
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.integration.reviser", milvus.uri, "it_revisions",
        locks, user, memory.id, str(count),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdin is not None
    assert child.stdout is not None
    assert await child.stdout.readline() == b"ready\n"
    child.stdin.write(b"go\n")
    done = asyncio.Event()
    misses = 0

    async def read() -> None:
        nonlocal misses
        while not done.is_set():
            misses += await store.get(user, memory.id) is None

    async def write() -> None:
        await revise(store, user, memory.id, count, "parent")
        assert await child.wait() == 0
        done.set()

    async with asyncio.timeout(120):
        await asyncio.gather(read(), write())
    client = MilvusClient(uri=milvus.uri)
    # count(*): a query by id shows one row of a key stored twice (the oldest), a count both
    ((counted,),) = [
        client.query(
            "it_revisions", filter=f'id == "{memory.id}"', output_fields=["count(*)"],
            consistency_level="Strong",
        )
    ]  # fmt: skip
    client.close()
    await store.close()
    return int(counted["count(*)"]), misses


async def test_two_processes_revising_one_memory_keep_one_row_and_never_hide_it(
    milvus: MilvusProcess, tmp_path: Path
) -> None:
    # without the shared locks, 1 of 3 such rounds stored the memory twice (replicas docs)
    for _ in range(3):
        rows, misses = await two_processes_revising(milvus, str(tmp_path / "locks"), 20)
        assert (rows, misses) == (1, 0)


async def test_two_processes_locking_in_valkey_revise_one_memory_into_one_row(
    milvus: MilvusProcess, valkey: ValkeyProcess
) -> None:
    """Replicas with no shared volume: the same locks as leases in Valkey."""
    for _ in range(3):
        rows, misses = await two_processes_revising(milvus, valkey.url, 20)
        assert (rows, misses) == (1, 0)
