"""What `make bench` and `make scale` share: the simulated users and their requests, the
open- and closed-loop driver, and CPU read from /proc."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
from pymilvus import MilvusClient

from bench.dataset import OPEN_REQUESTS, Questions, said
from devstack.gateway import Gateway
from devstack.local_llm import LocalLlmProcess
from devstack.ports import free_port
from devstack.process import ManagedProcess
from devstack.tokens import DevIdentity
from memory_extproc import config as config_module
from memory_extproc.clock import now_ms
from memory_extproc.compression.state import chunk, fingerprint, opening, word_ids
from memory_extproc.embedding.multilingual import PASSAGE
from memory_extproc.embedding.spaces import carried, memory_vector
from memory_extproc.learning.service import RUN_MESSAGES
from memory_extproc.learning.shared import Conversations, SharedConversations
from memory_extproc.learning.shared_valkey import ValkeyConversations
from memory_extproc.wiring import build_embedder, build_multilingual
from memory_extproc.words import in_memory_voice, terms

CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "8"))
# the kinds that go through a processor under test, today's or the baseline's
SIDED = ("passthrough", "learning", "retrieval", "retrieval_zh", "retrieval_es", "retrieval_de",
         "personalised", "conversation", "compressed")  # fmt: skip
KINDS = ("direct", "null", *SIDED)
OURS = ("direct", *SIDED)  # through our stack (null: its own)
ASKING = ("retrieval", "retrieval_zh", "retrieval_es", "retrieval_de", "personalised",
          "conversation", "compressed")  # fmt: skip
LANGUAGE = {"retrieval_zh": "zh", "retrieval_es": "es", "retrieval_de": "de"}
# `BENCH_BASELINE`: the same kinds, through the baseline revision's processor and Envoy
BASE = "baseline_"


def with_baseline(kinds: tuple[str, ...]) -> tuple[str, ...]:
    """``kinds`` and, for those through a processor under test, the baseline's beside them."""
    return (*kinds, *(BASE + kind for kind in kinds if kind in SIDED))


EXTRACTOR = "bench-extractor"


def embed_facts(facts: list[str]) -> np.ndarray:
    """The facts' vectors as the service stores them: both models, in the memory voice (every
    core each run: a data set is built once, with nothing else running)."""
    threads = {"MEMORY_EXTPROC__MEMORY__EMBEDDING__THREADS": str(os.cpu_count() or 1)}
    config = config_module.load(None, {**os.environ, **threads})
    english, other = build_embedder(config), build_multilingual(config)
    voiced = [in_memory_voice(fact) for fact in facts]
    rows = []
    for i in range(0, len(voiced), 64):
        batch = voiced[i : i + 64]
        others = other.embed([PASSAGE + text for text in batch])
        rows += map(memory_vector, english.embed(batch), others)
    return np.stack(rows).astype(np.float32)


async def seed_conversations(world: World, spools: list[Path], valkey_url: str = "") -> None:
    """What the worker keeps of each long conversation to compress it (vectors and word ids in
    runs of up to 64 messages, the running state), written where the processors read it, as
    its worker writes it: through the product's own store."""
    embedder = build_embedder(config_module.load(None))
    stores: list[Conversations] = [SharedConversations(spool) for spool in spools]
    if valkey_url:
        stores.append(ValkeyConversations(valkey_url, 5.0))
    at_ms = now_ms()
    for user, conversation in world.conversations.items():
        said = [(m["role"], m["content"]) for m in conversation.messages]
        texts = [text for _, text in said]
        vectors = [carried(v) for v in embedder.embed(texts)]
        words = [word_ids(terms(text)) for text in texts]
        key = opening(user, "", said)
        for first in range(0, len(texts), RUN_MESSAGES):
            end = min(first + RUN_MESSAGES, len(texts))
            state = STATE if end == len(texts) else ""
            kept = chunk(first, at_ms, vectors[first:end], words[first:end],
                         fingerprint(texts[end - 1]), state)  # fmt: skip
            for store in stores:
                store.save_chunk(user, "", key, first, kept.encode())
    for store in stores:
        await store.aclose()


def wait_indexed(
    client: MilvusClient,
    collection: str,
    rows: int,
    index: str = "embedding",
    timeout_s: float = 3600,
) -> None:
    """Until ``index`` covers ``rows`` rows, every sealed segment included."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        info = client.describe_index(collection, index)
        if info.get("pending_index_rows", 0) == 0 and info.get("indexed_rows", 0) >= rows:
            return
        time.sleep(1)
    raise TimeoutError(f"index {index} not built on {rows} rows in {timeout_s} s")


@dataclass(frozen=True)
class Conversation:
    """A long conversation a user had (bench kinds "conversation" and "compressed"): what the
    worker keeps of it to compress it is written before the run (seed_conversations)."""

    messages: list[dict[str, str]]
    questions: list[str]  # about what the user said in its first half: old turns, quoted


CONVERSATION_TURNS = 80  # user turns, each answered: 160 messages (~6,000 tokens)
CONVERSATION_OWNERS = 32  # users who had one (embedded before the run: ~5 s)
ANSWER = ("Thanks, that helps ({k}). I will keep it in mind for what we plan next; tell me more "
          "about what you would like to do with it, and I can suggest a few options, with the "
          "reasons for each and what to watch out for.")  # fmt: skip
# the running state the worker's model writes; here a fixed one of the size it is kept to
STATE = " ".join(["The user is planning the next months and shares their situation."] * 12)


@dataclass
class World:
    users: list[str]
    facts: list[tuple[str, str]]
    owned: dict[str, list[int]]
    tokens: dict[str, str]
    questions: Questions
    rng: random.Random
    identity: DevIdentity
    conversations: dict[str, Conversation] = field(default_factory=dict)

    def converse(self) -> None:
        """A long conversation for each of the first CONVERSATION_OWNERS users, from their own
        facts."""
        for user in self.users[:CONVERSATION_OWNERS]:
            owned = self.rng.sample(self.owned[user], len(self.owned[user]))
            told = (owned * CONVERSATION_TURNS)[:CONVERSATION_TURNS]  # a short run's: said again
            messages = []
            for k, index in enumerate(told):
                messages += [{"role": "user", "content": said(self.facts[index][0], k % 100)},
                             {"role": "assistant", "content": ANSWER.format(k=k)}]  # fmt: skip
            questions = [self.facts[index][1] for index in told[: len(told) // 2]]
            self.conversations[user] = Conversation(messages, questions)

    def request(self, kind: str) -> tuple[str, dict[str, str], bytes]:
        """(listener, headers, body) for one request of a kind."""
        if kind.startswith(BASE):  # the same request, to the baseline's listener
            _, headers, body = self.request(kind.removeprefix(BASE))
            return "baseline", headers, body
        user = self.rng.choice(self.users)
        body: dict[str, object] = {"model": "m"}
        history: list[dict[str, str]] = []
        if kind in ("conversation", "compressed"):  # a question about its start, at its end
            user = self.rng.choice(list(self.conversations))
            history = self.conversations[user].messages
            text = self.questions.ask(self.rng.choice(self.conversations[user].questions))
            body["memory_config"] = {"auto_store": False, "compress": kind == "compressed"}
        elif kind == "retrieval" or kind in LANGUAGE:
            _, question = self.facts[self.rng.choice(self.owned[user])]
            text = self.questions.ask(question, language=LANGUAGE.get(kind, "en"))
            body["memory_config"] = {"auto_store": False}  # the request path alone
        elif kind == "personalised":  # an open request: the preferences near it join the search
            text = self.questions.ask(self.rng.choice(OPEN_REQUESTS))
            body["memory_config"] = {"auto_store": False}
        elif kind in ("statement", "statement_unlearned"):  # writers: a separate user space
            user = f"bench-writer-{self.rng.randrange(200):03d}"
            if kind == "statement_unlearned":  # same traffic, nothing for the pool
                body["memory_config"] = {"auto_store": False}
            earlier: list[dict[str, str]] = []
            for _ in range(9):  # the 10th turn of a conversation: extraction is due
                earlier += [{"role": "user", "content": self._statement()},
                            {"role": "assistant", "content": "Noted."}]  # fmt: skip
            body["messages"] = [*earlier, {"role": "user", "content": self._statement()}]
            headers = {"authorization": f"Bearer {self.token(user)}"}
            return "memory", headers, json.dumps(body).encode()
        else:
            text = self.rng.choice(["Hi!", "Hello", "Thanks!", "hey there", "ok"])
            if kind in ("passthrough", "null"):
                body["memory_config"] = {"auto_store": False}
        body["messages"] = [*history, {"role": "user", "content": text}]
        headers = {
            "authorization": f"Bearer {self.token(user)}",
            "content-type": "application/json",
        }
        listener = kind if kind in ("direct", "null") else "memory"
        return listener, headers, json.dumps(body).encode()

    def _statement(self) -> str:
        fact, _ = self.rng.choice(self.facts)
        return f"{fact}, by the way ({self.rng.randrange(10**9)})."

    def token(self, user: str) -> str:
        if user not in self.tokens:
            self.tokens[user] = self.identity.token(user)
        return self.tokens[user]


@dataclass
class Samples:
    latency: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    asked: Counter[str] = field(default_factory=Counter)  # retrievals, personalised requests
    injected: Counter[str] = field(default_factory=Counter)  # … that were given memories
    compressed: Counter[str] = field(default_factory=Counter)  # … that were sent compressed


def session_stats(leader: int) -> Iterator[tuple[Path, list[str]]]:
    """(/proc entry, stat fields after the name) of every process in the session of ``leader``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == leader:  # field 6 of stat: session id
            yield entry, fields


def session_cpu_seconds(leader: int) -> float:
    """CPU (user + system) of every process in the session led by ``leader``."""
    ticks = sum(int(f[11]) + int(f[12]) for _, f in session_stats(leader))
    return ticks / os.sysconf("SC_CLK_TCK")


def session_rss_mb(leader: int) -> float:
    """Resident memory of every process in the session led by ``leader``."""
    kib = 0
    for entry, _ in session_stats(leader):
        with contextlib.suppress(OSError):
            status = (entry / "status").read_text()
            kib += sum(int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("VmRSS:"))  # fmt: skip
    return kib / 1024


def process_cpu_seconds(pid: int) -> float:
    """CPU (user + system) of one process, without its children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(
    http: aiohttp.ClientSession,
    urls: dict[str, str],
    world: World,
    plan: list[str],
    samples: Samples,
    rate: float | None = None,
) -> float:
    """Send ``plan`` over CONCURRENCY connections; returns the elapsed seconds.

    With ``rate``, request i is due at start + i/rate (open loop) and its latency counts from
    when it was due, so a stall is not hidden by the requests it held back. Without, each
    client sends its next request as soon as the last one is answered (closed loop: saturation).
    """
    queue = list(reversed(list(enumerate(plan))))
    start = time.perf_counter()

    async def worker() -> None:
        while queue:
            index, kind = queue.pop()
            listener, headers, body = world.request(kind)
            due = start + index / rate if rate else time.perf_counter()
            if (wait := due - time.perf_counter()) > 0:
                await asyncio.sleep(wait)
            async with http.post(urls[listener], data=body, headers=headers) as response:
                answer = await response.read()
            elapsed = time.perf_counter() - due
            if response.status != 200:
                raise RuntimeError(f"{kind}: HTTP {response.status} {answer[:200]!r}")
            samples.latency[kind].append(elapsed)
            if kind.removeprefix(BASE) in ASKING:
                samples.asked[kind] += 1
                samples.injected[kind] += b"I was given no memories" not in answer
                receipt = response.headers.get("x-memory-receipt", "")
                samples.compressed[kind] += "compression=compressed" in receipt

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


@dataclass
class Stack:
    """The stand-in LLM (a process of its own: its CPU is read apart) and a gateway in front of
    it with a `memory` and a `direct` listener."""

    llm: ManagedProcess
    llm_port: int
    memory: dict[str, Any]  # the gateway's memory settings, before its own spool_dir
    gateway: Gateway
    urls: dict[str, str]


async def start_stack(
    workdir: Path,
    milvus_port: int,
    collection: str,
    identity: DevIdentity,
    parts: list[Any],
    *,
    local: bool = False,
    otlp_port: int | None = None,
    valkey_url: str = "",
) -> Stack:
    """Start the stack in front of a running Milvus; every part joins ``parts`` (to stop).
    ``otlp_port``: traces on, Envoy and the processor exporting to that collector.
    ``valkey_url``: captured turns and conversation state kept there, as replicas keep them."""
    if otlp_port is not None:  # read by the processors started from here on
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{otlp_port}"
        os.environ["OTEL_EXPORTER_OTLP_INSECURE"] = "true"
    llm_port = free_port()
    llm = ManagedProcess(
        "mock-llm",
        [sys.executable, "-m", "devstack", "mock-llm", "--port", str(llm_port),
         "--extractor", EXTRACTOR],
        workdir / "mock-llm.log",
    )  # fmt: skip
    parts.append(llm)
    extractor: dict[str, Any] = {
        "model_role": "memory_extraction",
        "llm_endpoint": {"address": "127.0.0.1", "port": llm_port},
        "llm_model_name": EXTRACTOR,
    }
    if local:
        model = LocalLlmProcess(free_port(), workdir / "local-llm.log")
        parts.append(model)
        await asyncio.to_thread(model.wait_ready)
        extractor = model.endpoint()
    memory: dict[str, Any] = {
        "milvus": {"address": f"127.0.0.1:{milvus_port}", "collection": collection},
        "external_models": [extractor],
        # no idle flushes mid-run: an idle phase must stay idle
        "extraction": {"queue_size": 100_000, "idle_flush_seconds": 3600},
    }
    if valkey_url:
        memory["valkey"] = {"url": valkey_url}
    otlp = ("127.0.0.1", otlp_port) if otlp_port is not None else None
    gateway = Gateway(workdir, memory, llm_port, identity, otlp=otlp, direct=True)
    parts.append(gateway)
    await asyncio.to_thread(gateway.wait_ready)
    urls = {"memory": gateway.chat_url, "direct": gateway.direct_url}
    return Stack(llm, llm_port, memory, gateway, urls)
