"""Runs parsed /v1/memory calls for the authenticated user against the store.

Every call is scoped to ``user_id`` from the trusted identity header: another user's memory id
looks exactly like one that does not exist (404), so ids cannot be probed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from memory_extproc import metrics
from memory_extproc.api.routes import (
    AddMemory,
    ApiError,
    Call,
    Conversation,
    Cursor,
    DeleteMemory,
    DeleteScope,
    GetHistory,
    GetMemory,
    GetReceipt,
    ListMemories,
    Review,
    SearchMemories,
    UpdateMemory,
    parse_call,
)
from memory_extproc.clock import iso, now_ms
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.memories.facts import Fact
from memory_extproc.memories.instructions import is_instruction_like
from memory_extproc.memories.redaction import RedactionPolicy, for_memory
from memory_extproc.memories.writer import DirectiveRefused, MemoryWriter, Written
from memory_extproc.store.model import (
    Memory,
    SearchRequest,
    Store,
    StoreUnavailableError,
    confidence_of,
    is_alive,
    is_held,
    replaced_at,
)

log = logging.getLogger(__name__)
# (user, project or None: all of the user's)
ForgetHook = Callable[[str, str | None], Awaitable[None]]
# (user, receipt id) → the receipt, or None when the user has no such receipt
ReceiptReader = Callable[[str, str], Awaitable[dict[str, Any] | None]]


class ConversationStates(Protocol):
    """What compression keeps of a user's conversations (learning/service.py)."""

    async def conversation(self, user_id: str, key: str) -> dict[str, Any] | None: ...

    async def forget_conversation(self, user_id: str, key: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class ApiReply:
    status: int
    body: bytes  # JSON, or empty for 204


def error_reply(status: int, code: str, message: str) -> ApiReply:
    return ApiReply(status, orjson.dumps({"error": {"code": code, "message": message}}))


def _json(status: int, data: Any) -> ApiReply:
    return ApiReply(status, orjson.dumps(data))


def memory_json(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "type": memory.type.value,
        "content": memory.content,
        "project_id": memory.project_id,
        "source": memory.source,
        "created_at": iso(memory.created_at),
        "updated_at": iso(memory.updated_at),
        "expires_at": iso(memory.expires_at),
        "access_count": memory.access_count,
        "confidence": confidence_of(memory).value,
        "status": "pending" if memory.pending else "active",
    }


def version_json(version: Memory) -> dict[str, Any]:
    return {
        "content": version.content,
        "type": version.type.value,
        "recorded_at": iso(max(version.created_at, version.updated_at)),
        "replaced_at": iso(replaced_at(version)),
        "reason": str(version.meta.get("reason", "")),
    }


class MemoryApi:
    def __init__(
        self,
        store: Store,
        embedder: Embeddings,
        writer: MemoryWriter,
        *,
        default_threshold: float,
        redaction: RedactionPolicy | None = None,
        source: str = "api",  # recorded on what it adds: "api", or "cli"
        on_forget: ForgetHook | None = None,  # the processor drops the turns it holds
        on_texts_forgotten: Callable[[], None] | None = None,  # so does the worker's cache
        receipts: ReceiptReader | None = None,  # what became of turns (None: none are kept)
        conversations: ConversationStates | None = None,  # what compression keeps
    ) -> None:
        self._receipts = receipts
        self._conversations = conversations
        self._source = source
        self._on_forget = on_forget
        self._on_texts_forgotten = on_texts_forgotten
        self._store = store
        self._embedder = embedder
        self._writer = writer
        self._threshold = default_threshold
        self._redaction = redaction or RedactionPolicy()

    async def respond(
        self, method: str, path: str, query: str, body: bytes, user_id: str, project_id: str
    ) -> ApiReply:
        """An HTTP call of the memory API. Never raises: every failure is a JSON error with a
        stable code."""
        try:
            if not user_id:
                raise ApiError(401, "unauthenticated", "the memory API needs an authenticated user")
            call = parse_call(method, path, query, body)
            # a receipt is kept with the conversations, not in Milvus
            if not self._store.available and not isinstance(call, GetReceipt | Conversation):
                raise StoreUnavailableError("store not connected")
            reply = await self._run(call, user_id, project_id)
        except ApiError as exc:
            reply = error_reply(exc.status, exc.code, exc.message)
        except StoreUnavailableError:
            reply = error_reply(503, "unavailable", "memory storage is unavailable, try again")
        except Exception:
            log.exception("memory API call failed")
            reply = error_reply(500, "internal", "unexpected error")
        label = method if method in _METHODS else "other"
        metrics.API_REQUESTS.labels(label, str(reply.status)).inc()
        return reply

    async def _run(self, call: Call, user_id: str, project_id: str) -> ApiReply:
        store = self._store
        match call:
            case ListMemories():
                before = (call.cursor.created_at, call.cursor.memory_id) if call.cursor else None
                page = await store.list(
                    user_id, limit=call.limit + 1, types=call.types,
                    project_id=call.project_id, before=before, pending=call.pending,
                )  # fmt: skip
                more = len(page) > call.limit
                page = page[: call.limit]
                last = page[-1] if more else None
                cursor = Cursor(last.created_at, last.id).encode() if last else None
                return _json(200, {"data": [memory_json(m) for m in page], "next_cursor": cursor})
            case GetMemory():
                return _json(200, memory_json(await self._shown(user_id, call.memory_id)))
            case GetHistory():
                await self._active(user_id, call.memory_id)
                versions = await store.history(user_id, call.memory_id)
                return _json(200, {"data": [version_json(v) for v in versions]})
            case AddMemory():
                project = project_id if call.project_id is None else call.project_id
                content = self._screened(call.content)
                try:
                    written, memory = await self._writer.add(
                        user_id, project, Fact(call.type, content), now_ms(), source=self._source
                    )
                except DirectiveRefused:
                    raise _instruction() from None
                status = 201 if written is Written.STORED else 200
                return _json(status, {**memory_json(memory), "result": written.value})
            case SearchMemories():
                vector = await self._embedder.query(call.query)
                threshold = self._threshold if call.threshold is None else call.threshold
                hits = await store.retrieve(
                    SearchRequest(
                        user_id, vector, limit=call.limit, threshold=threshold,
                        types=call.types, project_id=call.project_id, complete=True,
                    )
                )  # fmt: skip
                data = [{**memory_json(h.memory), "score": round(h.score, 4)} for h in hits]
                return _json(200, {"data": data})
            case UpdateMemory():
                text = None if call.content is None else self._screened(call.content)
                edited = await self._writer.edit(user_id, call.memory_id, text, call.type)
                if edited is None:
                    await self._active(user_id, call.memory_id)  # 409 if held for review
                    raise _not_found()
                return _json(200, memory_json(edited))
            case Review():
                if call.confirmed:
                    confirmed = await self._writer.confirm(user_id, call.memory_id)
                    if confirmed is None:
                        raise _not_pending()
                    metrics.MEMORIES_REVIEWED.labels("confirmed").inc()
                    return _json(200, memory_json(confirmed))
                held = await store.get(user_id, call.memory_id)
                if held is None or not held.pending or not await store.forget(user_id, held.id):
                    raise _not_pending()
                metrics.MEMORIES_REVIEWED.labels("rejected").inc()
                self._forget_cached_texts()
                return ApiReply(204, b"")
            case DeleteMemory():
                if not await store.forget(user_id, call.memory_id):
                    raise _not_found()
                self._forget_cached_texts()
                return ApiReply(204, b"")
            case DeleteScope():
                # Once asked, carried through even if the caller stops waiting (a client gone,
                # Envoy's message timeout): nothing half-forgotten is left for a retry to find.
                deleted = await asyncio.shield(self._forget_scope(user_id, call.project_id))
                log.info("Memories forgotten by scope", extra={"deleted": deleted})
                return _json(200, {"deleted": deleted})
            case GetReceipt():
                return await self._receipt(user_id, call.receipt_id)
            case Conversation():
                return await self._conversation(user_id, call)

    async def _receipt(self, user_id: str, receipt_id: str) -> ApiReply:
        """Another user's receipt looks exactly like one that does not exist."""
        found = await self._receipts(user_id, receipt_id) if self._receipts else None
        if found is None:
            return error_reply(404, "not_found", "no such receipt")
        return _json(200, {"id": receipt_id, **found})

    async def _conversation(self, user_id: str, call: Conversation) -> ApiReply:
        """Another user's conversation looks exactly like one that does not exist."""
        held = self._conversations
        if held is not None and call.delete:
            if await held.forget_conversation(user_id, call.conversation_id):
                return ApiReply(204, b"")
        elif held is not None:
            found = await held.conversation(user_id, call.conversation_id)
            if found is not None:
                return _json(200, {"id": call.conversation_id, **found})
        return error_reply(404, "not_found", "no such conversation")

    def _screened(self, content: str) -> str:
        """What a write stores: personal data masked. One that holds a secret is refused, by
        class and never with its value: a memory never holds one, however it came. So is a
        command to the assistant: memories are injected into later prompts as facts, and one
        that commands is a way in (memories/instructions.py)."""
        if is_instruction_like(content):
            raise _instruction()
        memory = for_memory(content, self._redaction)
        for kind, count in memory.found.items():
            metrics.REDACTIONS.labels(kind, "api").inc(count)
        if memory.refused:
            kinds = ", ".join(memory.refused)
            raise ApiError(
                422, "secret", f"the memory holds a secret ({kinds}), which memory never stores"
            )
        return memory.text

    async def _forget_scope(self, user_id: str, project_id: str | None) -> int:
        deleted = await self._store.forget_by_scope(user_id, project_id)
        if self._on_forget is not None:
            await self._on_forget(user_id, project_id)
        self._forget_cached_texts()
        return deleted

    def _forget_cached_texts(self) -> None:
        """Every cache of memory texts, here, in the worker and in the other replicas, is
        emptied: no cache tells which texts were whose, and a forget is rare enough to read the
        rest again."""
        self.forget_cached_texts_here()
        if self._on_texts_forgotten is not None:
            self._on_texts_forgotten()

    def forget_cached_texts_here(self) -> None:
        """This process's caches only (another replica forgot memories)."""
        self._writer.forget_cached_texts()

    async def _active(self, user_id: str, memory_id: str) -> Memory:
        """A current memory; one held for review is a 409 (confirm or reject it first)."""
        memory = await self._store.get(user_id, memory_id)
        if memory is not None and is_alive(memory, now_ms()):
            return memory
        if memory is not None and is_held(memory, now_ms()):
            raise ApiError(
                409, "pending",
                "the memory is held for review: confirm it (POST …/confirm) or reject it first",
            )  # fmt: skip
        raise _not_found()

    async def _shown(self, user_id: str, memory_id: str) -> Memory:
        """A memory the user can see: current, or held for review."""
        memory = await self._store.get(user_id, memory_id)
        if memory is None or not (is_alive(memory, now_ms()) or is_held(memory, now_ms())):
            raise _not_found()
        return memory


def _not_pending() -> ApiError:
    return ApiError(404, "not_found", "no memory held for review with this id")


_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})


def _instruction() -> ApiError:
    return ApiError(
        422, "instruction",
        "the memory reads as a command to the assistant; state it as a fact about the user "
        "(\"I prefer answers in French\", not \"Always answer in French\")",
    )  # fmt: skip


def _not_found() -> ApiError:
    return ApiError(404, "not_found", "no such memory")
