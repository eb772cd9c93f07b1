"""How fast the worker learns with the local model, and how many model calls it makes: LoCoMo
sessions cut into batches as the processor cuts them (learning/turns.py, every 10 turns and
what an idle flush leaves), each chat knowing the memories a retrieval would have injected
(top 5 at cosine 0.6), each batch run when it is cut by the worker's own jobs (worker/jobs.py)
against the real local model, an in-memory store and the real embedder. No Envoy, no Milvus:
only the learning path, so before/after comparisons of prompts and call counts take minutes.

    .venv/bin/python -m eval.learning_speed [--sample conv-26] [--sessions 2] [--sides a,b]
        [--every 10] [--compress] [--baseline REF [--repeat N]]

`--every 1` learns each turn at once, as `make run` does. Each batch also keeps what compressing
its conversation reads (its messages' vectors and word ids, compression/state.py), as every
batch does; `--compress`: the conversations asked for compression, so the model writes their
running state too (one call a batch, `calls_conversation_state`).

Prints per batch: turns, seconds, calls by task, prompt tokens and the share served from the
model server's prompt cache, facts stored; then one JSON line with the totals.

`--baseline REF` runs the same measurement on another revision first (its own
eval.learning_speed, devstack/baseline.py), then today's, each in its own process, and prints
the two side by side with today/baseline, then one JSON line: today's figures, the baseline's
as `baseline_<key>`. `--repeat N` alternates the two N times (a slow minute weighs on both)
and averages each side.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from devstack import baseline
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
from memory_extproc.handoff import Batch
from memory_extproc.learning.turns import CapturedTurn, TurnTracker, as_sent
from memory_extproc.llm_api.requests import Turn
from memory_extproc.memories.facts import FactLimits
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.retrieval.context import format_context
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import rank
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import ScoredMemory, SearchRequest
from memory_extproc.wiring import build_embeddings, extraction_model
from memory_extproc.worker.jobs import LearningJobs
from memory_extproc.worker.pool import WorkerPool

EVERY = 10  # the product's extraction_batch_size default (`make run`'s: 1, every turn at once)
# today/baseline in the JSON line as `<key>_over_baseline`: the figures a change is judged by
RATIOS = ("seconds_per_10_turns", "seconds_per_batch", "model_calls")


async def chats_as_captured(
    sample: dict, side: str, store: InMemoryStore, embedder: Embeddings, compress: bool = False
) -> AsyncIterator[tuple[int, CapturedTurn]]:
    """This speaker's chats as the processor captures them (session, turn), each with the
    memories a retrieval would have injected into its request (known to extraction), named as
    the conversation is sent (learning/turns.py as_sent)."""
    user = user_of(sample["sample_id"], side)
    for chat in chats(sample, side):
        hits = await retrieve(store, embedder, user, chat.messages[-1]["content"])
        turns = tuple(Turn(m["role"], m["content"]) for m in chat.messages)
        captured = CapturedTurn(
            user, "", turns, chat.answer,
            at_ms=int(time.mktime(time.strptime(chat.date, "%Y-%m-%dT%H:%M:%S")) * 1000),
            recalled=tuple(h.memory.content for h in hits), received_ms=now_ms(),
            compress=compress,
        )  # fmt: skip
        yield chat.session, dataclasses.replace(captured, **as_sent(captured))


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
        embedder=embedder,
        state_words=config.memory.compression.state_words,
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
            tracker, session = TurnTracker(args.every), None  # the processor's batching
            captured_chats = chats_as_captured(sample, side, store, embedder, args.compress)
            async for number, captured in captured_chats:
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


Result = Mapping[str, object]


@dataclasses.dataclass(frozen=True)
class Row:
    """One figure of the side-by-side table; None where a side lacks it (or divides by 0)."""

    key: str
    baseline: float | None
    today: float | None
    ratio: float | None  # today / baseline


@dataclasses.dataclass(frozen=True)
class Comparison:
    """What `--baseline` prints: the table, then the one JSON line."""

    rows: list[Row]
    line: dict[str, object]  # the JSON line


def _number(value: object) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _ratio(today: object, before: object) -> float | None:
    new, old = _number(today), _number(before)
    return None if new is None or not old else round(new / old, 2)


def _is_task(key: str) -> bool:
    return key.startswith("calls_") and "_per_" not in key  # not calls_per_batch, not derived


def per_10_turns(result: Result) -> dict[str, object]:
    """The result with `calls_<task>_per_10_turns` after each `calls_<task>`: runs of other
    lengths (another sample, another revision's batching) compare per turn learned."""
    turns = _number(result.get("turns"))
    derived: dict[str, object] = {}
    for key, value in result.items():
        derived[key] = value
        if _is_task(key) and turns and (calls := _number(value)) is not None:
            derived[f"{key}_per_10_turns"] = round(10 * calls / turns, 1)
    return derived


def average(runs: Sequence[Result]) -> dict[str, object]:
    """One side's runs as one: numbers averaged, the rest as the first run has them."""
    averaged = dict(runs[0])
    for key in dict.fromkeys(k for run in runs for k in run):
        # a counter (calls_, tokens_) is absent from a run that never counted it: 0 there
        counter = key.startswith(("calls_", "tokens_"))
        values = [run.get(key, 0) for run in runs if counter or key in run]
        numbers = [n for v in values if (n := _number(v)) is not None]
        if numbers and len(numbers) == len(values):
            mean = round(sum(numbers) / len(numbers), 3)
            whole = mean.is_integer() and all(isinstance(n, int) for n in numbers)
            averaged[key] = int(mean) if whole else mean
    return averaged


def compare(before: Result, today: Result, *, ref: str, commit: str) -> Comparison:
    """Pure: the two sides' results as table rows (every number either side has, today's
    order first) and as the JSON line (today's keys, the baseline's as `baseline_<key>`)."""
    before, today = per_10_turns(before), per_10_turns(today)
    keys = [k for k in dict.fromkeys([*today, *before])
            if _number(today.get(k)) is not None or _number(before.get(k)) is not None]  # fmt: skip
    rows = [
        Row(k, _number(before.get(k)), _number(today.get(k)), _ratio(today.get(k), before.get(k)))
        for k in keys
    ]
    line = {
        **today,
        **{f"baseline_{k}": v for k, v in before.items()},
        "baseline_ref": ref,
        "baseline_commit": commit,
        **{f"{k}_over_baseline": _ratio(today.get(k), before.get(k)) for k in RATIOS},
    }
    return Comparison(rows, line)


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table, to paste into eval/RESULTS.md."""

    def shown(value: float | None) -> str:
        return "—" if value is None else f"{round(value, 3):,}"

    cells = [("", "baseline", "today", "today/baseline")] + [
        (r.key, shown(r.baseline), shown(r.today), shown(r.ratio)) for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    lines = [
        "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w)
                          for i, (c, w) in enumerate(zip(cell, widths, strict=True))) + " |"
        for cell in cells
    ]  # fmt: skip
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def side_arguments(args: argparse.Namespace, dump: str) -> list[str]:
    """This run's own arguments, for one side: the options both revisions know."""
    chosen = ["--sample", args.sample, "--sessions", str(args.sessions), "--sides", args.sides]
    if args.every != EVERY:  # a revision that does not know the option fails, and says so
        chosen += ["--every", str(args.every)]
    if args.compress:
        chosen.append("--compress")
    return chosen + (["--dump", dump] if dump else [])


def run_side(name: str, arguments: list[str], cwd: Path, env: dict[str, str]) -> dict[str, object]:
    """One side's run in its own process (its own local model), its lines passed through
    with its name; its result is its last line."""
    command = [sys.executable, "-m", "eval.learning_speed", *arguments]
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        last = ""
        for line in child.stdout:
            print(f"[{name}] {line}", end="", flush=True)
            last = line if line.strip() else last
    if child.returncode != 0:
        raise SystemExit(f"the {name} side failed (exit status {child.returncode})")
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        raise SystemExit(f"the {name} side's last line is not JSON: {last!r}") from None
    if not isinstance(result, dict):
        raise SystemExit(f"the {name} side's last line is not a JSON object: {last!r}")
    return result


def against_baseline(args: argparse.Namespace, commit: str) -> dict[str, object]:
    """Both revisions `args.repeat` times, taking turns at going first; prints the table, returns
    the line."""
    tree = baseline.checkout(args.baseline)
    # its eval/replay.py looks for the data beside its own tree (.run/baseline): point it here
    env = {"LOCOMO_PATH": str(replay.LOCOMO), **baseline.environment(tree)}
    dump = Path(args.dump) if args.dump else None
    before_dump = str(dump.with_name(f"baseline-{dump.name}")) if dump else ""
    runs: dict[str, list[dict[str, object]]] = {"baseline": [], "today": []}
    sides = {
        "baseline": (side_arguments(args, before_dump), tree, env),
        "today": (side_arguments(args, args.dump), baseline.ROOT, dict(os.environ)),
    }
    for repeat in range(args.repeat):  # baseline first, then the other way round, and so on
        for name in ("baseline", "today") if repeat % 2 == 0 else ("today", "baseline"):
            runs[name].append(run_side(name, *sides[name]))
    comparison = compare(
        average(runs["baseline"]), average(runs["today"]), ref=args.baseline, commit=commit
    )
    print(table(comparison.rows), flush=True)
    return {**comparison.line, "repeat": args.repeat}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m eval.learning_speed")
    parser.add_argument("--sample", default="conv-26")
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--sides", default="a,b")
    parser.add_argument("--every", type=int, default=EVERY, help="turns a job learns at once")
    parser.add_argument(
        "--compress", action="store_true", help="the conversations asked for compression"
    )
    parser.add_argument("--dump", default="", help="write the learned memories to this file")
    parser.add_argument(
        "--baseline", default="", metavar="REF", help="also run this revision, side by side"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, metavar="N", help="with --baseline: N runs each, averaged"
    )
    args = parser.parse_args()
    if args.repeat < 1 or (args.repeat > 1 and not args.baseline):
        parser.error("--repeat takes a number from 1, and only with --baseline")
    if not args.baseline:
        print(json.dumps(asyncio.run(run(args))))
        return
    try:
        commit = baseline.commit_of(args.baseline)
    except ValueError as exc:
        parser.error(str(exc))
    print(json.dumps(against_baseline(args, commit)))


if __name__ == "__main__":
    main()
