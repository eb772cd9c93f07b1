"""`python -m eval.crosslang_run`: cross-language recall through the request path's own parts.

Each pair is a new user holding the pair's fact and the distractors of both its languages
(stored as the worker stores a memory: both models' readings); the question goes through the
request path's plan, search and ranking (``MemoryRetrieval``, the default policy, an in-memory
store). Recalled: an injected memory holds the answer. Prints each miss, then one JSON line.
"""

from __future__ import annotations

import asyncio
import json

import orjson

from eval.crosslang import DISTRACTORS, PAIRS, recalled
from memory_extproc.config import load
from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import Api, parse_request
from memory_extproc.memories.facts import kind_of
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Memory
from memory_extproc.wiring import build_embeddings, retrieval_policy


async def main() -> None:
    config = load(None)
    embeddings = build_embeddings(config, "crosslang")
    store = InMemoryStore()
    retrieval = MemoryRetrieval(embeddings, store, retrieval_policy(config), budget_s=30)
    found: dict[str, list[bool]] = {}
    try:
        for n, pair in enumerate(PAIRS):
            user = f"crosslang-{n}"
            for text in (pair.fact, *DISTRACTORS[pair.said_in], *DISTRACTORS[pair.asked_in]):
                memory = Memory.new(user, text, kind_of(text))
                await store.store(memory, await embeddings.memory(text))
            body = orjson.dumps({"messages": [{"role": "user", "content": pair.question}]})
            request = parse_request(Api.CHAT_COMPLETIONS, body)
            result = await retrieval.process(
                request, HeaderSignals(user, path="/v1/chat/completions")
            )
            hit = recalled(result.recalled, pair)
            direction = f"{pair.said_in}->{pair.asked_in}"
            found.setdefault(direction, []).append(hit)
            if not hit:
                print(f"miss {direction}: {pair.question} | {pair.fact} | {result.outcome}")
    finally:
        embeddings.close()
    hits = sum(sum(v) for v in found.values())
    by_direction = {
        f"recall_{k.replace('->', '_to_')}": round(sum(v) / len(v), 3) for k, v in found.items()
    }
    print(json.dumps({"pairs": len(PAIRS), "recall": round(hits / len(PAIRS), 3), **by_direction}))


if __name__ == "__main__":
    asyncio.run(main())
