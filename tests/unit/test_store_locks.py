"""Writes of different memories of one user run side by side; writes of one memory take turns;
a write of the whole user waits for all of them and holds later ones back — in this process and
across processes."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from pathlib import Path

import pytest

from memory_extproc.store.locks import FileLocks, WriteLocks
from memory_extproc.store.model import StoreUnavailableError

ALICE_STRIPE_MATE = "u228"  # another user whose lock file is alice's (1,024 stripes)


async def test_writes_of_different_memories_of_one_user_run_side_by_side() -> None:
    locks = WriteLocks()
    inside = 0
    both = asyncio.Event()

    async def edit(memory_id: str) -> None:
        nonlocal inside
        async with locks.memories("alice", [memory_id]):
            inside += 1
            if inside == 2:
                both.set()
            await both.wait()  # each waits for the other: only passes if both are in at once

    async with asyncio.timeout(1):
        await asyncio.gather(edit("mem_1"), edit("mem_2"))


async def test_writes_of_one_memory_take_turns() -> None:
    locks = WriteLocks()
    order: list[str] = []
    release = asyncio.Event()

    async def edit(name: str) -> None:
        async with locks.memories("alice", ["mem_1"]):
            order.append(f"{name} in")
            await release.wait()
            order.append(f"{name} out")

    first = asyncio.create_task(edit("first"))
    second = asyncio.create_task(edit("second"))
    await asyncio.sleep(0)  # both tasks reach the lock
    await asyncio.sleep(0)
    assert order == ["first in"]
    release.set()
    await asyncio.gather(first, second)
    assert order == ["first in", "first out", "second in", "second out"]


async def test_a_write_of_the_whole_user_waits_for_edits_and_holds_later_ones_back() -> None:
    locks = WriteLocks()
    order: list[str] = []
    release = asyncio.Event()

    async def edit(name: str, memory_id: str) -> None:
        async with locks.memories("alice", [memory_id]):
            order.append(name)
            await release.wait()

    async def forget() -> None:
        async with locks.user("alice"):
            order.append("forget")

    early = asyncio.create_task(edit("early edit", "mem_1"))
    await asyncio.sleep(0)
    forgetting = asyncio.create_task(forget())
    await asyncio.sleep(0)
    late = asyncio.create_task(edit("late edit", "mem_2"))
    for _ in range(3):
        await asyncio.sleep(0)
    assert order == ["early edit"]  # the forget waits; the late edit waits behind it
    release.set()
    await asyncio.gather(early, forgetting, late)
    assert order == ["early edit", "forget", "late edit"]


async def test_other_users_are_not_held_back() -> None:
    locks = WriteLocks()
    release = asyncio.Event()

    async def forget_alice() -> None:
        async with locks.user("alice"):
            await release.wait()

    holding = asyncio.create_task(forget_alice())
    await asyncio.sleep(0)
    async with asyncio.timeout(1), locks.memories("bob", ["mem_9"]):
        pass
    release.set()
    await holding


async def test_an_exclusive_waiter_cancelled_lets_the_edits_behind_it_go() -> None:
    locks = WriteLocks()
    release = asyncio.Event()

    async def forget(hold: bool) -> None:
        async with locks.user("alice"):
            if hold:
                await release.wait()

    async def edit() -> None:
        async with locks.memories("alice", ["mem_1"]):
            pass

    first = asyncio.create_task(forget(hold=True))
    await asyncio.sleep(0)
    waiting_edit = asyncio.create_task(edit())
    cancelled = asyncio.create_task(forget(hold=False))
    await asyncio.sleep(0)
    release.set()  # the first forget ends; the edit and the second forget both wake
    await first
    cancelled.cancel()  # the request behind the second forget went away
    async with asyncio.timeout(1):
        await waiting_edit


_HOLDER = """
import asyncio, sys
from pathlib import Path
from memory_extproc.store.locks import FileLocks

async def main() -> None:
    locks = FileLocks(Path(sys.argv[1]))
    held = locks.user("alice") if sys.argv[2] == "user" else locks.memories("alice", ["mem_1"])
    async with held:
        print("held", flush=True)
        sys.stdin.readline()
        Path(sys.argv[1], "released").touch()
    print("out", flush=True)

asyncio.run(main())
"""


async def _held_by_another_process(directory: Path, kind: str) -> asyncio.subprocess.Process:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _HOLDER, str(directory), kind,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdout is not None
    assert await child.stdout.readline() == b"held\n"
    return child


@pytest.mark.parametrize(
    ("held", "wanted"),
    [("memory", "memory"), ("user", "memory"), ("memory", "user"), ("user", "user")],
)
async def test_a_lock_held_by_another_process_is_waited_for(
    tmp_path: Path, held: str, wanted: str
) -> None:
    child = await _held_by_another_process(tmp_path, held)
    locks = WriteLocks(FileLocks(tmp_path))
    seen: list[bool] = []

    async def write() -> None:
        lock = locks.user("alice") if wanted == "user" else locks.memories("alice", ["mem_1"])
        async with lock:
            seen.append((tmp_path / "released").exists())

    task = asyncio.create_task(write())
    for _ in range(3):
        await asyncio.sleep(0)  # its first try is made: it would be inside now if not held off
    assert not task.done()
    assert child.stdin is not None
    child.stdin.write(b"go\n")
    async with asyncio.timeout(10):
        await task
        await child.wait()
    assert seen == [True]


async def test_other_memories_and_users_are_not_held_by_another_process(tmp_path: Path) -> None:
    child = await _held_by_another_process(tmp_path, "memory")  # alice's mem_1
    locks = WriteLocks(FileLocks(tmp_path))
    async with asyncio.timeout(10):
        async with locks.memories("alice", ["mem_2"]), locks.memories("bob", ["mem_3"]):
            assert not (tmp_path / "released").exists()
    assert child.stdin is not None
    child.stdin.write(b"go\n")
    await child.wait()


async def test_a_whole_user_write_goes_before_later_edits_of_its_stripe(tmp_path: Path) -> None:
    """Without the gate, edits of users sharing alice's lock file (held shared by another
    process, new ones arriving) kept a forget of alice out as long as they kept coming."""
    locks = FileLocks(tmp_path)
    assert locks._stripe("user", ALICE_STRIPE_MATE) == locks._stripe("user", "alice")
    child = await _held_by_another_process(tmp_path, "memory")  # alice's user stripe, shared
    order: list[str] = []

    async def forget() -> None:
        async with WriteLocks(locks).user("alice"):
            order.append("forget")

    async def edit() -> None:
        async with WriteLocks(locks).memories(ALICE_STRIPE_MATE, ["mem_9"]):
            order.append("edit")

    waiting = asyncio.create_task(forget())
    for _ in range(3):
        await asyncio.sleep(0)  # the forget holds the gate and waits for the child
    later = asyncio.create_task(edit())
    for _ in range(3):
        await asyncio.sleep(0)  # the edit would be in now, beside the child, without the gate
    assert order == []
    assert child.stdin is not None
    child.stdin.write(b"go\n")
    async with asyncio.timeout(10):
        await asyncio.gather(waiting, later, child.wait())
    assert order == ["forget", "edit"]


async def test_a_lock_never_granted_is_the_store_unavailable(tmp_path: Path) -> None:
    child = await _held_by_another_process(tmp_path, "user")
    with pytest.raises(StoreUnavailableError):
        async with asyncio.timeout(10), FileLocks(tmp_path, wait_s=0.05).memories("alice", ["m"]):
            pass
    assert child.stdin is not None
    child.stdin.write(b"go\n")
    await child.wait()


async def test_a_lock_directory_that_cannot_be_made_is_the_store_unavailable(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(StoreUnavailableError):
        async with FileLocks(tmp_path / "file" / "locks").user("alice"):
            pass


async def test_a_bulk_write_holds_the_user_not_a_descriptor_per_memory(tmp_path: Path) -> None:
    locks = WriteLocks(FileLocks(tmp_path))
    before = _open_descriptors()
    async with locks.memories("alice", [f"mem_{i}" for i in range(1000)]):
        assert _open_descriptors() - before <= 2  # the gate passed, the user held
        other = asyncio.create_task(_enter(locks.memories("alice", ["mem_x"])))
        for _ in range(3):
            await asyncio.sleep(0)
        assert not other.done()  # the whole user is held
    async with asyncio.timeout(10):
        await other


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


async def _enter(lock: AsyncContextManager[None]) -> None:
    async with lock:
        pass
