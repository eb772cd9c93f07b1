"""`make chaos`: faults and abuse against the real stack while chats from several users flow.

Envoy, the processor (and its worker), Milvus standalone and a stand-in LLM (chat upstream and
extraction model) run on this machine. Six users send a steady stream of chats; each user
message carries a marker (``u3t0042``) that the stand-in extraction model turns into a fact.
Meanwhile, one after another: Milvus paused (SIGSTOP/SIGCONT), the extraction model slow, then
answering garbage, then down; huge and broken answers (40 MiB JSON, a 40 MiB SSE event, SSE cut
short, invalid JSON); the worker killed; a second processor replica (both behind the one Envoy,
sharing captured turns and conversation state in Valkey) killed outright with turns queued and never
restarted; Valkey killed and restarted; the processor SIGTERMed with turns queued and killed
outright (each restarted); Milvus killed after more than 30 s up and restarted.

What counts, in the last line's JSON object:
* ``non_2xx_caused_by_memory``: chats not answered 2xx (the stand-in answers every chat 200, so
  any other status came from the memory layer);
* ``turns_lost``: markers of chats the processor read and answered normally that the extraction
  model never saw and answered well (e.g. lost in a queue or a killed process), plus turns the
  processor itself counted as dropped; chats cut by the processor's own kill -9 are not counted;
* ``cross_user_leaks``: markers of one user injected into another's chat or listed by the
  memory API for another;
* ``memory_recovery_seconds_after_milvus_restart``: from restarting a killed Milvus to the first
  chat that gets its memory injected again;
* ``forgotten_turns_learned``: markers a user said before forgetting everything (while their
  turns queued behind a slow model, then sat in the Valkey stream across a SIGTERM) that are in
  their memories at the end: a forget must cancel every pending turn;
* ``replica_kills``: replicas killed and not restarted; their turns count in ``turns_lost``
  unless the surviving processor claims them from the Valkey stream (after
  ``memory.valkey.claim_idle_seconds``) and learns them;
* ``shared_state_errors``: calls to Valkey that failed or were skipped while it was down
  (``memory_shared_state_errors_total``): learning goes on without it, ``turns_lost`` says so.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from devstack.envoy import EnvoyProcess, Upstream, render
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply, memory_lines
from devstack.ports import free_port
from devstack.process import run_harness
from devstack.processor import ProcessorProcess, write_config
from devstack.tokens import DevIdentity
from devstack.valkey import ValkeyProcess

USERS = 6
FORGETFUL = 5  # the user who forgets everything while turns are pending
CHAT_PERIOD_S = 1.2  # per user: ~5 chats/s in all
EXTRACTOR = "chaos-extractor"
CHAT = "chaos-chat"
MARKER = re.compile(r"\bu(\d+)t(\d{4})\b")
HUGE = 40 * 1024 * 1024


def log(message: str) -> None:
    print(f"[chaos {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class Sent:
    user: int
    marker: str
    started: float
    ended: float = 0.0
    status: int = 0


@dataclass
class Chaos:
    """The stand-ins' behaviour, switched by the fault phases, and what they saw."""

    extraction: str = "ok"  # ok, slow, garbage, down
    broken_answers: bool = False
    answered: set[str] = field(default_factory=set)  # markers the extraction model answered well
    processed: set[str] = field(default_factory=set)  # markers whose request the processor read
    broken: set[str] = field(default_factory=set)  # markers answered hugely or brokenly
    leaks: int = 0
    kills: list[float] = field(default_factory=list)  # processor kill -9 moments
    forget: tuple[float, float] = (0.0, 0.0)  # FORGETFUL's forget: sent, answered (monotonic)
    answers: int = 0

    async def extract(self, payload: dict[str, Any]) -> Reply:
        prompt = payload["messages"][-1]["content"]
        markers = sorted({m.group(0) for m in MARKER.finditer(prompt)})
        if self.extraction == "down":
            return Reply(status=503, body=b'{"error": {"message": "model overloaded"}}')
        if self.extraction == "garbage":
            return Reply(text="Sure! Here are the facts: {facts: [oops")
        if self.extraction == "slow":
            await asyncio.sleep(4)
        self.answered.update(markers)
        facts = [{"type": "semantic", "content": f"User keeps marker {m} in a notebook"}
                 for m in markers]  # fmt: skip
        return Reply(text=orjson.dumps({"facts": facts}).decode())

    def chat(self, payload: dict[str, Any]) -> Reply:
        user = payload.get("metadata", {}).get("chaos_user")
        said = {m.group(0) for m in MARKER.finditer(payload["messages"][-1]["content"])}
        if "memory_config" not in payload:  # the processor read (and rewrote) this request
            self.processed.update(said)
        for line in memory_lines(payload):
            self.leaks += sum(1 for m in MARKER.finditer(line) if f"u{m.group(1)}" != user)
        if not self.broken_answers:
            return Reply(text="Noted.")
        self.answers += 1
        kind = self.answers % 8  # half of them normal: the stream goes on around them
        if kind > 3:
            return Reply(text="Noted.")
        self.broken.update(said)
        if kind == 0:  # a 40 MiB JSON answer
            text = "x" * HUGE
            return Reply(body=orjson.dumps({"choices": [{"message": {"content": text}}]}))
        if kind == 1:  # one 40 MiB SSE event
            event = (
                b'data: {"choices":[{"index":0,"delta":{"content":"' + b"y" * HUGE + b'"}}]}\n\n'
            )
            return Reply(chunks=[event, b"data: [DONE]\n\n"], content_type="text/event-stream")
        if kind == 2:  # SSE cut short, garbage inside
            return Reply(chunks=[b'data: {"choices":[{"index":0,"delta":{"content":"half'],
                         content_type="text/event-stream")  # fmt: skip
        return Reply(body=b'{"choices": [{"message": {"content": "broken', status=200)


class Stack:
    def __init__(self, workdir: Path, llm: MockLLM) -> None:
        self.workdir = workdir
        self.identity = DevIdentity(workdir / "identity")
        self.milvus_port, self.grpc_port, self.admin_port = free_port(), free_port(), free_port()
        self.envoy_port = free_port()
        self.milvus_started = 0.0
        self.milvus_ready_s = -1.0  # after the restart: Milvus' own part of the recovery
        self.milvus = self.start_milvus()
        self.valkey_port = free_port()
        self.valkey = self.start_valkey()
        self.settings = {
            "memory": {
                "milvus": {"address": f"127.0.0.1:{self.milvus_port}", "collection": "chaos"},
                "valkey": {"url": self.valkey.url},
                "extraction_batch_size": 1,
                "external_models": [{
                    "model_role": "memory_extraction",
                    "llm_endpoint": {"address": "127.0.0.1", "port": llm.port},
                    "llm_model_name": EXTRACTOR, "llm_timeout_seconds": 10,
                }],
                "extraction": {"spool_dir": str(workdir / "spool"), "drain_seconds": 2,
                               "job_timeout_seconds": 30, "retries": 1},
            },
        }  # fmt: skip
        self.config = self.write_config("config.yaml", self.grpc_port, self.admin_port)
        self.runs = 0
        self.processor = self.start_processor()
        # A second replica, killed for good in one phase: the first claims its turns from Valkey.
        self.replica_ports = (free_port(), free_port())
        self.replica: ProcessorProcess | None = ProcessorProcess(
            self.write_config("config-replica.yaml", *self.replica_ports), self.replica_ports[0],
            workdir / "processor-replica.log",
        )  # fmt: skip
        self.replica.wait_ready()
        self.replica.wait_memory_enabled(self.replica_ports[1])
        self.envoy = EnvoyProcess(
            render(listen_port=self.envoy_port, admin_port=free_port(),
                   processor_ports=[self.grpc_port, self.replica_ports[0]],
                   upstream=Upstream("127.0.0.1", llm.port), jwks_path=self.identity.jwks_path),
            workdir / "envoy",
        )  # fmt: skip
        self.envoy.wait_ready()
        self.url = f"http://127.0.0.1:{self.envoy_port}"
        # per processor run (the replica's as run 0): the last counters seen
        self.metrics: dict[int, Counter[str]] = {}

    def write_config(self, name: str, grpc_port: int, admin_port: int) -> Path:
        server = {"grpc_port": grpc_port, "admin_port": admin_port, "log_level": "INFO",
                  "grace_seconds": 5}  # fmt: skip
        return write_config(self.workdir / name, {**self.settings, "server": server})

    def start_milvus(self) -> MilvusProcess:
        milvus = MilvusProcess(self.workdir / "milvus", self.milvus_port)
        milvus.wait_ready()
        self.milvus_started = time.monotonic()
        return milvus

    def start_valkey(self) -> ValkeyProcess:
        valkey = ValkeyProcess(self.workdir / "valkey", self.valkey_port)
        valkey.wait_ready()
        return valkey

    def start_processor(self) -> ProcessorProcess:
        self.runs += 1
        processor = ProcessorProcess(
            self.config, self.grpc_port, self.workdir / f"processor-{self.runs}.log"
        )
        processor.wait_ready()
        processor.wait_memory_enabled(self.admin_port)
        return processor

    def signal_milvus(self, sig: int) -> None:
        os.killpg(self.milvus._process.proc.pid, sig)

    def worker_pid(self) -> int:
        pid = self.processor._process.proc.pid
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            if "spawn_main" in Path(f"/proc/{child}/cmdline").read_text():
                return int(child)
        raise LookupError("no extraction worker")

    async def read_metrics(self, http: aiohttp.ClientSession) -> None:
        """Each processor's counters (they restart with it: summed per run at the end)."""
        await self._read_metrics(http, self.admin_port, self.runs)
        if self.replica is not None:
            await self._read_metrics(http, self.replica_ports[1], 0)

    async def _read_metrics(self, http: aiohttp.ClientSession, port: int, run: int) -> None:
        try:
            async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
                text = await response.text()
        except aiohttp.ClientError:
            return
        seen: Counter[str] = Counter()
        for line in text.splitlines():
            if line.startswith(
                ("memory_turns_total{", "memory_extraction_dropped_total{",
                 "memory_turns_forgotten_total{", "memory_shared_state_errors_total{")
            ):  # fmt: skip
                name, value = line.rsplit(" ", 1)
                seen[name] = int(float(value))
        self.metrics[run] = seen

    def total(self, name: str) -> int:
        return sum(v for run in self.metrics.values() for k, v in run.items() if k.startswith(name))

    def stop(self) -> None:
        self.envoy.stop()
        self.processor.stop()
        if self.replica is not None:
            self.replica.stop()
        self.milvus.stop()
        self.valkey.stop()


class Traffic:
    def __init__(self, stack: Stack, chaos: Chaos, http: aiohttp.ClientSession) -> None:
        self.stack, self.chaos, self.http = stack, chaos, http
        self.sent: list[Sent] = []
        self.running = True
        self.statuses: Counter[int] = Counter()

    async def user(self, number: int) -> None:
        token = self.stack.identity.token(f"chaos-user-{number}")
        turn = 0
        while self.running:
            turn += 1
            marker = f"u{number}t{turn:04d}"
            sent = Sent(number, marker, time.monotonic())
            self.sent.append(sent)
            body = {
                "model": CHAT, "stream": turn % 3 == 0, "metadata": {"chaos_user": f"u{number}"},
                "memory_config": {"enabled": True},
                "messages": [{"role": "user",
                              "content": f"I keep marker {marker} in my notebook."}],
            }  # fmt: skip
            try:
                async with self.http.post(
                    f"{self.stack.url}/v1/chat/completions", data=orjson.dumps(body),
                    headers={"authorization": f"Bearer {token}",
                             "content-type": "application/json"},
                    timeout=aiohttp.ClientTimeout(total=60),
                ) as response:  # fmt: skip
                    await response.read()
                    sent.status = response.status
            except (aiohttp.ClientError, TimeoutError):
                sent.status = 599
            sent.ended = time.monotonic()
            self.statuses[sent.status] += 1
            await asyncio.sleep(CHAT_PERIOD_S)

    async def forget(self, number: int) -> None:
        """The user forgets everything (``DELETE /v1/memory?scope=user``)."""
        token = self.stack.identity.token(f"chaos-user-{number}")
        sent = time.monotonic()
        async with self.http.delete(
            f"{self.stack.url}/v1/memory?scope=user", headers={"authorization": f"Bearer {token}"}
        ) as response:  # fmt: skip
            assert response.status == 200, await response.text()
        self.chaos.forget = (sent, time.monotonic())

    async def memories(self, number: int) -> list[str]:
        """Everything the API lists for the user, page after page."""
        token = self.stack.identity.token(f"chaos-user-{number}")
        contents: list[str] = []
        cursor = ""
        while True:
            query = f"?limit=100&cursor={cursor}" if cursor else "?limit=100"
            async with self.http.get(
                f"{self.stack.url}/v1/memory{query}", headers={"authorization": f"Bearer {token}"}
            ) as response:  # fmt: skip
                page = orjson.loads(await response.read())
            contents += [m["content"] for m in page["data"]]
            cursor = page.get("next_cursor") or ""
            if not cursor:
                return contents

    async def api_checks(self) -> int:
        """Each user's memories, as the API lists and finds them: never another user's."""
        leaks = 0
        for number in range(USERS):
            token = self.stack.identity.token(f"chaos-user-{number}")
            headers = {"authorization": f"Bearer {token}"}
            for method, path, body in (
                ("GET", "/v1/memory?limit=100", None),
                ("POST", "/v1/memory/search", {"query": "marker notebook", "limit": 50,
                                               "threshold": -1}),
            ):  # fmt: skip
                async with self.http.request(
                    method, f"{self.stack.url}{path}", headers=headers,
                    data=orjson.dumps(body) if body else None,
                ) as response:  # fmt: skip
                    if response.status != 200:
                        continue
                    data = orjson.loads(await response.read())["data"]
                for memory in data:
                    leaks += sum(
                        1 for m in MARKER.finditer(memory["content"]) if int(m.group(1)) != number
                    )
        return leaks


async def phase(name: str, seconds: float, stack: Stack, http: aiohttp.ClientSession) -> None:
    log(name)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await stack.read_metrics(http)
        await asyncio.sleep(1)


async def recovery_after_milvus_restart(stack: Stack, http: aiohttp.ClientSession) -> float:
    """Kill Milvus after > 30 s up (the idle-connection path that never recovered), restart it,
    and time until a chat of a user with a memory gets it injected again."""
    up = time.monotonic() - stack.milvus_started
    if up < 35:
        await phase("waiting for Milvus to be up > 30 s", 35 - up, stack, http)
    log("Milvus kill -9")
    stack.signal_milvus(signal.SIGKILL)
    stack.milvus._process.stop(signal.SIGKILL, grace_s=0)
    await phase("Milvus down", 8, stack, http)
    restarted = time.monotonic()
    log("Milvus restart")
    stack.milvus = await asyncio.to_thread(stack.start_milvus)
    stack.milvus_ready_s = round(time.monotonic() - restarted, 1)
    log(f"Milvus answers again after {stack.milvus_ready_s} s")
    while time.monotonic() - restarted < 300:
        if await probe_injected(stack, http):
            return round(time.monotonic() - restarted, 1)
        await asyncio.sleep(0.5)
    return -1.0  # not back within 5 minutes


PROBE_MEMORY = "User keeps the spare key under the blue flowerpot"
LLM = MockLLM()


async def probe_injected(stack: Stack, http: aiohttp.ClientSession) -> bool:
    """Does a question of the probe user get the probe's memory injected?"""
    nonce = os.urandom(4).hex()
    body = orjson.dumps(
        {"model": CHAT, "metadata": {"chaos_user": "probe", "nonce": nonce},
         "messages": [{"role": "user", "content": "Where is my spare key?"}]}
    )  # fmt: skip
    token = stack.identity.token("chaos-probe")
    async with http.post(f"{stack.url}/v1/chat/completions", data=body,
                         headers={"authorization": f"Bearer {token}"}) as response:  # fmt: skip
        await response.read()
    asked = [r for r in LLM.for_model(CHAT) if r.json.get("metadata", {}).get("nonce") == nonce]
    return bool(asked) and any("flowerpot" in line for line in memory_lines(asked[-1].json))


async def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-chaos-"))
    chaos = Chaos()
    LLM.on_model(EXTRACTOR, chaos.extract)
    LLM.on_model(CHAT, chaos.chat)
    await LLM.start()
    log(f"starting Milvus, the processor and Envoy (logs in {workdir}) …")
    stack = await asyncio.to_thread(Stack, workdir, LLM)
    started = time.monotonic()
    expected: list[Sent] = []
    recovery = -1.0
    replica_kills = 0
    try:
        async with aiohttp.ClientSession() as http:
            token = stack.identity.token("chaos-probe")
            seed = orjson.dumps({"content": PROBE_MEMORY})
            headers = {"authorization": f"Bearer {token}"}
            async with http.post(f"{stack.url}/v1/memory", data=seed, headers=headers) as response:
                assert response.status == 201, await response.text()
            traffic = Traffic(stack, chaos, http)
            users = [asyncio.create_task(traffic.user(n)) for n in range(USERS)]
            await phase("steady traffic", 15, stack, http)

            log("Milvus SIGSTOP for 4 s")
            stack.signal_milvus(signal.SIGSTOP)
            await asyncio.sleep(4)
            stack.signal_milvus(signal.SIGCONT)
            await phase("Milvus resumed", 10, stack, http)

            for mode in ("slow", "garbage", "down"):
                chaos.extraction = mode
                await phase(f"extraction model {mode}", 15, stack, http)
            chaos.extraction = "ok"
            await phase("extraction model back", 5, stack, http)

            chaos.broken_answers = True
            await phase("huge and broken answers", 20, stack, http)
            chaos.broken_answers = False

            os.kill(stack.worker_pid(), signal.SIGKILL)
            await phase("worker killed", 10, stack, http)

            log("Valkey kill -9, restarted after 5 s")
            await asyncio.to_thread(stack.valkey.kill)
            await phase("Valkey down", 5, stack, http)
            stack.valkey = await asyncio.to_thread(stack.start_valkey)
            await phase("Valkey back", 10, stack, http)

            chaos.extraction = "slow"
            await phase("turns queue up behind a slow model", 6, stack, http)
            await stack.read_metrics(http)
            log("replica kill -9, not restarted")
            chaos.kills.append(time.monotonic())
            assert stack.replica is not None
            await asyncio.to_thread(stack.replica.kill)
            stack.replica = None
            replica_kills = 1
            chaos.extraction = "ok"
            await phase("one processor left: it claims the replica's turns", 10, stack, http)

            chaos.extraction = "slow"
            await phase("turns queue up behind a slow model", 10, stack, http)
            log(f"user {FORGETFUL} forgets everything, turns pending")
            await traffic.forget(FORGETFUL)
            await phase("turns queue up behind a slow model", 3, stack, http)
            await stack.read_metrics(http)
            log("processor SIGTERM with turns queued")
            await asyncio.to_thread(stack.processor.stop)
            chaos.extraction = "ok"
            stack.processor = await asyncio.to_thread(stack.start_processor)
            await phase("processor restarted", 10, stack, http)

            await stack.read_metrics(http)
            log("processor kill -9")
            chaos.kills.append(time.monotonic())
            await asyncio.to_thread(stack.processor.kill)
            stack.processor = await asyncio.to_thread(stack.start_processor)
            await phase("processor restarted", 10, stack, http)

            recovery = await recovery_after_milvus_restart(stack, http)
            log(f"memory back {recovery} s after the Milvus restart")
            await phase("steady traffic", 10, stack, http)

            traffic.running = False
            await asyncio.gather(*users)
            leaks_api = await traffic.api_checks()
            remembered = " ".join(await traffic.memories(FORGETFUL))
            forgotten = [s.marker for s in traffic.sent if said_before_forget(s, chaos)]
            expected = [s for s in traffic.sent if learnable(s, chaos)]
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and any(
                s.marker not in chaos.answered for s in expected
            ):
                await phase("waiting for the last turns to be learned", 2, stack, http)
            await stack.read_metrics(http)
    finally:
        await asyncio.to_thread(stack.stop)
        await LLM.stop()
    missing = [s.marker for s in expected if s.marker not in chaos.answered]
    dropped = stack.total("memory_extraction_dropped_total")
    failed = sum(n for status, n in traffic.statuses.items() if not 200 <= status < 300)
    result = {
        "requests": len(traffic.sent),
        "non_2xx_caused_by_memory": failed,
        "statuses": {str(k): v for k, v in sorted(traffic.statuses.items())},
        "turns_captured": stack.total('memory_turns_total{outcome="captured"}'),
        "turns_expected": len(expected),
        "turns_lost": len(missing) + dropped,
        "turns_lost_markers": missing[:20],
        "turns_dropped_by_processor": dropped,
        "turns_not_learned_too_large": stack.total('memory_turns_total{outcome="too_large"}'),
        "memory_recovery_seconds_after_milvus_restart": recovery,
        "milvus_ready_seconds_after_restart": stack.milvus_ready_s,
        "cross_user_leaks": chaos.leaks + leaks_api,
        "forgotten_turns_learned": sum(1 for m in forgotten if m in remembered),
        "replica_kills": replica_kills,
        "forgotten_turns_said": len(forgotten),
        "turns_cancelled_by_the_forget": stack.total("memory_turns_forgotten_total"),
        "valkey_kills": 1,
        "shared_state_errors": stack.total("memory_shared_state_errors_total"),
        "seconds": round(time.monotonic() - started),
        "logs": str(workdir),
    }  # fmt: skip
    print(json.dumps(result))
    return 0


def said_before_forget(sent: Sent, chaos: Chaos) -> bool:
    return sent.user == FORGETFUL and sent.ended < chaos.forget[0]


def learnable(sent: Sent, chaos: Chaos) -> bool:
    """A chat whose turn the processor must learn: answered normally with 200, its request read
    by the processor, not cut by the processor's own kill -9, and not forgotten by its user (a
    chat that overlapped the forget may go either way)."""
    cut = any(sent.started - 2 <= kill <= sent.ended + 1 for kill in chaos.kills)
    forgotten = sent.user == FORGETFUL and sent.started <= chaos.forget[1]
    return (
        sent.status == 200
        and sent.marker in chaos.processed
        and sent.marker not in chaos.broken
        and not cut
        and not forgotten
    )


if __name__ == "__main__":
    sys.exit(run_harness(main))
