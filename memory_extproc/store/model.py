"""The memory record and the Store protocol every backend implements."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from memory_extproc.clock import now_ms


class MemoryType(StrEnum):
    SEMANTIC = "semantic"  # facts
    # standing likes, dislikes and constraints: given to the open requests they bear on
    # (memories/preferences.py)
    PREFERENCE = "preference"
    PROCEDURAL = "procedural"  # how-to, steps
    EPISODIC = "episodic"  # past events, conversation snippets


class Confidence(StrEnum):
    """How surely a memory is the user's (memories/confidence.py); lowest first."""

    UNCERTAIN = "uncertain"
    IMPLIED = "implied"
    STATED = "stated"


def confidence_of(memory: Memory) -> Confidence:
    """Its recorded confidence; one learned before confidences were, or added through the API
    (the user saying it), is stated."""
    value = memory.meta.get("confidence")
    return Confidence(value) if value in _CONFIDENCES else Confidence.STATED


_CONFIDENCES = frozenset(c.value for c in Confidence)
# superseded_by of a memory held for review: out of every search, as a replaced one is, until
# the user confirms it or it is observed again (memories/confidence.py)
PENDING = "pending"
MAX_CONTENT_CHARS = 2000
MAX_SCOPE_BYTES = 256  # user_id / project_id, as stored in Milvus VARCHAR(256)
_MEMORY_ID = re.compile(r"mem_[0-9a-f]{32}")  # whole: fullmatch ("$" passes a final "\n")


class InvalidScopeError(ValueError):
    """A user or project id that cannot be stored or filtered on safely."""


def validate_scope_value(value: str, what: str = "user id") -> str:
    """Accept any printable Unicode id up to 256 UTF-8 bytes; reject what could not round-trip.

    Hostile but printable ids (quotes, ``or``, backslashes) are legal: filters escape them.
    """
    if not value:
        raise InvalidScopeError(f"{what} is empty")
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates
        raise InvalidScopeError(f"{what} is not valid Unicode") from exc
    if len(encoded) > MAX_SCOPE_BYTES:
        raise InvalidScopeError(f"{what} is longer than {MAX_SCOPE_BYTES} bytes")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value):
        raise InvalidScopeError(f"{what} contains control characters")
    return value


def is_memory_id(value: str) -> bool:
    return _MEMORY_ID.fullmatch(value) is not None


def new_memory_id() -> str:
    return f"mem_{uuid.uuid4().hex}"


def content_hash(content: str) -> str:
    """Normalized content digest: re-extracting the same fact must not store it twice."""
    normalized = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    user_id: str
    type: MemoryType
    content: str
    project_id: str = ""
    source: str = ""  # how it was made: "conversation", "api", "cli", …
    created_at: int = 0  # epoch milliseconds
    updated_at: int = 0
    access_count: int = 0
    content_hash: str = ""
    superseded_by: str = ""  # set when a newer memory replaced this one; excluded from search
    expires_at: int = 0  # epoch milliseconds; 0 = never
    meta: Mapping[str, Any] = field(default_factory=dict)  # provenance, audit trail

    @property
    def pending(self) -> bool:
        """Held for review: neither injected nor searched until confirmed."""
        return self.superseded_by == PENDING

    @property
    def recorded_at(self) -> int:
        """When its current text was recorded: a revision dates it anew."""
        return max(self.created_at, self.updated_at)

    @classmethod
    def new(
        cls,
        user_id: str,
        content: str,
        type: MemoryType = MemoryType.SEMANTIC,
        *,
        project_id: str = "",
        source: str = "",
        created_at: int | None = None,
        meta: Mapping[str, Any] | None = None,
        expires_at: int = 0,
    ) -> Memory:
        ts = now_ms() if created_at is None else created_at
        return cls(
            id=new_memory_id(),
            user_id=validate_scope_value(user_id),
            type=MemoryType(type),
            content=content,
            project_id=validate_scope_value(project_id, "project id") if project_id else "",
            source=source,
            created_at=ts,
            updated_at=ts,
            content_hash=content_hash(content),
            expires_at=expires_at,
            meta=dict(meta or {}),
        )


def audit_copy(old: Memory, reason: str, by: str = "") -> Memory:
    """The previous version of a revised memory (or of one that ``by``, another memory,
    overruled), kept for the record: when its text was recorded (its own times) and when it
    was replaced (``superseded_at``)."""
    return dataclasses.replace(
        old,
        id=new_memory_id(),
        superseded_by=by or old.id,
        meta={**old.meta, "superseded_at": now_ms(), "reason": reason},
    )


def is_alive(memory: Memory, at_ms: int) -> bool:
    """Active (not superseded) and not past its expiry."""
    return not memory.superseded_by and (memory.expires_at == 0 or memory.expires_at > at_ms)


def is_held(memory: Memory, at_ms: int) -> bool:
    """Held for review and not past its review time: the user may still confirm it."""
    return memory.pending and memory.expires_at > at_ms


def same_version(current: Memory, read: Memory) -> bool:
    """Not revised since ``read`` was read (a renewal of its use is not a revision)."""
    return current.content == read.content and current.updated_at == read.updated_at


def last_used(memory: Memory) -> int:
    """When the memory was last written or injected (renewals record the latter in meta)."""
    return max(memory.updated_at, int(memory.meta.get("last_used_at", 0)))


def renewed(memory: Memory, uses: int, at_ms: int, ttl_ms: int) -> Memory:
    """A memory that was injected ``uses`` times: counted, and its expiry pushed out."""
    return dataclasses.replace(
        memory,
        access_count=memory.access_count + uses,
        expires_at=max(memory.expires_at, at_ms + ttl_ms) if ttl_ms else memory.expires_at,
        meta={**memory.meta, "last_used_at": at_ms},
    )


def evictions(memories: Iterable[Memory], keep: int) -> list[Memory]:
    """Over the per-user cap: the least recently used go first (ties: the oldest)."""
    ordered = sorted(memories, key=lambda m: (last_used(m), m.created_at, m.id), reverse=True)
    return ordered[keep:]


def newest_first(
    memories: Iterable[Memory], limit: int, before: tuple[int, str] | None = None
) -> list[Memory]:
    """One page of a listing: newest first (created_at, then id), strictly after ``before``."""
    ordered = sorted(memories, key=lambda m: (m.created_at, m.id), reverse=True)
    if before is not None:
        ordered = [m for m in ordered if (m.created_at, m.id) < before]
    return ordered[:limit]


def replaced_at(version: Memory) -> int:
    """When an audit row's text was replaced."""
    return int(version.meta.get("superseded_at", version.updated_at))


def by_replacement(versions: Iterable[Memory]) -> list[Memory]:
    return sorted(versions, key=lambda v: (replaced_at(v), v.id), reverse=True)


MemoryUse = tuple[str, str, int]  # user id, memory id, times used


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    memory: Memory
    score: float  # on MiniLM's cosine scale, whichever model read the query (spaces.py)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    user_id: str
    vector: np.ndarray
    limit: int = 5
    threshold: float = 0.6
    types: Sequence[MemoryType] = field(default_factory=tuple)  # empty: all types
    project_id: str | None = None  # None: every project of the user
    complete: bool = False  # every field (the API shows them); injection needs fewer, faster


class StoreUnavailableError(RuntimeError):
    """The backend cannot be reached; callers fail open."""


class Store(Protocol):
    """Every method is scoped to one user: there is no call that can reach another user's rows."""

    @property
    def available(self) -> bool: ...

    async def store(self, memory: Memory, vector: np.ndarray) -> None: ...

    async def store_many(
        self, items: Sequence[tuple[Memory, np.ndarray]], *, wait_visible: bool = True
    ) -> None:
        """Several memories in one write, all visible to the next search once it returns (or,
        without ``wait_visible``, once ``settled`` has returned)."""
        ...

    async def retrieve(self, request: SearchRequest) -> list[ScoredMemory]:
        """Best first, at or above the threshold. The memories carry id, user_id, project_id,
        type, content and created_at only: what injection needs (``get`` returns it all)."""
        ...

    async def retrieve_many(self, requests: Sequence[SearchRequest]) -> list[list[ScoredMemory]]:
        """``retrieve`` for several vectors of one scope (user, project, types, limit) at once."""
        ...

    async def get(self, user_id: str, memory_id: str) -> Memory | None: ...

    async def stored_under(self, user_id: str) -> list[tuple[Memory, np.ndarray]]:
        """The user's active memories, each with the vector it is stored under."""
        ...

    async def rekey(self, memory: Memory, vector: np.ndarray) -> bool:
        """Store ``memory`` under another vector, if it is still as read (not revised or
        forgotten meanwhile): the same memory, found in other ways. No audit row; not waited
        for (a user's memories are rekeyed together): a search sees it a moment later."""
        ...

    async def list(
        self,
        user_id: str,
        *,
        limit: int = 100,
        types: Sequence[MemoryType] = (),
        project_id: str | None = None,
        before: tuple[int, str] | None = None,
        pending: bool = False,
    ) -> list[Memory]:
        """Active memories (or, ``pending``, those held for review), newest first
        (``newest_first``), after the ``before`` position."""
        ...

    async def amend(self, memory: Memory) -> bool:
        """A memory's record changed where no revision is (its review, its confidence), still
        under its vector; no audit row. False if it was revised or forgotten since read."""
        ...

    async def existing_hashes(self, user_id: str, digests: Sequence[str]) -> dict[str, Memory]:
        """The user's active memories that have these normalized content hashes, by hash."""
        ...

    async def revise(
        self, memory: Memory, vector: np.ndarray, reason: str, *, wait_visible: bool = True
    ) -> bool:
        """Replace a memory's content, keeping its id and creation time; the previous content
        stays as an audit row (superseded_by = the memory's id), never searched. False if the
        memory is gone (forgotten meanwhile). Without ``wait_visible``: see ``store_many``."""
        ...

    async def retire(self, user_id: str, memory_id: str, by: str, reason: str) -> bool:
        """A memory overruled by another of the user's (``by``, newer: it changed, corrected,
        ended or said more than it) becomes an audit row of that one, with its own history: out
        of every search, in ``by``'s history, forgotten with it. False if either is gone."""
        ...

    async def history(self, user_id: str, memory_id: str) -> Sequence[Memory]:
        """The audit rows of a memory's earlier versions, newest first (``by_replacement``)."""
        ...

    async def forget(self, user_id: str, memory_id: str) -> bool:
        """Delete a memory and its audit rows for good; false if the user has no such memory."""
        ...

    async def forget_by_scope(self, user_id: str, project_id: str | None = None) -> int:
        """Delete the user's memories (of one project, or all) with their history, after
        recording when (``forgotten_at``): a turn captured before it is never learned."""
        ...

    async def settled(self, user_id: str, project_id: str) -> int:
        """Once every write made before the call is visible to every reader, ``forgotten_at``
        as fresh as that: one wait (~one Milvus time tick) for both."""
        ...

    async def forgotten_at(self, user_id: str, project_id: str) -> int:
        """When what the user says in this project was last forgotten (epoch ms; 0: never),
        as of a moment ago (cheap): ``settled`` also sees a forget of the last moment."""
        ...

    async def record_use(self, uses: Sequence[MemoryUse], at_ms: int, ttl_ms: int) -> int:
        """Apply ``renewed`` to the active memories among ``uses`` (each checked against its
        user); how many changed."""
        ...

    async def prune_expired(self, at_ms: int) -> int:
        """Delete every memory (of any user, history included) that expired before ``at_ms``."""
        ...

    async def trim(self, user_id: str, keep: int) -> int:
        """Delete the user's memories beyond ``keep`` (``evictions``), with their history."""
        ...

    async def close(self) -> None: ...


async def get_live(store: Store, user_id: str, memory_id: str) -> Memory | None:
    """The memory as the user sees it: None when absent, superseded or expired."""
    memory = await store.get(user_id, memory_id)
    return memory if memory is not None and is_alive(memory, now_ms()) else None
