"""How fast the worker learns with the local model, and how many model calls it makes: LoCoMo
sessions cut into batches as the processor cuts them (learning/turns.py, every 10 turns and
what an idle flush leaves), each chat knowing the memories a retrieval would have injected
(top 5 at cosine 0.6), each batch run when it is cut by the worker's own jobs (worker/jobs.py)
against the real local model, an in-memory store and the real embedder. No Envoy, no Milvus:
only the learning path, so before/after comparisons of prompts and call counts take minutes.

    .venv/bin/python -m eval.learning_speed [--sample conv-26] [--sessions 2] [--sides a,b]

Prints per batch: turns, seconds, calls by task, prompt tokens and the share served from the
model server's prompt cache, facts stored; then one JSON line with the totals.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

from devstack.local_llm import LocalLlmProcess
from devstack.ports import free_port
from eval import replay
from eval.locomo import (
    Asked,
    Provenance,
    chats,
    first_sessions,
    questions_within,
    score,
    user_of,
)
from memory_extproc import metrics
from memory_extproc.clock import day, now_ms
from memory_extproc.config import parse
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.learning.turns import CapturedTurn, TurnTracker
from memory_extproc.llm_api.requests import Turn
from memory_extproc.memories.facts import FactLimits
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.retrieval.context import format_context
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import rank
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import ScoredMemory, SearchRequest
from memory_extproc.wiring import build_embeddings, extraction_model
from memory_extproc.worker.inbox import Batch
from memory_extproc.worker.jobs import LearningJobs
from memory_extproc.worker.pool import WorkerPool

EVERY = 10  # the product's extraction_batch_size default


async def chats_as_captured(
    sample: dict, side: str, store: InMemoryStore, embedder: Embeddings
) -> AsyncIterator[tuple[int, CapturedTurn]]:
    """This speaker's chats as the processor captures them (session, turn), each with the
    memories a retrieval would have injected into its request (known to extraction)."""
    user = user_of(sample["sample_id"], side)
    for chat in chats(sample, side):
        hits = await retrieve(store, embedder, user, chat.messages[-1]["content"])
        turns = tuple(Turn(m["role"], m["content"]) for m in chat.messages)
        yield chat.session, CapturedTurn(
            user, "", turns, chat.answer,
            at_ms=int(time.mktime(time.strptime(chat.date, "%Y-%m-%dT%H:%M:%S")) * 1000),
            recalled=tuple(h.memory.content for h in hits), received_ms=now_ms(),
        )  # fmt: skip


def calls() -> Counter[str]:
    """Model calls so far, by task; and tokens by kind."""
    counted: Counter[str] = Counter()
    for family in metrics.REGISTRY.collect():
        for sample in family.samples:
            if sample.name == "memory_llm_seconds_count":
                counted[f"calls_{sample.labels['task']}"] += int(sample.value)
            elif sample.name == "memory_llm_tokens_total":
                counted[f"tokens_{sample.labels['kind']}"] += int(sample.value)
    return counted


async def run(args: argparse.Namespace) -> dict[str, object]:
    (whole,) = [s for s in replay.load_samples() if s["sample_id"] == args.sample]
    sample = first_sessions(whole, args.sessions)
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-learning-speed-"))
    model = LocalLlmProcess(free_port(), workdir / "local-llm.log")
    await asyncio.to_thread(model.wait_ready)
    config = parse({"memory": {"external_models": [model.endpoint()]}})
    client = extraction_model(config)
    assert client is not None
    store = InMemoryStore()
    embedder = build_embeddings(config, "extraction")
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=10, concurrency=1, job_timeout_s=3600),
        writer=MemoryWriter(store, embedder, client),
        store=None,
        extractor=client,
        limits=FactLimits(),
    )
    totals: Counter[str] = Counter()
    started = time.perf_counter()

    async def learn(batch: Batch) -> None:
        before, t0 = calls(), time.perf_counter()
        assert await jobs.run(batch), "the job failed"
        seconds = time.perf_counter() - t0
        used = calls() - before
        stored = len(await store.list(batch.user_id, limit=10_000))
        cached = used["tokens_cached_prompt"] / max(1, used["tokens_prompt"])
        by_task = {k[6:]: v for k, v in used.items() if k.startswith("calls_")}
        print(f"{batch.user_id} {batch.new_turns:>2} turns {seconds:6.1f} s  "
              f"calls {by_task} prompt {used['tokens_prompt']} ({cached:.0%} cached)  "
              f"memories {stored}", flush=True)  # fmt: skip
        totals.update(used)
        totals["batches"] += 1
        totals["turns"] += batch.new_turns
        totals["seconds"] += round(seconds)

    try:
        for side in args.sides.split(","):
            tracker, session = TurnTracker(EVERY), None  # the processor's batching
            async for number, captured in chats_as_captured(sample, side, store, embedder):
                if session is not None and number != session:
                    for batch in tracker.flush_all():  # a new session: the last one went idle
                        await learn(batch)
                session = number
                if (batch := tracker.record(captured, time.monotonic())) is not None:
                    await learn(batch)
            for batch in tracker.flush_all():
                await learn(batch)
        quality = await recall(whole, args, store, embedder)
        if args.dump:  # what was learned, to look at (or score again) without learning again
            users = [user_of(args.sample, side) for side in args.sides.split(",")]
            learned = {u: [dataclasses.asdict(m) for m in await store.list(u, limit=10_000)]
                       for u in users}  # fmt: skip
            text = json.dumps(learned, indent=1, default=str)
            await asyncio.to_thread(Path(args.dump).write_text, text)
    finally:
        await client.close()
        embedder.close()
        model.stop()
    users = {user_of(args.sample, side) for side in args.sides.split(",")}
    memories = sum([len(await store.list(u, limit=10_000)) for u in users])
    model_calls = sum(v for k, v in totals.items() if k.startswith("calls_"))
    return {
        "sample": args.sample, "sessions": args.sessions, "sides": args.sides,
        "batches": totals["batches"], "turns": totals["turns"],
        "seconds": round(time.perf_counter() - started, 1),
        "seconds_per_batch": round(totals["seconds"] / max(1, totals["batches"]), 1),
        "seconds_per_10_turns": round(10 * totals["seconds"] / max(1, totals["turns"]), 1),
        "model_calls": model_calls,
        "calls_per_batch": round(model_calls / max(1, totals["batches"]), 1),
        **{k: v for k, v in totals.items() if k.startswith(("calls_", "tokens_"))},
        "memories": memories,
        **quality,
    }  # fmt: skip


async def retrieve(
    store: InMemoryStore, embedder: Embeddings, user: str, query: str
) -> list[ScoredMemory]:
    """What the request path would inject (the default policy)."""
    policy = RetrievalPolicy()
    ranking = policy.ranking
    candidates = await store.retrieve(
        SearchRequest(
            user, await embedder.query(query), limit=ranking.candidate_limit(policy.limit),
            threshold=ranking.candidate_floor(policy.threshold),
        )
    )  # fmt: skip
    return rank(query, candidates, policy.threshold, policy.limit, ranking)


async def recall(
    whole: dict, args: argparse.Namespace, store: InMemoryStore, embedder: Embeddings
) -> dict[str, float]:
    """What the learned memories answer: the slice's questions through the product's own
    ranking and context (a quick stand-in for `make eval`'s llm mode, without Envoy)."""
    asked = []
    for question in questions_within(whole, args.sessions):
        if question.side not in args.sides.split(","):
            continue
        user = user_of(question.sample_id, question.side)
        chosen = await retrieve(store, embedder, user, question.text)
        context, injected = format_context(chosen, 2000)
        lines = [f"[{day(max(m.memory.created_at, m.memory.updated_at))}] {m.memory.content}"
                 for m in injected]  # fmt: skip
        asked.append(Asked(question, lines, len(context) // 4))
    scored = score(asked, Provenance.of([whole]), attribute=True).get("all", {})
    return {k: scored[k] for k in ("questions", "hit_at_1", "hit_at_5", "answer_recall")
            if k in scored}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m eval.learning_speed")
    parser.add_argument("--sample", default="conv-26")
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--sides", default="a,b")
    parser.add_argument("--dump", default="", help="write the learned memories to this file")
    print(json.dumps(asyncio.run(run(parser.parse_args()))))


if __name__ == "__main__":
    main()
