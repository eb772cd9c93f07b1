"""The request-path edge of compression: read what the worker left of the conversation, beside
the memory search, and plan the rewrite (compression/plan.py). It only reads: nothing is
embedded or written here. Any failure leaves the request as sent, with a reason counted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import numpy as np

from memory_extproc import metrics
from memory_extproc.compression.plan import (
    Compression,
    CompressionPolicy,
    Message,
    NotCompressed,
    Query,
    messages_of,
    plan,
)
from memory_extproc.compression.state import (
    Chunk,
    ConversationIndex,
    assemble,
    opening,
)
from memory_extproc.config.schema import CompressionConfig
from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import ChatRequest, conversation_items, message_text
from memory_extproc.retrieval.query import MAX_QUERY_CHARS
from memory_extproc.words import terms

log = logging.getLogger(__name__)

ChunkReader = Callable[[str, str], Awaitable[list[bytes]]]  # (user id, conversation key)


@dataclass(frozen=True, slots=True)
class Reading:
    """A compression under way: the request's messages, and the read of its index."""

    messages: list[Message]
    index: asyncio.Task[ConversationIndex | None] | None  # None: nothing to read (too short)
    conversation: str = ""  # its key: the memory API shows and deletes what is kept by it


class RequestCompression:
    def __init__(self, read: ChunkReader, config: CompressionConfig) -> None:
        self._read = read
        self._config = config
        self.policy = CompressionPolicy(
            min_turns=config.min_turns,
            keep_turns=config.keep_turns,
            quote_tokens=config.quote_tokens,
            state=config.state_words > 0,
        )

    def wanted(self, request: ChatRequest, signals: HeaderSignals) -> bool:
        """Asked in the body (``memory_config.compress``), else by a header, else by the
        configuration for the request's model; never for a request without a user."""
        asked = request.options.compress
        if asked is None:
            asked = signals.compress
        if asked is None:
            asked = self._config.for_model(request.model)
        return asked and bool(signals.user_id)

    def begin(self, request: ChatRequest, signals: HeaderSignals) -> Reading:
        """Starts reading the conversation's index, to be awaited after the memory search."""
        messages = messages_of(conversation_items(request), message_text)
        said = [(m.role, m.text) for m in messages if m.dialogue]
        users = sum(1 for role, _ in said if role == "user")
        if users < max(self.policy.min_turns, self.policy.keep_turns + 1):
            return Reading(messages, None)
        key = opening(signals.user_id, signals.project_id, said)
        task = asyncio.get_running_loop().create_task(self._index(signals.user_id, key))
        return Reading(messages, task, key)

    async def end(
        self, reading: Reading, query: str, vector: np.ndarray | None, within_s: float
    ) -> Compression | NotCompressed:
        """``query``: the new message; ``vector``: the memory search's, when it made one."""
        index = None
        if reading.index is not None:
            try:
                async with asyncio.timeout(max(within_s, 0.0)):
                    index = await reading.index
            except TimeoutError:
                return _counted(NotCompressed.UNAVAILABLE, "timeout")
            except Exception as exc:
                return _counted(NotCompressed.UNAVAILABLE, type(exc).__name__)
        return plan(
            reading.messages,
            index,
            Query(tuple(terms(query[:MAX_QUERY_CHARS])), vector),
            self.policy,
        )

    async def _index(self, user_id: str, key: str) -> ConversationIndex | None:
        chunks = [Chunk.decode(raw) for raw in await self._read(user_id, key)]
        return assemble(c for c in chunks if c is not None)


def _counted(reason: NotCompressed, why: str) -> NotCompressed:
    log.warning("Compression state not read, request sent as it is: %s", why)
    return reason


def counted(outcome: Compression | NotCompressed) -> None:
    """``memory_compression_total{outcome}`` and, when compressed, the tokens it saved."""
    if isinstance(outcome, Compression):
        metrics.COMPRESSION.labels("compressed").inc()
        metrics.COMPRESSION_TOKENS_SAVED.inc(max(0, outcome.tokens_before - outcome.tokens_after))
    else:
        metrics.COMPRESSION.labels(outcome.value).inc()
