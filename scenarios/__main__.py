"""`make scenarios`: the nine truth scenarios through Envoy, the processor, its worker and Milvus,
in three modes: the real local model, scripted model answers, and notes (no model).

Each scenario is one new user: its sessions are sent through Envoy as chats (a stand-in chat LLM
answers as the scenario says), every turn is learned from before the next (the processor's
metrics say when its job is done), then what the user's memories are (the memory API, with
history) and what a follow-up question gets injected decide pass or fail. Prints a table and,
as its last line, one JSON object. `SCENARIO_MODES=notes,scripted` runs some modes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from memory_extproc.devstack.gateway import Gateway
from memory_extproc.devstack.local_llm import LocalLlmProcess
from memory_extproc.devstack.milvus import MilvusProcess
from memory_extproc.devstack.mock_llm import MockLLM, Reply, memory_lines
from memory_extproc.devstack.ports import free_port
from memory_extproc.devstack.tokens import DevIdentity
from scenarios.cases import ECHO, SCENARIOS, Held, Outcome, Scenario, scripted_facts, verdict

MODES = ("real", "scripted", "notes")
CHAT_MODEL = "scenario-chat"
SCRIPTED_MODEL = "scripted-extractor"
LEARN_TIMEOUT_S = 600  # one turn's extraction; the local model takes 3-30 s


class ChatAnswers:
    """The stand-in chat LLM: answers each request as the scenario's turn says."""

    def __init__(self) -> None:
        self.next = ""

    def __call__(self, payload: dict[str, Any]) -> Reply:
        given = [line.split("] ", 1)[-1] for line in memory_lines(payload)]
        echo = " ".join(f"You told me: {g.rstrip('.')}." for g in given)
        return Reply(text=self.next.replace(ECHO, echo).strip() or "I don't know yet.")


def scripted_extractor(payload: dict[str, Any]) -> Reply:
    """A good extraction model, scripted: the facts a scenario lists for the message it reads,
    and "no longer true" for facts that end an old one."""
    messages = payload["messages"]
    answers = scripted_facts()
    if "still_true" in messages[0]["content"]:
        new = messages[-1]["content"].split("\nNEW: ", 1)[-1]
        ends = any(new in facts for facts, end in answers.values() if end)
        return Reply(text=orjson.dumps({"still_true": not ends}).decode())
    said = [line[6:] for line in messages[-1]["content"].splitlines() if line.startswith("user: ")]
    facts = answers.get(said[-1], ((), False))[0] if said else ()
    return Reply(text=orjson.dumps({"facts": [{"type": "semantic", "content": f}
                                               for f in facts]}).decode())  # fmt: skip


class Run:
    """One mode: its gateway, and the calls a user makes through it."""

    def __init__(self, gateway: Gateway, http: aiohttp.ClientSession, identity: DevIdentity):
        self.gateway = gateway
        self.http = http
        self.identity = identity

    def _headers(self, user: str) -> dict[str, str]:
        return {
            "authorization": f"Bearer {self.identity.token(user)}",
            "content-type": "application/json",
        }

    async def chat(self, user: str, messages: list[dict[str, str]], learn: bool = True) -> str:
        body: dict[str, Any] = {"model": CHAT_MODEL, "messages": messages}
        if not learn:
            body["memory_config"] = {"auto_store": False}
        async with self.http.post(
            self.gateway.chat_url, data=orjson.dumps(body), headers=self._headers(user)
        ) as response:
            answer = await response.read()
            if response.status != 200:
                raise RuntimeError(f"chat: HTTP {response.status}: {answer[:200]!r}")
        return str(orjson.loads(answer)["choices"][0]["message"]["content"])

    async def memories(self, user: str) -> list[Held]:
        headers = self._headers(user)
        async with self.http.get(
            f"{self.gateway.url}/v1/memory?limit=100", headers=headers
        ) as response:
            page = orjson.loads(await response.read())
        held = []
        for memory in page["data"]:
            url = f"{self.gateway.url}/v1/memory/{memory['id']}/history"
            async with self.http.get(url, headers=headers) as response:
                versions = orjson.loads(await response.read())["data"]
            held.append(
                Held(memory["id"], memory["content"], tuple(v["content"] for v in versions))
            )
        return held

    async def metric(self, name: str) -> float:
        """The sum of a counter's series (the processor and its worker)."""
        async with self.http.get(self.gateway.metrics_url) as response:
            text = await response.text()
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith((name + "{", name + " "))
        )

    async def learned(self) -> None:
        """Every captured turn has been through the worker (a job ran for it)."""
        deadline = time.monotonic() + LEARN_TIMEOUT_S
        while time.monotonic() < deadline:
            captured = await self.metric("memory_turns_total")
            done = await self.metric("memory_extraction_jobs_total")
            dropped = await self.metric("memory_extraction_dropped_total")
            if done + dropped >= captured:
                return
            await asyncio.sleep(0.2)  # polls another process: no event crosses the boundary
        raise TimeoutError("a turn was not learned from in time")

    async def play(self, scenario: Scenario, mode: str, chat: ChatAnswers) -> Outcome:
        user = f"s{scenario.number}-{mode}-{uuid.uuid4().hex[:8]}"
        before_last: list[Held] = []
        for number, session in enumerate(scenario.sessions, 1):
            if number == len(scenario.sessions):
                before_last = await self.memories(user)
            history: list[dict[str, str]] = []
            for turn in session:
                history.append({"role": "user", "content": turn.said})
                chat.next = turn.answer
                history.append({"role": "assistant", "content": await self.chat(user, history)})
                await self.learned()
        after = await self.memories(user)
        chat.next = "ok"
        await self.chat(user, [{"role": "user", "content": scenario.question}], learn=False)
        return Outcome(before_last, after, memory_lines(LLM.for_model(CHAT_MODEL)[-1].json))


LLM = MockLLM()


def memory_settings(mode: str, milvus: MilvusProcess, local: LocalLlmProcess | None) -> dict:
    settings: dict[str, Any] = {
        "milvus": {"address": f"127.0.0.1:{milvus.port}", "collection": f"scenarios_{mode}"},
        "extraction_batch_size": 1,
        "extraction": {"job_timeout_seconds": LEARN_TIMEOUT_S},
    }
    if mode == "real" and local is not None:
        settings["external_models"] = [local.endpoint()]
    elif mode == "scripted":
        settings["external_models"] = [{
            "model_role": "memory_extraction",
            "llm_endpoint": {"address": "127.0.0.1", "port": LLM.port},
            "llm_model_name": SCRIPTED_MODEL,
        }]  # fmt: skip
    return settings


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
    gateway = Gateway(workdir / mode, memory_settings(mode, milvus, local), LLM.port, identity)
    results: dict[int, tuple[bool, str]] = {}
    started = time.monotonic()
    try:
        await asyncio.to_thread(gateway.start)
        async with aiohttp.ClientSession() as http:
            run = Run(gateway, http, identity)
            for done, scenario in enumerate(SCENARIOS):
                progress(mode, done, len(SCENARIOS), started)
                try:
                    outcome = await run.play(scenario, mode, chat)
                except (RuntimeError, TimeoutError, aiohttp.ClientError) as exc:
                    outcome = Outcome([], [], [], errors=[f"{type(exc).__name__}: {exc}"])
                results[scenario.number] = verdict(scenario, outcome)
            progress(mode, len(SCENARIOS), len(SCENARIOS), started)
            jobs = await run.metric("memory_extraction_job_seconds_count")
            seconds = await run.metric("memory_extraction_job_seconds_sum")
    finally:
        await asyncio.to_thread(gateway.stop)
    return results, (seconds / jobs if jobs else None)


def table(results: dict[str, dict[int, tuple[bool, str]]]) -> str:
    modes = list(results)
    rows = [f"{'scenario':<56}" + "".join(f"{m:<10}" for m in modes)]
    for scenario in SCENARIOS:
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
    chat = ChatAnswers()
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
    print(table(results))
    print(f"(logs in {workdir})")
    passed = {m: sum(ok for ok, _ in results[m].values()) for m in results}
    seconds = per_job.get("real")
    print(json.dumps({
        "scenarios": len(SCENARIOS),
        "passed_real_model": passed.get("real"),
        "passed_scripted": passed.get("scripted"),
        "passed_notes": passed.get("notes"),
        "real_model_seconds_per_job": round(seconds, 2) if seconds is not None else None,
        "failed": {m: [n for n, (ok, _) in results[m].items() if not ok] for m in results},
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
