"""`make compare`: memory-extproc beside mem0 (PyPI mem0ai 2.2.1, the memory layer most users
know) on the same footing: the same local extraction model, the same MiniLM vectors, the same
Milvus server, the same data, and one scoring code for both.

1. Ours: `make eval`'s llm mode (eval/__main__.py: LoCoMo slices replayed through Envoy from
   both speakers' sides, learned by the local model, questions asked by the speaker whose
   turns hold the evidence), and `make scenarios` with the real model (the nine truth
   scenarios, judged strictly: one current memory, the old value only in history).
2. mem0, in its own venv (.venv-compare: it needs protobuf<7, our stubs 7): the same slices
   added a session at a time from each side, dated, as its documentation shows
   (`add(messages, user_id=…)`), each question asked through `search(query, user_id=…,
   limit=5)`, its results formatted as its README shows ("- memory" lines); the nine
   scenarios as an application would play them (search, answer, add), passed when the
   follow-up's search holds the current value and not the old one. Its LLM is the same model
   served with a 16k context (its extraction prompt alone is ~8,000 tokens); its embedder
   is our ONNX MiniLM served as an OpenAI-compatible /v1/embeddings (devstack/embeddings.py).
3. Both scored by eval/locomo.py: hit@1, hit@5, answer recall, injected tokens (MiniLM
   WordPiece); seconds of learning per session added; search p50.

Progress on stderr; a table; the last line is one JSON object. `python -m compare --pins`
prints the `compare` extra's pins (the Makefile installs them into .venv-compare).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from devstack.embeddings import EmbeddingsServer
from devstack.local_llm import MODEL_NAME, LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.ports import free_port
from devstack.process import run_harness
from eval import replay
from eval.locomo import (
    SIDES,
    Asked,
    Provenance,
    Question,
    chats,
    first_sessions,
    questions_within,
    score,
    user_of,
)
from eval.tokens import token_counter
from scenarios.cases import SCENARIOS, Scenario

ROOT = Path(__file__).resolve().parents[1]
MEM0_PYTHON = ROOT / ".venv-compare" / "bin" / "python"
MEM0_CONTEXT_TOKENS = 16384
SLICES = os.environ.get("EVAL_LLM_SLICES", "conv-26:4,conv-30:4")


def say(line: str) -> None:
    print(f"[compare {time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


def pins() -> list[str]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return list(extras["optional-dependencies"]["compare"])


def run_tool(module: str, env: dict[str, str]) -> dict[str, Any]:
    """Run one of our own tools (`python -m eval`, `-m scenarios`), its output shown as it
    goes; the JSON object on its last line."""
    say(f"running python -m {module} ({' '.join(f'{k}={v}' for k, v in env.items())})")
    process = subprocess.Popen(
        [sys.executable, "-m", module], cwd=ROOT, env={**os.environ, **env},
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    last = ""
    assert process.stdout is not None
    for line in process.stdout:
        print(f"  {module}: {line.rstrip()}", file=sys.stderr, flush=True)
        last = line if line.strip() else last
    if process.wait() != 0:
        raise RuntimeError(f"python -m {module} failed")
    result: dict[str, Any] = json.loads(last)
    return result


def slices() -> list[tuple[dict[str, Any], int]]:
    wholes = {s["sample_id"]: s for s in replay.load_samples()}
    return [(wholes[name], int(count)) for name, count in (p.split(":") for p in SLICES.split(","))]


def slice_questions() -> list[Question]:
    return [q for whole, count in slices() for q in questions_within(whole, count)]


def mem0_steps() -> tuple[list[dict[str, Any]], list[Question], list[Scenario]]:
    """mem0's job: each slice's sessions, a session per add, from each side (dated); then the
    questions; then the scenarios, each a user of its own."""
    steps: list[dict[str, Any]] = []
    for whole, count in slices():
        cut = first_sessions(whole, count)
        for side in SIDES:
            user = user_of(cut["sample_id"], side)
            sessions: dict[int, list[dict[str, str]]] = {}
            dates: dict[int, str] = {}
            for chat in chats(cut, side):  # each chat holds the session so far: keep the last
                answer = {"role": "assistant", "content": chat.answer}
                sessions[chat.session] = [*chat.messages, answer]
                dates[chat.session] = chat.date
            for number, messages in sorted(sessions.items()):
                steps.append({"op": "add", "user_id": user, "messages": messages,
                              "date": dates[number], "session": True})  # fmt: skip
    asked = slice_questions()
    steps += [
        {"op": "search", "user_id": user_of(q.sample_id, q.side), "query": q.text, "limit": 5}
        for q in asked
    ]
    for scenario in SCENARIOS:
        user = f"scenario-{scenario.number}"
        for session in scenario.sessions:
            steps += [{"op": "turn", "user_id": user, "said": t.said, "answer": t.answer}
                      for t in session]  # fmt: skip
        steps.append({"op": "search", "user_id": user, "query": scenario.question, "limit": 5})
    return steps, asked, list(SCENARIOS)


def mem0_passes(scenario: Scenario, found: list[str]) -> bool:
    """The follow-up's search holds every current value and no old one (mem0 keeps no
    history: an old value found is an old value presented as current)."""
    text = "\n".join(found)
    return all(v in text for v in scenario.current) and not any(v in text for v in scenario.old)


async def run_mem0(workdir: Path) -> dict[str, Any]:
    steps, asked, scenarios = mem0_steps()
    milvus = MilvusProcess(workdir / "milvus", free_port())
    model = LocalLlmProcess(free_port(), workdir / "mem0-llm.log",
                            context_tokens=MEM0_CONTEXT_TOKENS)  # fmt: skip
    embeddings = EmbeddingsServer()
    try:
        say("mem0: starting Milvus, the local model (16k context) and the embeddings server")
        await asyncio.to_thread(milvus.wait_ready)
        await asyncio.to_thread(model.wait_ready)
        await embeddings.start()
        job = {
            "milvus_uri": milvus.uri, "collection": "mem0_compare",
            "llm_base_url": f"{model.base_url}/v1", "llm_model": MODEL_NAME,
            "embed_base_url": embeddings.base_url,
            "history_db": str(workdir / "mem0" / "history.db"), "steps": steps,
        }  # fmt: skip
        job_path, out_path = workdir / "mem0-job.json", workdir / "mem0-out.json"
        job_path.write_text(json.dumps(job))
        say(f"mem0: {len(steps)} steps ({sum(s['op'] != 'search' for s in steps)} adds)")
        process = await asyncio.create_subprocess_exec(
            str(MEM0_PYTHON), str(ROOT / "compare" / "mem0_side.py"), str(job_path),
            str(out_path), cwd=ROOT,
        )  # fmt: skip
        if await process.wait() != 0:
            raise RuntimeError("the mem0 side failed")
        results = json.loads(out_path.read_text())["steps"]
    finally:
        await embeddings.stop()
        model.stop()
        milvus.stop()
    return {"steps": steps, "results": results, "asked": asked, "scenarios": scenarios}


def mem0_scores(run: dict[str, Any], tokens_of: Callable[[str], int]) -> dict[str, Any]:
    steps, results = run["steps"], run["results"]
    sessions = [r for s, r in zip(steps, results, strict=True) if s.get("session")]
    searches = [(s, r) for s, r in zip(steps, results, strict=True) if s["op"] == "search"]
    questions = searches[: len(run["asked"])]
    answered = []
    for question, (_, result) in zip(run["asked"], questions, strict=True):
        lines = [m["memory"] for m in result.get("results", [])]
        tokens = tokens_of(result.get("context", ""))
        answered.append(Asked(question, lines, tokens))
    follow_ups = searches[len(run["asked"]) :]
    passed = [
        mem0_passes(scenario, [m["memory"] for m in result.get("results", [])])
        for scenario, (_, result) in zip(run["scenarios"], follow_ups, strict=True)
    ]
    failed = [r for r in sessions if "error" in r]
    return {
        "asked": answered,
        "seconds_per_add": round(statistics.fmean(r["seconds"] for r in sessions), 1),
        "adds": len(sessions),
        "failed_adds": len(failed),
        "search_p50_ms": round(1000 * statistics.median(r["seconds"] for _, r in searches), 1),
        "scenarios_passed": sum(passed),
        "scenarios_failed": [
            s.number for s, ok in zip(run["scenarios"], passed, strict=True) if not ok
        ],
    }


def ours_scores(evaluated: dict[str, Any], scenarios: dict[str, Any]) -> dict[str, Any]:
    detail = json.loads(Path(evaluated["results_file"]).read_text())["llm"]
    asked = [
        Asked(Question(a["sample_id"], a["question"], a["category"], frozenset(a["evidence"]),
                       a["side"], a["answer"]), a["injected"], a["tokens"])
        for a in detail["asked"]
    ]  # fmt: skip
    sessions = sum(count for _, count in slices()) * len(SIDES)
    return {
        "asked": asked,
        "seconds_per_add": round(detail["extraction_seconds"] / sessions, 1),
        "search_p50_ms": detail["retrieval_latency_ms"]["p50"],
        "scenarios_passed": scenarios["passed_real_model"],
        "scenarios_failed": scenarios["failed"].get("real", []),
    }


def table(rows: dict[str, dict[str, Any]]) -> str:
    keys = [
        ("hit_at_1", "hit@1"),
        ("hit_at_5", "hit@5"),
        ("answer_recall", "answer recall"),
        ("mean_injected_tokens", "injected tokens (mean)"),
        ("seconds_per_add", "seconds of learning per session"),
        ("search_p50_ms", "search p50 (ms)"),
        ("scenarios_passed", "truth scenarios passed"),
    ]
    lines = [f"{'':<34}{'memory-extproc':>16}{'mem0 2.2.1':>14}"]  # fmt: skip
    for key, label in keys:
        lines.append(f"{label:<34}{rows['ours'][key]!s:>16}{rows['mem0'][key]!s:>14}")
    return "\n".join(lines)


async def main() -> int:
    if "--pins" in sys.argv:
        print(" ".join(pins()))
        return 0
    if not replay.LOCOMO.exists():
        message = f"LoCoMo data not found at {replay.LOCOMO} (set LOCOMO_PATH): compare skipped"
        print(json.dumps({"skipped": message}))
        return 0
    if not MEM0_PYTHON.exists():
        raise SystemExit(f"{MEM0_PYTHON} is missing: run `make compare`")
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-compare-"))
    started = time.monotonic()
    evaluated = run_tool("eval", {"EVAL_MODES": "llm", "EVAL_LLM_SLICES": SLICES})
    scenarios = run_tool("scenarios", {"SCENARIO_MODES": "real"})
    mem0_run = await run_mem0(workdir)
    tokens_of = token_counter()
    provenance = Provenance.of(replay.load_samples())
    rows: dict[str, dict[str, Any]] = {}
    for name, measured in (("ours", ours_scores(evaluated, scenarios)),
                           ("mem0", mem0_scores(mem0_run, tokens_of))):  # fmt: skip
        scored = score(measured.pop("asked"), provenance, attribute=True)
        rows[name] = {**{k: scored["all"][k] for k in (
            "questions", "hit_at_1", "hit_at_5", "answer_recall", "mean_injected_tokens")},
            **measured, "by_group": scored}  # fmt: skip
    print(table(rows))
    results = ROOT / "compare" / "results"
    results.mkdir(exist_ok=True)
    path = results / f"compare-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(rows, indent=2, default=str))
    print(f"(details in {path}, logs in {workdir}; {time.monotonic() - started:.0f} s)")
    summary = {f"{who}_{key}": rows[who][key] for who in ("ours", "mem0")
               for key in ("hit_at_1", "hit_at_5", "answer_recall", "mean_injected_tokens",
                           "scenarios_passed", "seconds_per_add", "search_p50_ms")}  # fmt: skip
    summary |= {"questions": rows["ours"]["questions"], "slices": SLICES,
                "mem0_questions": rows["mem0"]["questions"]}  # fmt: skip
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(run_harness(main))
