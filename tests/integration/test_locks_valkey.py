"""The store's write locks in Valkey (store/locks_valkey.py) on a real server, each ValkeyLocks
standing for a process: writes of one memory exclude each other, of different memories run side
by side, a write of the whole user excludes both and is not starved by edits; a dead holder's
lease ends; a stale token releases nothing; Valkey down fails a write at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
import valkey as valkey_client
from prometheus_client import REGISTRY

from devstack.ports import free_port
from devstack.valkey import ValkeyProcess
from memory_extproc.store.locks import Fence
from memory_extproc.store.locks_valkey import Lease, Leases, ValkeyLocks, lock_keys
from memory_extproc.store.model import StoreUnavailableError
from tests.integration.conftest import until

pytestmark = pytest.mark.integration

SHORT = Leases(lease_s=0.6, renew_s=0.1, margin_s=0.2)

Take = Callable[..., ValkeyLocks]


@pytest.fixture
async def take(valkey: ValkeyProcess) -> AsyncIterator[Take]:
    """A new "process" of lock holders on the test server; all closed after the test."""
    made: list[ValkeyLocks] = []

    def new(wait_s: float = 10.0, leases: Leases | None = None) -> ValkeyLocks:
        locks = ValkeyLocks(valkey.url, timeout_s=1.0, wait_s=wait_s, leases=leases or Leases())
        made.append(locks)
        return locks

    yield new
    for locks in made:
        await locks.aclose()


def refusals(locks: ValkeyLocks) -> asyncio.Queue[str]:
    """Each try of ``locks`` that Valkey refused, by mode: a waiter is known to wait."""
    refused: asyncio.Queue[str] = asyncio.Queue()
    for mode, script in list(locks._scripts.items()):

        async def watched(*args: Any, _script: Any = script, _mode: str = mode, **kw: Any) -> Any:
            granted = await _script(*args, **kw)
            if not granted:
                refused.put_nowait(_mode)
            return granted

        locks._scripts[mode] = watched  # type: ignore[assignment]
    return refused


async def held(lock: AbstractAsyncContextManager[Fence], stack: AsyncExitStack) -> Fence:
    return await stack.enter_async_context(lock)


async def entered(lock: AbstractAsyncContextManager[Fence], seen: list[str], name: str) -> None:
    async with lock:
        seen.append(name)


def holding(kind: str, locks: ValkeyLocks, user: str = "alice", memory: str = "mem_1") -> Any:
    return locks.user(user) if kind == "user" else locks.memories(user, [memory])


@pytest.mark.parametrize(
    ("first", "then"),
    [("memory", "memory"), ("user", "memory"), ("memory", "user"), ("user", "user")],
)
async def test_a_lock_held_by_another_process_is_waited_for(
    take: Take, first: str, then: str
) -> None:
    one, other = take(), take()
    refused = refusals(other)
    seen: list[str] = []
    async with AsyncExitStack() as stack:
        await held(holding(first, one), stack)
        waiting = asyncio.create_task(entered(holding(then, other), seen, "other"))
        async with asyncio.timeout(5):
            await refused.get()
        assert seen == []
    async with asyncio.timeout(5):
        await waiting
    assert seen == ["other"]


async def test_writes_of_different_memories_and_users_go_side_by_side(take: Take) -> None:
    one, other = take(wait_s=2), take(wait_s=2)
    async with AsyncExitStack() as stack:
        await held(one.memories("alice", ["mem_1"]), stack)
        await held(other.memories("alice", ["mem_2"]), stack)  # shared beside shared
        await held(other.user("bob"), stack)
        await held(one.memories("carol", ["mem_1"]), stack)  # a memory is locked under its user


async def test_a_whole_user_write_is_not_starved_by_edits_of_other_processes(
    take: Take, valkey: ValkeyProcess
) -> None:
    """Without the gate the edit goes in beside the first one (shared beside shared), and edits
    arriving one after another keep the forget out as long as they come."""
    editor, forgetter, later = take(), take(), take()
    waits, refused_edits = refusals(forgetter), refusals(later)
    order: list[str] = []
    async with AsyncExitStack() as stack:
        await held(editor.memories("alice", ["mem_1"]), stack)
        forget = asyncio.create_task(entered(forgetter.user("alice"), order, "forget"))
        async with asyncio.timeout(5):
            await waits.get()  # it waits, holding the gate
        with valkey_client.Valkey(port=valkey.port) as client:
            left = client.pttl(lock_keys("alice")[2])
        assert 0 < left <= Leases().lease_s * 1000  # a waiter that dies holds it back no longer
        edit = asyncio.create_task(entered(later.memories("alice", ["mem_2"]), order, "edit"))
        async with asyncio.timeout(5):
            await refused_edits.get()
        assert order == []
    async with asyncio.timeout(5):
        await asyncio.gather(forget, edit)
    assert order == ["forget", "edit"]


async def test_a_waiter_that_gives_up_lets_later_edits_in(take: Take) -> None:
    editor, forgetter, later = take(), take(wait_s=0.2), take(wait_s=5)
    async with AsyncExitStack() as stack:
        await held(editor.memories("alice", ["mem_1"]), stack)
        with pytest.raises(StoreUnavailableError, match="not granted"):
            await held(forgetter.user("alice"), stack)
        async with asyncio.timeout(1):  # its gate went with it, not at its lease's end
            await held(later.memories("alice", ["mem_2"]), stack)


async def test_a_lock_is_kept_past_its_lease_while_renewed(take: Take) -> None:
    holder, other = take(leases=SHORT), take(wait_s=3 * SHORT.lease_s)
    async with holder.user("alice") as fence:
        with pytest.raises(StoreUnavailableError, match="not granted"):
            await held(other.user("alice"), AsyncExitStack())
        fence.check()


async def test_a_dead_holders_lock_is_granted_when_its_lease_ends(take: Take) -> None:
    dead, heir = take(leases=SHORT), take(wait_s=5)
    refused = refusals(heir)
    lock = dead.user("alice")  # kept: a generator collected would leave its lock
    await lock.__aenter__()  # never left: the process died holding it
    await die(dead)
    started = time.monotonic()
    async with AsyncExitStack() as stack:
        taking = asyncio.create_task(held(heir.user("alice"), stack))
        async with asyncio.timeout(5):
            await refused.get()  # held until its lease ended
            await taking
    assert time.monotonic() - started < SHORT.lease_s + 1


async def test_a_stale_holder_releases_nothing_of_the_next_ones(
    take: Take, valkey: ValkeyProcess
) -> None:
    """A holder whose lease ended (a long pause) leaves its lock after the heir took it: the
    heir keeps it, and the stale holder's next write is stopped."""
    stale, heir, third = take(leases=SHORT), take(wait_s=5), take(wait_s=0.3)
    lock = stale.memories("alice", ["mem_1"])
    fence = await lock.__aenter__()
    for task in stale._tasks:
        task.cancel()  # paused: renews nothing
    async with heir.memories("alice", ["mem_1"]):
        await lock.__aexit__(None, None, None)  # with its own token: not the heir's
        with pytest.raises(StoreUnavailableError, match="not granted"):
            await held(third.memories("alice", ["mem_1"]), AsyncExitStack())
        with pytest.raises(StoreUnavailableError):
            fence.check()
    with valkey_client.Valkey(port=valkey.port) as client:
        key = lock_keys("alice", ["mem_1"])[3]
        client.set(key, "theirs", px=5000)
        await stale._release(keys=lock_keys("alice", ["mem_1"]), args=["stale"])
        assert client.get(key) == b"theirs"  # released only by its own token
        client.delete(key)


async def test_a_holder_whose_lease_valkey_lost_stops_before_its_next_write(
    take: Take, valkey: ValkeyProcess
) -> None:
    holder = take(leases=SHORT)
    async with holder.memories("alice", ["mem_1"]) as fence:
        with valkey_client.Valkey(port=valkey.port) as client:
            client.delete(lock_keys("alice", ["mem_1"])[3])  # as a crash that lost its write
        assert isinstance(fence, Lease)
        await until(lambda: _true(fence.lost), 5)
        with pytest.raises(StoreUnavailableError, match="lost"):
            fence.check()


async def test_valkey_down_fails_a_write_at_once_and_locks_work_again_when_back(
    tmp_path: Path,
) -> None:
    port = free_port()
    server = ValkeyProcess(tmp_path / "valkey", port)
    server.wait_ready()
    locks = ValkeyLocks(server.url, timeout_s=0.5, leases=SHORT)
    try:
        async with locks.user("alice") as fence:
            server.stop()
            await until(lambda: _raises(fence.check), 5)  # its lease no longer renewed
        errors = _sample("lock")
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="Valkey unreachable"):
            await held(locks.memories("alice", ["mem_1"]), AsyncExitStack())
        assert time.monotonic() - started < 2
        assert _sample("lock") == errors + 1

        server = ValkeyProcess(tmp_path / "valkey", port)
        server.wait_ready()
        async with asyncio.timeout(5), locks.memories("alice", ["mem_1"]) as fence:
            fence.check()
    finally:
        await locks.aclose()
        server.stop()


async def die(locks: ValkeyLocks) -> None:
    """Gone at once: no renewal, no release."""
    for task in locks._tasks:
        task.cancel()
    await asyncio.gather(*locks._tasks, return_exceptions=True)


def _true(value: bool) -> Awaitable[bool]:
    return _now(value)


async def _now(value: bool) -> bool:
    return value


def _raises(check: Callable[[], None]) -> Awaitable[bool]:
    try:
        check()
    except StoreUnavailableError:
        return _now(True)
    return _now(False)


def _sample(operation: str) -> float:
    labels = {"operation": operation}
    return REGISTRY.get_sample_value("memory_shared_state_errors_total", labels) or 0.0
