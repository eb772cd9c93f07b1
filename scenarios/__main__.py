"""`make scenarios`: the nine truth scenarios through Envoy, the processor, its worker and Milvus,
in three modes: the real local model, scripted model answers, and notes (no model).

Each scenario is one new user: its sessions are sent through Envoy as chats (a stand-in chat LLM
answers as the scenario says), every turn is learned from before the next (the processor's
metrics say when its job is done), then what the user's memories are (the memory API, with
history) and what a follow-up question gets injected decide pass or fail. Prints a table and,
as its last line, one JSON object. `SCENARIO_MODES=notes,scripted` runs some modes;
`SCENARIO_SET=variants` runs the same nine behaviours in other words, `SCENARIO_SET=personal`
what memory is for beyond questions about itself: a change said in other words, preferences
shaping open requests (scenarios/cases.py). `SCENARIO_LANG=zh`, `es`, `de` or `ja` runs the truth
scenarios or their variants as a speaker of Chinese, Spanish, German or Japanese says them
(scenarios/cases_zh.py, cases_es.py, cases_de.py, cases_ja.py); personal is in English only.
`SCENARIO_SET=changes`: a move in a later conversation, a number corrected after a relative
date, a job left for another; `SCENARIO_SET=cascades`: what a move ends with it (both in the
five languages); `SCENARIO_SET=unseen`: six of these kinds in English, Chinese, Spanish and German,
written by a helper session that had read only this format, never the product, as a check the rules
were not written for (scenarios/cases_unseen.py); `SCENARIO_SET=blind`: thirty more, harder, in
those four and Japanese, written the same way a day later (scenarios/cases_blind.py).
`SCENARIO_LANG=pt` runs recall, the only set in Brazilian Portuguese, a language the product has
no rules of its own for: one fact said, asked in a later session (scenarios/cases_pt.py). A
language without truth scenarios runs its first set by default.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from devstack.gateway import Gateway
from devstack.local_llm import LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM
from devstack.ports import free_port
from devstack.process import run_harness
from devstack.tokens import DevIdentity
from scenarios.cases import Outcome, verdict
from scenarios.catalog import SETS, TOLD
from scenarios.runner import (
    CHAT_MODEL,
    SCRIPTED_MODEL,
    ChatAnswers,
    Run,
    memory_settings,
    scripted_extractor,
)

MODES = ("real", "scripted", "notes")
LLM = MockLLM()
LANG = os.environ.get("SCENARIO_LANG", "en")
if LANG not in SETS:
    sys.exit(f"SCENARIO_LANG={LANG!r}: use one of {', '.join(SETS)}")
FIRST = "truth" if "truth" in SETS[LANG] else next(iter(SETS[LANG]))  # pt has recall only
CHOSEN = os.environ.get("SCENARIO_SET", FIRST)
if CHOSEN not in SETS[LANG]:
    written = [lang for lang in SETS if CHOSEN in SETS[lang]]
    sys.exit(
        f"SCENARIO_SET={CHOSEN!r} is written in {', '.join(written)} only, not in {LANG!r}"
        if written
        else f"SCENARIO_SET={CHOSEN!r}: use one of {', '.join(SETS[LANG])}"
    )
CASES = SETS[LANG][CHOSEN]


def progress(mode: str, done: int, total: int, started: float) -> None:
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    print(f"[{mode}] {done}/{total} scenarios, {elapsed:.0f} s elapsed, ETA {eta:.0f} s",
          file=sys.stderr, flush=True)  # fmt: skip


async def run_mode(
    mode: str, workdir: Path, milvus: MilvusProcess, local: LocalLlmProcess | None,
    identity: DevIdentity, chat: ChatAnswers,
) -> tuple[dict[int, tuple[bool, str]], float | None]:  # fmt: skip
    """Verdicts per scenario, and the mean seconds per extraction job."""
    settings = memory_settings(mode, milvus.port, LLM.port, local)
    gateway = Gateway(workdir / mode, settings, LLM.port, identity)
    results: dict[int, tuple[bool, str]] = {}
    started = time.monotonic()
    try:
        await asyncio.to_thread(gateway.wait_ready)
        async with aiohttp.ClientSession() as http:
            run = Run(gateway, http, identity, LLM, chat)
            for done, scenario in enumerate(CASES):
                progress(mode, done, len(CASES), started)
                try:
                    outcome = await run.play(scenario, mode)
                except (RuntimeError, TimeoutError, aiohttp.ClientError) as exc:
                    outcome = Outcome([], [], [], errors=[f"{type(exc).__name__}: {exc}"])
                results[scenario.number] = verdict(scenario, outcome)
            progress(mode, len(CASES), len(CASES), started)
            jobs = await run.metric("memory_extraction_job_seconds_count")
            seconds = await run.metric("memory_extraction_job_seconds_sum")
    finally:
        await asyncio.to_thread(gateway.stop)
    return results, (seconds / jobs if jobs else None)


def table(results: dict[str, dict[int, tuple[bool, str]]]) -> str:
    modes = list(results)
    rows = [f"{'scenario':<56}" + "".join(f"{m:<10}" for m in modes)]
    for scenario in CASES:
        cells = "".join(
            f"{'pass' if results[m][scenario.number][0] else 'FAIL':<10}" for m in modes
        )
        rows.append(f"{scenario.number} {scenario.name:<54}{cells}")
    for m in modes:
        for number, (ok, reason) in results[m].items():
            if not ok:
                rows.append(f"  {m} #{number}: {reason}")
    return "\n".join(rows)


async def main() -> int:
    modes = os.environ.get("SCENARIO_MODES", ",".join(MODES)).split(",")
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-scenarios-"))
    identity = DevIdentity(workdir / "identity")
    chat = ChatAnswers(TOLD[LANG])
    LLM.on_model(CHAT_MODEL, chat)
    LLM.on_model(SCRIPTED_MODEL, scripted_extractor)
    await LLM.start()
    milvus = MilvusProcess(workdir / "milvus", free_port())
    local = LocalLlmProcess(free_port(), workdir / "local-llm.log") if "real" in modes else None
    results: dict[str, dict[int, tuple[bool, str]]] = {}
    per_job: dict[str, float | None] = {}
    try:
        print("starting Milvus standalone and the local model …", file=sys.stderr, flush=True)
        await asyncio.to_thread(milvus.wait_ready)
        if local is not None:
            await asyncio.to_thread(local.wait_ready)
        for mode in modes:
            results[mode], per_job[mode] = await run_mode(
                mode, workdir, milvus, local, identity, chat
            )
    finally:
        if local is not None:
            local.stop()
        milvus.stop()
        await LLM.stop()
        shutil.rmtree(workdir / "milvus", ignore_errors=True)  # ~0.5 GB a run; the logs stay
    print(table(results))
    print(f"(logs in {workdir})")
    passed = {m: sum(ok for ok, _ in results[m].values()) for m in results}
    seconds = per_job.get("real")
    print(json.dumps({
        "scenarios": len(CASES),
        "lang": LANG,
        "passed_real_model": passed.get("real"),
        "passed_scripted": passed.get("scripted"),
        "passed_notes": passed.get("notes"),
        "real_model_seconds_per_job": round(seconds, 2) if seconds is not None else None,
        "failed": {m: [n for n, (ok, _) in results[m].items() if not ok] for m in results},
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(run_harness(main))
