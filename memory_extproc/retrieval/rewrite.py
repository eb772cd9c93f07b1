"""Optional LLM query rewriting (``model_role: memory_rewrite``) for vague follow-ups.

"How much?" after a conversation about a Hawaii trip searches badly, even with context terms
prepended. A small, fast model can turn it into "budget for the Hawaii trip". It only runs for
messages the query builder finds vague, and only within the retrieval budget: if the model has not
answered by ``REWRITE_SHARE`` of the budget, the built query is used and the request goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol

from memory_extproc import metrics

log = logging.getLogger(__name__)

REWRITE_SHARE = 0.6  # of the retrieval budget; the rest is for embedding and search
MAX_REWRITE_CHARS = 300
_INSTRUCTIONS = (
    "Rewrite the user's last message as one short, self-contained search query for their "
    "personal notes, using the earlier messages to resolve what it refers to. Answer with the "
    "query only, on one line, no quotes, no explanation."
)


class Completer(Protocol):
    async def complete(self, messages: list[dict[str, str]], *, json_mode: bool = True) -> str: ...


def rewrite_messages(earlier: Sequence[str], message: str) -> list[dict[str, str]]:
    history = "\n".join(f"- {m.strip()[:500]}" for m in earlier[-3:])
    return [
        {"role": "system", "content": _INSTRUCTIONS},
        {"role": "user", "content": f"Earlier messages:\n{history}\n\nLast message: {message}"},
    ]


def parse_rewrite(answer: str) -> str | None:
    """The query, or None for an answer that is not one (empty, chatty, too long)."""
    lines = [line.strip().strip("\"'`") for line in answer.strip().splitlines() if line.strip()]
    if len(lines) != 1 or not lines[0] or len(lines[0]) > MAX_REWRITE_CHARS:
        return None
    return lines[0]


class QueryRewriter:
    def __init__(self, client: Completer) -> None:
        self._client = client

    async def rewrite(self, earlier: Sequence[str], message: str, within_s: float) -> str | None:
        """A better query, or None (too slow, failed, unusable): the caller keeps its own."""
        if within_s <= 0:
            metrics.REWRITES.labels("no_time").inc()
            return None
        try:
            async with asyncio.timeout(within_s):
                answer = await self._client.complete(
                    rewrite_messages(earlier, message), json_mode=False
                )
        except TimeoutError:
            metrics.REWRITES.labels("timeout").inc()
            return None
        except Exception as exc:
            metrics.REWRITES.labels("error").inc()
            log.warning("Query rewrite failed, using the built query: %s", type(exc).__name__)
            return None
        query = parse_rewrite(answer)
        metrics.REWRITES.labels("rewritten" if query else "unusable").inc()
        return query
