"""Conversation state every replica can read, beside the spool (one shared ``spool_dir``).

Envoy gives each ext_proc stream to any replica (a route's hash policy does not reach the side
stream), so the turn one replica sees may continue a conversation another one holds. Each
capture leaves the conversation as that turn left it, and for a Responses API answer which
conversation it belongs to. With that, a replica continues a chain it has not seen with its
earlier turns, and an idle flush leaves a conversation to the replica holding a newer turn
(whose state has these turns too). Under ``<spool_dir>/conversations/<user digest>/``:

* ``c-<conversation>.json``: the state (bounded messages, turn count, what is extracted);
* ``r-<response id digest>.json``: the conversation a Responses API answer belongs to;
* ``x-<receipt id>.json``: what became of a turn (memory_extproc/receipts.py);
* ``s-<conversation>/<first>.json``: what compressing it reads, a chunk per batch
  (compression/state.py), kept ``memory.compression.ttl_hours``.

A forget of a user removes their directory (of a project: its conversations); what nobody
touched for ``KEEP_S`` is removed. Reads and writes go through one thread, in order (a read sees
this process's writes before it), never on the event loop: the volume may be a network one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import orjson

from memory_extproc.digests import digest
from memory_extproc.learning.turns import Elsewhere, Reads

log = logging.getLogger(__name__)

KEEP_S = 24 * 3600.0  # a Responses chain continued a day later starts afresh
DIRECTORY = "conversations"


class Conversations(Protocol):
    """Where replicas share conversation state: this spool directory, or Valkey
    (learning/shared_valkey.py), chosen by ``memory.valkey.url``."""

    def save(
        self, user_id: str, project_id: str, key: str, state: dict[str, Any], response_id: str
    ) -> None: ...

    async def elsewhere(self, reads: Reads) -> Elsewhere: ...

    async def states(self, wanted: Iterable[tuple[str, str]]) -> dict[str, dict[str, Any]]: ...

    def save_chunk(
        self, user_id: str, project_id: str, key: str, first: int, chunk: bytes
    ) -> None: ...

    async def chunks(self, user_id: str, key: str) -> list[bytes]: ...

    async def forget_chunks(self, user_id: str, key: str) -> bool: ...

    async def forget(self, user_id: str, project_id: str | None) -> None: ...

    def receipt(
        self, user_id: str, project_id: str, receipt_id: str, record: dict[str, Any]
    ) -> None: ...

    def receipts_done(
        self, user_id: str, receipt_ids: Sequence[str], update: dict[str, Any]
    ) -> None: ...

    async def read_receipt(self, user_id: str, receipt_id: str) -> dict[str, Any] | None: ...

    async def flushed(self) -> None: ...

    def announce_forget(self) -> None: ...

    def on_forgotten_elsewhere(self, clear: Callable[[], None]) -> None: ...

    def prune(self) -> None: ...

    async def aclose(self) -> None: ...


class SharedConversations:
    def __init__(self, spool_root: Path, chunks_keep_s: float = KEEP_S) -> None:
        self._root = spool_root / DIRECTORY
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="conversations")
        # the request path's reads: never queued behind the writes
        self._reads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compression")
        self._chunks_keep_s = chunks_keep_s

    def save(
        self, user_id: str, project_id: str, key: str, state: dict[str, Any], response_id: str
    ) -> None:
        folder = self._root / digest(user_id)
        entry = orjson.dumps({"project_id": project_id, "state": state})
        self._io.submit(_write_state, folder, f"c-{key}.json", entry, state["turn"])
        if response_id:
            self._io.submit(_write, folder, f"r-{digest(response_id)}.json", orjson.dumps(key))

    def receipt(
        self, user_id: str, project_id: str, receipt_id: str, record: dict[str, Any]
    ) -> None:
        entry = orjson.dumps({"project_id": project_id, "receipt": record})
        self._io.submit(_write, self._root / digest(user_id), f"x-{receipt_id}.json", entry)

    def receipts_done(
        self, user_id: str, receipt_ids: Sequence[str], update: dict[str, Any]
    ) -> None:
        """``update`` into each of these receipts still held (not one a forget removed)."""
        folder = self._root / digest(user_id)
        for receipt_id in filter(None, receipt_ids):
            self._io.submit(_update_receipt, folder / f"x-{receipt_id}.json", update)

    def save_chunk(self, user_id: str, project_id: str, key: str, first: int, chunk: bytes) -> None:
        folder = self._root / digest(user_id)
        self._io.submit(_write, folder / f"s-{key}", f"{first}.chunk", chunk)
        # its project, for a forget of one (the conversation's state may not be written yet)
        entry = orjson.dumps({"project_id": project_id})
        self._io.submit(_write, folder / f"s-{key}", "project", entry)

    async def chunks(self, user_id: str, key: str) -> list[bytes]:
        folder = self._root / digest(user_id) / f"s-{key}"
        return await asyncio.wrap_future(self._reads.submit(_read_chunks, folder))

    async def forget_chunks(self, user_id: str, key: str) -> bool:
        """Queued behind the writes before it: True when there was something to remove."""
        folder = self._root / digest(user_id) / f"s-{key}"
        return await asyncio.wrap_future(self._io.submit(_remove, folder))

    async def read_receipt(self, user_id: str, receipt_id: str) -> dict[str, Any] | None:
        path = self._root / digest(user_id) / f"x-{receipt_id}.json"
        return _receipt(await asyncio.wrap_future(self._io.submit(_read, path)))

    async def elsewhere(self, reads: Reads) -> Elsewhere:
        """What recording a turn wants to know (``TurnTracker.reads``), in one read."""
        return await asyncio.wrap_future(self._io.submit(self._elsewhere, reads))

    async def states(self, wanted: Iterable[tuple[str, str]]) -> dict[str, dict[str, Any]]:
        """The states held of these conversations (user id, key), by key."""
        return await asyncio.wrap_future(self._io.submit(self._states, list(wanted)))

    def _elsewhere(self, reads: Reads) -> Elsewhere:
        folder = self._root / digest(reads.user_id)
        chain = None
        if reads.response_id:
            found = _read(folder / f"r-{digest(reads.response_id)}.json")
            chain = found if isinstance(found, str) else None
        keys = [*reads.keys, chain] if chain is not None else reads.keys
        return Elsewhere(chain, self._states([(reads.user_id, k) for k in keys]))

    def _states(self, wanted: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
        found = {key: _state(_read(self._root / digest(u) / f"c-{key}.json")) for u, key in wanted}
        return {key: state for key, state in found.items() if state is not None}

    async def forget(self, user_id: str, project_id: str | None) -> None:
        """Queued behind the writes before it; returns once done (off the event loop). Queued
        first, then waited for: a caller that gives up waiting does not cancel it."""
        self._io.submit(_forget, self._root / digest(user_id), project_id)
        await self.flushed()

    async def flushed(self) -> None:
        await asyncio.wrap_future(self._io.submit(lambda: None))

    def announce_forget(self) -> None:
        """Nothing: replicas sharing a volume do not hear each other's forgets (Valkey's do)."""

    def on_forgotten_elsewhere(self, clear: Callable[[], None]) -> None:
        """Nothing is heard of other replicas' forgets here (see ``announce_forget``)."""

    def prune(self, now: float | None = None) -> None:
        """Remove what nobody touched for ``KEEP_S`` (on the writer thread, in order)."""
        now = now or time.time()
        self._io.submit(_prune, self._root, now - KEEP_S, now - self._chunks_keep_s)

    def flush(self) -> None:
        self._io.submit(lambda: None).result()

    def close(self) -> None:
        self._io.shutdown(wait=True)
        self._reads.shutdown(wait=True)

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)


def _state(entry: Any) -> dict[str, Any] | None:
    state = entry.get("state") if isinstance(entry, dict) else None
    return state if isinstance(state, dict) else None


def _receipt(entry: Any) -> dict[str, Any] | None:
    receipt = entry.get("receipt") if isinstance(entry, dict) else None
    return receipt if isinstance(receipt, dict) else None


def _update_receipt(path: Path, update: dict[str, Any]) -> None:
    entry = _read(path)
    if _receipt(entry) is None:
        return  # forgotten (or never written): not brought back
    entry["receipt"] |= update
    _write(path.parent, path.name, orjson.dumps(entry))


def _write_state(folder: Path, name: str, data: bytes, turn: int) -> None:
    """Never a conversation's state older than the one there (another replica may have
    written a later turn since this one was recorded)."""
    stored = _state(_read(folder / name))
    if stored is not None and isinstance(stored.get("turn"), int) and stored["turn"] > turn:
        return
    _write(folder, name, data)


def _write(folder: Path, name: str, data: bytes) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # a name of our own: replicas write into the same folder
        temporary = folder / f".{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
        temporary.write_bytes(data)
        temporary.replace(folder / name)
    except OSError as exc:
        log.error("Shared conversation state not written: %s", exc)


def _read(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        log.error("Shared conversation state unreadable: %s", exc)
        return None


def _forget(folder: Path, project_id: str | None) -> None:
    try:
        if project_id is None:
            with contextlib.suppress(FileNotFoundError):  # they never had any
                shutil.rmtree(folder)
            return
        for path in [*folder.glob("c-*.json"), *folder.glob("x-*.json")]:
            entry = _read(path)
            if isinstance(entry, dict) and entry.get("project_id") == project_id:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
        for chunks in folder.glob("s-*"):
            entry = _read(chunks / "project")
            if isinstance(entry, dict) and entry.get("project_id") == project_id:
                shutil.rmtree(chunks, ignore_errors=True)
    except OSError as exc:  # the memories are forgotten already: say so, do not fail the call
        log.error("Shared conversation state of a forgotten user not removed: %s", exc)


def _prune(root: Path, before: float, chunks_before: float) -> None:
    for path in [*root.glob("*/*.json"), *root.glob("*/.*.tmp")]:
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_mtime < before:
                path.unlink()
    for chunks in root.glob("*/s-*"):
        newest = max((p.stat().st_mtime for p in chunks.iterdir()), default=0.0)
        if newest < chunks_before:
            shutil.rmtree(chunks, ignore_errors=True)
    for folder in root.glob("*"):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty


def _remove(folder: Path) -> bool:
    if not folder.exists():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


def _read_chunks(folder: Path) -> list[bytes]:
    try:
        names = [p for p in folder.iterdir() if p.suffix == ".chunk"]
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.error("Compression state unreadable: %s", exc)
        return []
    found = []
    for path in names:
        with contextlib.suppress(FileNotFoundError):  # a forget, meanwhile
            found.append(path.read_bytes())
    return found
