"""Batches on their way to the worker, until it says each is done: waiting (its queue was
full), in flight (handed over), or failed and offered again later. A batch kept in the spool
(files, or the Valkey stream) waits its turn; one the spool could not keep is dropped when the
worker's queue is full too."""

from __future__ import annotations

import collections
import dataclasses
import itertools
import logging
from collections.abc import Callable, Iterable

from memory_extproc import metrics
from memory_extproc.handoff import Batch, ForgetCachedTexts
from memory_extproc.learning.spool import TurnSpool, is_spooled, memory_only
from memory_extproc.receipts import NotLearned

log = logging.getLogger(__name__)
RETRY_ATTEMPTS = 4  # a failed batch is tried again after 5, 15 and 45 s, then dropped
RETRY_FIRST_S = 5.0


class Delivery:
    def __init__(
        self,
        offer: Callable[[object], bool],
        spool: TurnSpool,
        lost: Callable[[Batch, NotLearned], None] = lambda batch, why: None,
    ) -> None:
        self._offer = offer  # hands an item to the worker's queue; False when it is full
        self._spool = spool
        self._lost = lost  # told of each batch that will never be learned (its receipts)
        self._waiting: collections.deque[Batch] = collections.deque()
        self._in_flight: dict[str, Batch] = {}
        self._later: list[tuple[float, Batch]] = []  # failed, offered again at that time
        self._ids = itertools.count()
        self._forget_texts = False  # the worker is to empty its caches (once it has room)

    def deliver(self, batch: Batch) -> None:
        """Hand a batch to the worker, or let it wait its turn (kept batches only)."""
        if not batch.entry:
            batch = dataclasses.replace(batch, entry=memory_only(next(self._ids)))
        if self._waiting or not self._put(batch):
            if is_spooled(batch.entry):
                self._waiting.append(batch)
            else:
                metrics.EXTRACTION_DROPPED.labels("queue_full").inc()
                log.warning("Extraction queue and spool full, turns dropped",
                            extra={"turns": batch.new_turns})  # fmt: skip
                self._lost(batch, NotLearned.DROPPED)
        self.deliver_waiting()

    def forget_cached_texts(self) -> None:
        """The worker empties its caches of memory texts, now or, when its queue is full, as
        soon as it has room (before any batch waiting here)."""
        self._forget_texts = True
        self.deliver_waiting()

    def deliver_waiting(self) -> None:
        if self._forget_texts and self._offer(ForgetCachedTexts()):
            self._forget_texts = False
        while self._waiting and self._put(self._waiting[0]):
            self._waiting.popleft()

    def room(self, at_once: int) -> int:
        """How many more batches to take for the worker (from the Valkey stream): none while
        some wait here or for a retry, else up to ``at_once`` in flight. A failed job frees its
        place at once: counted as room, an outage of the model or Milvus would pull the whole
        stream through its retries and drop it; this way the backlog waits in Valkey."""
        if self._waiting or self._later:
            return 0
        return max(0, at_once - len(self._in_flight))

    def done(self, entry: str) -> Batch | None:
        """The batch the worker finished (None: not one handed over here)."""
        batch = self._in_flight.pop(entry, None)
        self._spool.done(entry)
        return batch

    def failed(self, entry: str, now: float) -> None:
        """A batch whose job failed (the model or Milvus down, slow, or answering garbage) is
        offered again after a while, a few times, so an outage of a minute loses nothing."""
        batch = self._in_flight.pop(entry, None)
        if batch is None:
            return
        if batch.attempt + 1 >= RETRY_ATTEMPTS:
            self._spool.done(entry)
            metrics.EXTRACTION_DROPPED.labels("failed").inc()
            log.error("Extraction failed %d times, turns dropped", RETRY_ATTEMPTS,
                      extra={"turns": batch.new_turns})  # fmt: skip
            self._lost(batch, NotLearned.FAILED)
            return
        delay = RETRY_FIRST_S * 3**batch.attempt
        self._later.append((now + delay, dataclasses.replace(batch, attempt=batch.attempt + 1)))

    def retry_due(self, now: float) -> None:
        due = [b for at, b in self._later if at <= now]
        self._later = [(at, b) for at, b in self._later if at > now]
        for batch in due:
            self.deliver(batch)
        self.deliver_waiting()

    def again(self) -> None:
        """A new worker: what the old one held is delivered again, first."""
        again = list(self._in_flight.values())
        self._in_flight.clear()
        if again:
            metrics.SPOOL_TURNS.labels("replayed").inc(sum(b.new_turns for b in again))
        self._waiting.extendleft(reversed(again))
        self.deliver_waiting()

    def drop(self, covered: Callable[[Batch], bool]) -> int:
        """Batches not yet handed over (waiting, or to be retried) that ``covered`` names leave,
        and their spool entries; the turns they held."""
        held = [*self._waiting, *(b for _, b in self._later)]
        dropped = 0
        for batch in filter(covered, held):
            dropped += batch.new_turns
            self._spool.done(batch.entry)
        self._waiting = collections.deque(b for b in self._waiting if not covered(b))
        self._later = [(at, b) for at, b in self._later if not covered(b)]
        return dropped

    def left(self) -> Iterable[Batch]:
        """What was not learned: in flight, waiting, or to be retried."""
        return [*self._in_flight.values(), *self._waiting, *(b for _, b in self._later)]

    def _put(self, batch: Batch) -> bool:
        if not self._offer(batch):
            return False
        self._in_flight[batch.entry] = batch
        return True
