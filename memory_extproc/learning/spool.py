"""Captured turns on disk until the worker has learned from them: no turn is lost to a SIGTERM
past the grace period, a killed worker or a killed processor.

Each processor owns one directory under ``spool_dir`` and holds an exclusive ``flock`` on it for
its life. It writes two kinds of entries, each one file, replaced atomically (write, rename):

* ``b-<seq>.json``: a batch handed to the worker, deleted when the worker says it is done
  (learned, or failed for good: a poison batch must not come back forever);
* ``p-<conversation>.json``: the turns of a conversation not yet cut into a batch (the batch
  an idle flush would make now), replaced as turns arrive, deleted when the batch is cut.

On start, and every few seconds while it runs (a sibling replica may die and not come back), a
processor adopts every directory whose lock nobody holds (its owner is gone, cleanly or not: the
kernel releases a killed process's lock): each entry becomes a batch of its own, delivered
again. A batch delivered twice is
harmless: its facts are deduplicated by content hash and by meaning (memories/writer.py).
The directory is bounded (``spool_max_mb``); when full, a batch is still handed over but not kept,
and counted.

This is the spool of one machine (or of replicas sharing a volume whose ``flock`` excludes). With
``memory.valkey.url`` the same turns wait in a Valkey stream instead (learning/spool_valkey.py);
LearningService sees either as a ``TurnSpool``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import itertools
import logging
import os
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import orjson

from memory_extproc import metrics
from memory_extproc.handoff import Batch
from memory_extproc.learning.shared import DIRECTORY as SHARED
from memory_extproc.llm_api.requests import Turn

log = logging.getLogger(__name__)

_LOCK = "owner.lock"
_VERSION = 1


def encode(batch: Batch) -> bytes:
    return orjson.dumps({"v": _VERSION, "batch": batch})  # orjson writes dataclasses itself


def decode(raw: bytes) -> Batch:
    entry: dict[str, Any] = orjson.loads(raw)
    if entry.get("v") != _VERSION:
        raise ValueError("unknown spool entry version")
    data = entry["batch"]
    data["messages"] = tuple(Turn(**m) for m in data["messages"])
    data["recalled"] = tuple(data.get("recalled", ()))
    data["received"] = tuple(data.get("received", ()))  # absent in entries of 0.1.0: unknown
    data["receipts"] = tuple(data.get("receipts", ()))
    return Batch(**data)


# A batch's entry says whether it is kept (a file here, a stream entry in Valkey): a kept batch
# survives the processor, one the spool could not keep lives in this process's memory only.
_KEPT = "b-"
_MEMORY_ONLY = "m-"


def is_spooled(entry: str) -> bool:
    return bool(entry) and not entry.startswith(_MEMORY_ONLY)


def memory_only(number: int) -> str:
    return f"{_MEMORY_ONLY}{number}"


Deliver = Callable[[Batch], None]


class TurnSpool(Protocol):
    """Where captured turns wait until the worker has learned them, as LearningService sees
    it: files in ``spool_dir`` (``Spool``), or a Valkey stream (learning/spool_valkey.py),
    chosen by ``memory.valkey.url``. Batches to learn reach ``deliver`` (Delivery): kept ones
    named by their ``entry``, one that could not be kept without."""

    async def start(self, deliver: Deliver, room: Callable[[], int]) -> None:
        """Deliver what an earlier or dead processor left; from then on, batches as they come.
        ``room()``: how many more batches this processor's worker should be given now."""

    def send(self, batch: Batch) -> None:
        """Keep the batch, then have it learned (here, or by another replica)."""

    def pending(self, conversation: str, batch: Batch | None) -> None:
        """The conversation's turns not yet in a batch (None: all are in one now)."""

    def done(self, entry: str) -> None:
        """Learned, or given up on: the entry goes."""

    def take_over(self) -> None:
        """Deliver what processors that are gone left (every few seconds)."""

    async def flushed(self) -> None:
        """Every change asked for so far is kept."""

    async def aclose(self) -> None:
        """What is still held here is left for the next processor (or a sibling)."""


class Spool:
    def __init__(self, root: Path, max_bytes: int) -> None:
        self._root = root
        self._max = max_bytes
        self._dir = root / uuid.uuid4().hex[:16]
        self._lock_fd = -1
        self._sizes: dict[str, int] = {}  # entry name → bytes on disk
        self.used_bytes = 0
        self._seq = itertools.count()
        # Files are written and removed by one thread, in order: the response path only
        # encodes (~10 µs); the write and rename (~300 µs here) never hold up an answer.
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spool")
        self._deliver: Deliver = lambda batch: None

    async def start(self, deliver: Deliver, room: Callable[[], int]) -> None:
        """``TurnSpool.start``: every batch is handed over as it is kept (the worker's queue
        and Delivery bound what waits), so ``room`` is not asked."""
        self._deliver = deliver
        for batch in self.open():
            deliver(batch)

    def send(self, batch: Batch) -> None:
        self._deliver(self.keep(batch))

    def take_over(self) -> None:
        for batch in self.adopt():
            self._deliver(batch)

    async def aclose(self) -> None:
        self.close()

    def open(self) -> list[Batch]:
        """Claim a directory of our own; return the batches of every abandoned one, each
        already kept again under our name (so a crash now loses nothing either)."""
        # Locked before it is visible: a sibling starting at the same moment would otherwise
        # take an unlocked new directory for an abandoned one and adopt it.
        hidden = self._root / f".{self._dir.name}"
        hidden.mkdir(parents=True)
        self._lock_fd = _locked(hidden / _LOCK)
        hidden.rename(self._dir)
        return self.adopt()

    def adopt(self) -> list[Batch]:
        """The batches of every directory whose owner is gone, kept again under our name."""
        recovered: list[Batch] = []
        for other in sorted(self._root.iterdir()):
            if other == self._dir or other.name.startswith(".") or other.name == SHARED:
                continue  # ours, one being created, the replicas' shared conversation state
            if other.is_dir():
                with contextlib.suppress(FileNotFoundError):  # emptied by a sibling meanwhile
                    recovered += self._adopt(other)
        if recovered:
            turns = sum(b.new_turns for b in recovered)
            metrics.SPOOL_TURNS.labels("replayed").inc(turns)
            log.info("Spooled turns of a processor that is gone delivered again",
                     extra={"turns": turns})  # fmt: skip
        return recovered

    def kept(self) -> list[Batch]:
        """What this processor's directory holds now, each named by its entry (a
        conversation's uncut turns as a "recovered" batch); unreadable entries left out."""
        self.flush()
        batches = []
        for name in sorted(self._sizes):
            try:
                batch = decode((self._dir / name).read_bytes())
            except (OSError, ValueError, TypeError):
                continue  # said when the next processor adopts it
            if name.startswith("p-"):
                batch = replace(batch, reason="recovered")
            batches.append(replace(batch, entry=name))
        return batches

    def close(self) -> None:
        """Release the directory; what is still in it is delivered by the next processor."""
        if self._lock_fd < 0:
            return
        self._io.shutdown(wait=True)
        if not self._sizes:  # nothing left to deliver: leave nothing behind
            with contextlib.suppress(OSError):
                (self._dir / _LOCK).unlink()
                self._dir.rmdir()
        os.close(self._lock_fd)
        self._lock_fd = -1

    def keep(self, batch: Batch) -> Batch:
        """The batch, named by its entry (``entry``) when it could be kept."""
        name = f"{_KEPT}{next(self._seq):012d}.json"
        if self._write(name, encode(batch)):
            metrics.SPOOL_TURNS.labels("spooled").inc(batch.new_turns)
            return replace(batch, entry=name)
        metrics.SPOOL_TURNS.labels("not_kept").inc(batch.new_turns)
        return batch

    def pending(self, conversation: str, batch: Batch | None) -> None:
        """The conversation's turns not yet in a batch (None: all are in one now)."""
        name = f"p-{conversation}.json"
        if batch is None:
            self._remove(name)
        elif not self._write(name, encode(batch)):
            metrics.SPOOL_TURNS.labels("not_kept").inc(batch.new_turns)

    def flush(self) -> None:
        """Wait until every write and removal asked for so far is on disk."""
        self._io.submit(lambda: None).result()

    async def flushed(self) -> None:
        """``flush`` without holding up the event loop."""
        await asyncio.wrap_future(self._io.submit(lambda: None))

    def done(self, entry: str) -> None:
        self._remove(entry)

    def _write(self, name: str, data: bytes) -> bool:
        if self.used_bytes - self._sizes.get(name, 0) + len(data) > self._max:
            log.warning("Spool full: a batch is not kept on disk", extra={"bytes": self._max})
            return False
        self.used_bytes += len(data) - self._sizes.get(name, 0)
        self._sizes[name] = len(data)
        metrics.SPOOL_BYTES.set(self.used_bytes)
        self._io.submit(_write_file, self._dir / name, data)
        return True

    def _remove(self, name: str) -> None:
        size = self._sizes.pop(name, None)
        if size is None:
            return
        self.used_bytes -= size
        metrics.SPOOL_BYTES.set(self.used_bytes)
        self._io.submit(_remove_file, self._dir / name)

    def _adopt(self, other: Path) -> list[Batch]:
        fd = _locked(other / _LOCK)
        if fd < 0:
            return []  # a live processor's, or one another is adopting
        batches = []
        try:
            for entry in sorted(other.glob("[bp]-*.json")):
                try:
                    batch = decode(entry.read_bytes())
                except FileNotFoundError:
                    continue  # taken by a sibling that adopted this directory first
                except (OSError, ValueError, TypeError) as exc:
                    log.error(
                        "Unreadable spool entry skipped: %s", exc, extra={"entry": entry.name}
                    )
                    metrics.SPOOL_TURNS.labels("unreadable").inc()
                else:
                    if entry.name.startswith("p-"):
                        batch = replace(batch, reason="recovered")
                    batches.append(self.keep(replace(batch, entry="")))
            self.flush()  # kept under our name before theirs go
            for leftover in other.iterdir():
                _remove_file(leftover)
            with contextlib.suppress(OSError):  # a sibling racing us made a new lock file
                other.rmdir()
        finally:
            os.close(fd)
        return batches


def _write_file(path: Path, data: bytes) -> None:
    temporary = path.with_suffix(".tmp")
    try:
        temporary.write_bytes(data)
        temporary.replace(path)
    except OSError as exc:
        log.error("Spool write failed: %s", exc)


def _remove_file(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        log.error("Spool entry not removed: %s", exc)


def _locked(path: Path) -> int:
    """An open descriptor holding the exclusive lock on ``path``, or -1 if another holds it."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:
        return -1  # adopted and removed by another processor meanwhile
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return -1
    return fd
