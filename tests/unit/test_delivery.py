"""Batches on their way to the worker: what waits, what is dropped, what is offered again."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from memory_extproc.handoff import Batch
from memory_extproc.learning.delivery import RETRY_ATTEMPTS, RETRY_FIRST_S, Delivery
from memory_extproc.learning.spool import Spool, is_spooled
from memory_extproc.llm_api.requests import Turn
from memory_extproc.receipts import NotLearned


class Worker:
    """The worker's queue, with room for ``room`` items until told otherwise."""

    def __init__(self, room: int) -> None:
        self.queue: queue.Queue[object] = queue.Queue(maxsize=room)

    def offer(self, item: object) -> bool:
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            return False
        return True

    def take(self) -> list[object]:
        items = []
        while not self.queue.empty():
            items.append(self.queue.get_nowait())
        return items


def batch(user: str, text: str) -> Batch:
    return Batch(user, "", (Turn("user", text),), 1, 1_700_000, "every_n")


@pytest.fixture
def spool(tmp_path: Path) -> Spool:
    kept = Spool(tmp_path, 1 << 20)
    kept.open()
    yield kept
    kept.close()


def test_a_kept_batch_waits_for_room_and_one_the_spool_could_not_keep_is_dropped(
    spool: Spool,
) -> None:
    worker = Worker(room=1)
    lost: list[tuple[str, NotLearned]] = []
    delivery = Delivery(worker.offer, spool, lambda b, why: lost.append((b.user_id, why)))
    first, second = spool.keep(batch("alice", "one")), spool.keep(batch("alice", "two"))
    delivery.deliver(first)
    delivery.deliver(second)  # no room: it waits
    delivery.deliver(batch("bob", "not kept"))  # neither kept nor room: dropped
    assert lost == [("bob", NotLearned.DROPPED)]  # its receipts say so
    assert worker.take() == [first]
    delivery.deliver_waiting()
    assert worker.take() == [second]
    assert [b.entry for b in delivery.left()] == [first.entry, second.entry]  # until done
    delivery.done(first.entry)
    assert [b.entry for b in delivery.left()] == [second.entry]


def test_a_failed_batch_is_offered_again_later_then_dropped(spool: Spool) -> None:
    worker = Worker(room=10)
    lost: list[NotLearned] = []
    delivery = Delivery(worker.offer, spool, lambda b, why: lost.append(why))
    kept = spool.keep(batch("alice", "one"))
    delivery.deliver(kept)
    worker.take()
    now = 100.0
    for attempt in range(1, RETRY_ATTEMPTS):
        delivery.failed(kept.entry, now)
        delivery.retry_due(now + RETRY_FIRST_S * 3 ** (attempt - 1) - 0.1)
        assert worker.take() == []  # not yet
        now += RETRY_FIRST_S * 3 ** (attempt - 1)
        delivery.retry_due(now)
        (again,) = worker.take()
        assert isinstance(again, Batch)
        assert again.attempt == attempt
    assert lost == []  # still to be learned
    delivery.failed(kept.entry, now)
    assert list(delivery.left()) == []  # given up on
    assert lost == [NotLearned.FAILED]


def test_a_new_worker_gets_what_the_old_one_held_first(spool: Spool) -> None:
    worker = Worker(room=1)
    delivery = Delivery(worker.offer, spool)
    held, waiting = spool.keep(batch("alice", "one")), spool.keep(batch("alice", "two"))
    delivery.deliver(held)
    delivery.deliver(waiting)
    worker.take()  # the old worker died holding ``held``
    delivery.again()
    assert worker.take() == [held]
    delivery.deliver_waiting()
    assert worker.take() == [waiting]


def test_a_forget_drops_what_waits_or_is_to_be_retried_for_that_user(spool: Spool) -> None:
    worker = Worker(room=1)
    delivery = Delivery(worker.offer, spool)
    alice, bob = spool.keep(batch("alice", "one")), spool.keep(batch("bob", "two"))
    retried = spool.keep(batch("alice", "three"))
    delivery.deliver(retried)
    worker.take()
    delivery.failed(retried.entry, 0.0)
    delivery.deliver(alice)
    delivery.deliver(bob)  # waits
    assert delivery.drop(lambda b: b.user_id == "alice") == 1  # the retry; alice's is held
    assert [b.user_id for b in delivery.left()] == ["alice", "bob"]
    assert all(is_spooled(b.entry) for b in delivery.left())
