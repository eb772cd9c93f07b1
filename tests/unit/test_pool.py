from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY

from memory_extproc.worker.pool import WorkerPool


def dropped(reason: str) -> float:
    return REGISTRY.get_sample_value("memory_extraction_dropped_total", {"reason": reason}) or 0.0


async def test_jobs_run_with_bounded_concurrency_and_per_key_order() -> None:
    pool = WorkerPool(queue_size=100, concurrency=3, job_timeout_s=5)
    pool.start()
    running, peak, order = 0, 0, []

    def job(key: str, i: int):  # type: ignore[no-untyped-def]
        async def run() -> None:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            order.append((key, i))
            running -= 1

        return run

    for i in range(5):
        for key in ("a", "b", "c", "d"):
            assert pool.submit(key, job(key, i))
    assert await pool.drain(grace_s=10) == 0
    assert peak == 3
    for key in ("a", "b", "c", "d"):
        assert [i for k, i in order if k == key] == [0, 1, 2, 3, 4]


async def test_a_full_queue_drops_and_counts() -> None:
    pool = WorkerPool(queue_size=2, concurrency=1, job_timeout_s=5)
    gate = asyncio.Event()

    async def blocked() -> None:
        await gate.wait()

    before = dropped("queue_full")
    assert pool.submit("a", blocked)
    assert pool.submit("a", blocked)
    assert not pool.submit("a", blocked)
    assert dropped("queue_full") == before + 1
    pool.start()
    gate.set()
    assert await pool.drain(grace_s=5) == 0


async def test_slow_jobs_time_out_and_crashes_do_not_stop_the_pool() -> None:
    pool = WorkerPool(queue_size=10, concurrency=1, job_timeout_s=0.05)
    pool.start()
    done = []

    async def slow() -> None:
        await asyncio.sleep(10)

    async def crash() -> None:
        raise RuntimeError("bug")

    async def fine() -> None:
        done.append(True)

    before = dropped("failed")
    for job in (slow, crash, fine):
        pool.submit("k", job)
    await pool.drain(grace_s=5)
    assert done == [True]
    assert dropped("failed") == before + 2  # no one to offer them again: dropped, and counted


async def test_a_job_with_an_owner_is_handed_back_to_be_tried_again_when_it_fails() -> None:
    pool = WorkerPool(queue_size=10, concurrency=1, job_timeout_s=0.2)
    pool.start()
    told: list[tuple[str, bool]] = []

    async def slow() -> None:
        await asyncio.sleep(10)

    async def failed() -> bool:
        return False  # e.g. the model was down

    async def learned() -> bool:
        return True

    before = dropped("failed")
    for name, job in (("slow", slow), ("failed", failed), ("learned", learned)):
        pool.submit("k", job, on_done=lambda f, name=name: told.append((name, f)))  # type: ignore[misc]
    await pool.drain(grace_s=5)
    assert told == [("slow", True), ("failed", True), ("learned", False)]
    assert dropped("failed") == before  # the owner decides


async def test_drain_finishes_queued_work_within_grace_and_counts_the_rest() -> None:
    pool = WorkerPool(queue_size=10, concurrency=1, job_timeout_s=60)
    finished = []

    async def quick() -> None:
        finished.append(1)

    async def forever() -> None:
        await asyncio.Event().wait()

    for _ in range(3):
        pool.submit("k", quick)
    pool.submit("k", forever)
    pool.submit("k", quick)
    pool.start()
    before = dropped("shutdown")
    assert await pool.drain(grace_s=0.2) == 1  # the last quick job never got its turn
    assert finished == [1, 1, 1]
    assert not pool.submit("k", quick)  # closed
    assert dropped("shutdown") == before + 2
