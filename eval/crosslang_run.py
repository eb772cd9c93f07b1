"""`python -m eval.crosslang_run`: cross-language recall through the request path's own parts.

Each pair is a new user holding the pair's fact and the distractors of both its languages
(stored as the worker stores a memory); the question goes through the request path's plan,
search and ranking (``MemoryRetrieval``, the default policy, an in-memory store). Recalled: an
injected memory holds the answer. Two passes: ``own``, English memories read by both models (a
user who writes both languages); ``first``, their e5 part carried from MiniLM's (a user who
wrote English only until this question: embedding/spaces.py). Prints each miss, then one JSON
line.
"""

from __future__ import annotations

import asyncio
import itertools
import json

import orjson

from eval.crosslang import DISTRACTORS, PAIRS, recalled
from memory_extproc.config import load
from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import Api, parse_request
from memory_extproc.memories.kinds import kind_of
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
        for (n, pair), by_e5 in itertools.product(enumerate(PAIRS), (True, False)):
            user, reading = f"crosslang-{n}-{by_e5}", "own" if by_e5 else "first"
            for text in (pair.fact, *DISTRACTORS[pair.said_in], *DISTRACTORS[pair.asked_in]):
                memory = Memory.new(user, text, kind_of(text))
                await store.store(memory, await embeddings.memory(text, by_e5=by_e5))
            body = orjson.dumps({"messages": [{"role": "user", "content": pair.question}]})
            request = parse_request(Api.CHAT_COMPLETIONS, body)
            result = await retrieval.process(
                request, HeaderSignals(user, path="/v1/chat/completions")
            )
            hit = recalled(result.recalled, pair)
            direction = f"{reading}_{pair.said_in}->{pair.asked_in}"
            found.setdefault(direction, []).append(hit)
            if not hit:
                print(f"miss {direction}: {pair.question} | {pair.fact} | {result.outcome}")
    finally:
        embeddings.close()
    recall = {
        f"recall_{reading}": round(sum(sum(v) for k, v in found.items() if k.startswith(reading))
                                   / len(PAIRS), 3)
        for reading in ("own", "first")
    }  # fmt: skip
    by_direction = {
        f"recall_{k.replace('->', '_to_')}": round(sum(v) / len(v), 3) for k, v in found.items()
    }
    print(json.dumps({"pairs": len(PAIRS), **recall, **by_direction}))


if __name__ == "__main__":
    asyncio.run(main())
