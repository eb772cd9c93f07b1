"""Playing a scenario through a running gateway: the stand-in chat LLM, the scripted extraction
model, and the calls a user makes (chats, the memory API, the processor's metrics)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import aiohttp
import orjson

from devstack.gateway import Gateway
from devstack.local_llm import LocalLlmProcess
from devstack.mock_llm import MockLLM, Reply, memory_lines
from devstack.tokens import DevIdentity
from memory_extproc.worker.prompts import REQUESTS_SYSTEM
from scenarios.cases import ECHO, TOLD, Held, Outcome, Scenario
from scenarios.catalog import scripted_facts, scripted_requests

CHAT_MODEL = "scenario-chat"
SCRIPTED_MODEL = "scripted-extractor"
LEARN_TIMEOUT_S = 600  # one turn's extraction; the local model takes 3-30 s
CUT_TIMEOUT_S = 10  # a captured turn is cut into its batch within milliseconds


class ChatAnswers:
    """The stand-in chat LLM: answers each request as the scenario's turn says, restating
    the memories it was given as ``told`` says (in the scenarios' language)."""

    def __init__(self, told: str = TOLD) -> None:
        self.next = ""
        self.told = told

    def __call__(self, payload: dict[str, Any]) -> Reply:
        given = [line.split("] ", 1)[-1] for line in memory_lines(payload)]
        echo = " ".join(self.told.format(g.rstrip(".\u3002")) for g in given)
        return Reply(text=self.next.replace(ECHO, echo).strip() or "I don't know yet.")


def scripted_extractor(payload: dict[str, Any]) -> Reply:
    """A good extraction model, scripted: the facts a scenario lists for the message it reads,
    "no longer true" for facts that end an old one, and the kinds of request a preference bears
    on."""
    messages = payload["messages"]
    answers = scripted_facts()
    if messages[0]["content"] == REQUESTS_SYSTEM:
        kinds = scripted_requests().get(messages[-1]["content"], ())
        return Reply(text=orjson.dumps({"requests": list(kinds)}).decode())
    if "still_true" in messages[0]["content"]:
        new = messages[-1]["content"].split("\nNEW: ", 1)[-1]
        # the product may have added when it happened ("… the week before 2026-11-25")
        ends = any(new.startswith(f) for facts, end in answers.values() if end for f in facts)
        return Reply(text=orjson.dumps({"still_true": not ends}).decode())
    said = [line[6:] for line in messages[-1]["content"].splitlines() if line.startswith("user: ")]
    facts = answers.get(said[-1], ((), False))[0] if said else ()
    return Reply(text=orjson.dumps({"facts": [{"type": "semantic", "content": f}
                                               for f in facts]}).decode())  # fmt: skip


class Run:
    """One mode: its gateway, and the calls a user makes through it."""

    def __init__(
        self,
        gateway: Gateway,
        http: aiohttp.ClientSession,
        identity: DevIdentity,
        llm: MockLLM,
        chat: ChatAnswers,
    ) -> None:
        self.gateway = gateway
        self.http = http
        self._uncut = 0  # captured turns never cut into a batch (see learned)
        self.identity = identity
        self.llm = llm
        self.answers = chat

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

    async def held_for_review(self, user: str) -> list[str]:
        """What learning held under the confidence bar (docs/concepts/confidence.md)."""
        url = f"{self.gateway.url}/v1/memory?limit=100&status=pending"
        async with self.http.get(url, headers=self._headers(user)) as response:
            return [m["content"] for m in orjson.loads(await response.read())["data"]]

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

    async def metric(self, name: str, labels: str = "") -> float:
        """The sum of a counter's series (the processor and its worker); ``labels``, e.g.
        '{outcome="ok"}', picks one."""
        async with self.http.get(self.gateway.metrics_url) as response:
            text = await response.text()
        starts = (name + labels + " ",) if labels else (name + "{", name + " ")
        return sum(
            float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(starts)
        )

    async def learned(self) -> None:
        """Every batch handed to the worker has been learned from, or given up on: a job that
        failed is tried again later, so only finished ones count (failures counted as done let
        later batches look learned while they waited behind the retries). A turn is cut into
        its batch just after its answer has passed (one turn per batch here, memory_settings):
        a turn counted as captured but not yet cut is waited for too (read between the two,
        the earlier batches alone looked all learned), for CUT_TIMEOUT_S at most: a turn the
        processor never cuts (the same opening sent again) is not waited for again."""
        started = time.monotonic()
        while time.monotonic() < started + LEARN_TIMEOUT_S:
            turns = await self.metric("memory_turns_total", '{outcome="captured"}')
            captured = await self.metric("memory_extraction_batches_total")
            done = await self.metric("memory_extraction_jobs_total", '{outcome="ok"}')
            dropped = await self.metric("memory_extraction_dropped_total")
            cut = captured + self._uncut >= turns
            if not cut and time.monotonic() > started + CUT_TIMEOUT_S:
                self._uncut, cut = int(turns - captured), True
            if cut and done + dropped >= captured:
                return
            await asyncio.sleep(0.2)  # polls another process: no event crosses the boundary
        raise TimeoutError("a turn was not learned from in time")

    async def play(self, scenario: Scenario, mode: str) -> Outcome:
        user = f"s{scenario.number}-{mode}-{uuid.uuid4().hex[:8]}"
        before_last: list[Held] = []
        for number, session in enumerate(scenario.sessions, 1):
            if number == len(scenario.sessions):
                before_last = await self.memories(user)
            history: list[dict[str, str]] = []
            for turn in session:
                history.append({"role": "user", "content": turn.said})
                self.answers.next = turn.answer
                history.append({"role": "assistant", "content": await self.chat(user, history)})
                await self.learned()
        after = await self.memories(user)
        self.answers.next = "ok"
        asked = [scenario.question, *([scenario.unrelated] if scenario.unrelated else [])]
        given = []
        for text in asked:
            await self.chat(user, [{"role": "user", "content": text}], learn=False)
            given.append(memory_lines(self.llm.for_model(CHAT_MODEL)[-1].json))
        return Outcome(
            before_last, after, given[0], unrelated=given[1] if scenario.unrelated else []
        )


def memory_settings(
    mode: str, milvus_port: int, llm_port: int, local: LocalLlmProcess | None
) -> dict[str, Any]:
    """The processor's `memory` settings for a mode (every turn extracted at once)."""
    settings: dict[str, Any] = {
        "milvus": {"address": f"127.0.0.1:{milvus_port}", "collection": f"scenarios_{mode}"},
        "extraction_batch_size": 1,
        "extraction": {"job_timeout_seconds": LEARN_TIMEOUT_S},
    }
    if mode == "real" and local is not None:
        settings["external_models"] = [local.endpoint()]
    elif mode == "scripted":
        settings["external_models"] = [{
            "model_role": "memory_extraction",
            "llm_endpoint": {"address": "127.0.0.1", "port": llm_port},
            "llm_model_name": SCRIPTED_MODEL,
        }]  # fmt: skip
    return settings
