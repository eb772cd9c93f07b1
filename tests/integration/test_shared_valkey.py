"""Replicas share conversation state through Valkey (``memory.valkey.url``,
learning/shared_valkey.py): the same behaviours as through the spool directory, run on a real
server, and what Valkey adds: keys that expire by themselves, and a Valkey that is down."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator

import pytest
import valkey as valkey_client
from prometheus_client import REGISTRY

from devstack.ports import free_port
from devstack.valkey import ValkeyProcess
from memory_extproc.learning import valkey_calls
from memory_extproc.learning.shared import KEEP_S
from memory_extproc.learning.shared_valkey import ValkeyConversations, forgotten_elsewhere
from tests.unit.test_shared_conversations import (  # noqa: F401  (run here on Valkey)
    Shared,
    captured,
    idle,
    record,
    replicas,
    responses_turn,
    test_a_conversation_spread_over_replicas_is_extracted_once,
    test_a_forget_removes_the_users_shared_state_before_it_returns,
    test_a_receipt_is_its_users_alone_says_what_became_of_the_turn_and_goes_with_a_forget,
    test_a_responses_chain_spread_over_replicas_is_learned_as_on_one,
    test_a_restarted_processor_does_not_extract_again_what_its_predecessor_flushed,
    test_an_idle_flush_leaves_the_turns_to_the_replica_that_saw_a_later_one,
    test_an_older_state_never_replaces_a_newer_one,
    test_what_compression_reads_is_the_users_alone_and_goes_with_a_forget,
)

pytestmark = pytest.mark.integration


@pytest.fixture
async def conversations(valkey: ValkeyProcess) -> AsyncIterator[Shared]:
    made: list[ValkeyConversations] = []

    def new() -> ValkeyConversations:
        with valkey_client.Valkey(port=valkey.port) as client:
            client.flushdb()  # a new fleet
        made.append(ValkeyConversations(valkey.url, timeout_s=1.0))
        return made[-1]

    yield new
    for store in made:
        await store.aclose()


def errors(operation: str) -> float:
    found = REGISTRY.get_sample_value("memory_shared_state_errors_total", {"operation": operation})
    return found or 0.0


async def test_every_key_expires_by_itself(conversations: Shared, valkey: ValkeyProcess) -> None:
    shared, (tracker,) = replicas(conversations(), 1, every=10)
    await record(shared, tracker, responses_turn(1), now=1)
    await shared.flushed()
    with valkey_client.Valkey(port=valkey.port) as client:
        keys = client.keys("memory-extproc:*")
        assert len(keys) == 3  # the state, the response id's conversation, the user's index
        assert all(0 < client.ttl(k) <= KEEP_S for k in keys)


async def test_damaged_state_is_ignored_and_the_turn_still_counted(
    conversations: Shared, valkey: ValkeyProcess
) -> None:
    shared, (first, second) = replicas(conversations(), 2, every=10)
    await record(shared, first, captured(1), now=1)
    await shared.flushed()
    with valkey_client.Valkey(port=valkey.port) as client:
        (state,) = client.keys("memory-extproc:*:c:*")
        for damage in (b"{not json", b'{"project_id": "", "state": {"turn": "x"}}', b"[1, 2]"):
            client.hset(state, "entry", damage)
            assert await record(shared, second, captured(2), now=2) is None
    (batch,) = await idle(shared, second)
    assert batch.new_turns == 2


async def test_valkey_down_the_turn_is_counted_from_the_request_and_sharing_comes_back(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fail open: with Valkey down a turn is recorded from what its request holds, each call
    counted; once it is back, the next call (after a pause) shares again."""
    monkeypatch.setattr(valkey_calls, "PAUSE_S", 0.0)
    port = free_port()
    shared, (first, second) = replicas(ValkeyConversations(f"valkey://127.0.0.1:{port}/0", 0.2),
                                       2, every=10)  # fmt: skip
    try:
        before = errors("read"), errors("write")
        await record(shared, first, responses_turn(1), now=1)  # nobody listens there
        await shared.flushed()
        assert (errors("read"), errors("write")) == (before[0] + 1, before[1] + 1)
        server = ValkeyProcess(tmp_path_factory.mktemp("valkey-late"), port)
        try:
            server.wait_ready()
            await record(shared, first, responses_turn(2), now=2)
            await shared.flushed()
            assert await record(shared, second, responses_turn(3), now=3) is None
            (batch,) = await idle(shared, second)
            assert batch.new_turns == 3  # the chain came through Valkey, turn 1 with it
            assert batch.messages[0].text == "message 1"
        finally:
            server.stop()
    finally:
        await shared.aclose()


async def test_a_forget_on_one_replica_empties_the_caches_of_the_others(
    conversations: Shared,
) -> None:
    """Caches of memory texts hold no owner: every other replica empties its own when one
    forgets, and each empties them when it starts listening, as it may have missed a forget
    meanwhile."""
    first, second = conversations(), conversations()
    heard: dict[str, asyncio.Queue[None]] = {"first": asyncio.Queue(), "second": asyncio.Queue()}
    for name, replica in (("first", first), ("second", second)):
        replica.on_forgotten_elsewhere(functools.partial(heard[name].put_nowait, None))
    for name in heard:
        await asyncio.wait_for(heard[name].get(), 10)  # listening: emptied once
    first.announce_forget()
    await asyncio.wait_for(heard["second"].get(), 10)
    second.announce_forget()
    await asyncio.wait_for(heard["first"].get(), 10)


def test_a_replica_does_not_take_its_own_announcement_for_a_forget() -> None:
    me, other = "a1", "b2"
    assert forgotten_elsewhere({"type": "message", "data": other.encode()}, me)
    assert not forgotten_elsewhere({"type": "message", "data": me.encode()}, me)
    assert not forgotten_elsewhere({"type": "subscribe", "data": 1}, me)


async def test_a_quiet_channel_is_not_a_lost_connection(valkey: ValkeyProcess) -> None:
    """Forgets are rare: one that comes long after the last is heard, and the quiet meanwhile
    is no error (the deadline of Valkey calls is not how long a listener waits)."""
    first, second = (ValkeyConversations(valkey.url, timeout_s=0.1) for _ in range(2))
    heard: asyncio.Queue[None] = asyncio.Queue()
    before = errors("listen")
    try:
        second.on_forgotten_elsewhere(functools.partial(heard.put_nowait, None))
        await asyncio.wait_for(heard.get(), 10)  # listening
        await asyncio.sleep(0.5)  # the condition under test: quiet for 5 deadlines
        first.announce_forget()
        await asyncio.wait_for(heard.get(), 10)
        assert errors("listen") == before
    finally:
        await first.aclose()
        await second.aclose()
