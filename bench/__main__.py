"""`make bench`: latency and CPU that memory adds, measured side by side in one run.

One Envoy has two listeners to the same stand-in LLM: `direct` (no ext_proc) and `memory`
(ext_proc → memory-extproc → Milvus standalone holding 100,000 memories of 1,000 users).
Eight concurrent clients send, interleaved, three kinds of requests:
  direct       Envoy → LLM, the baseline;
  passthrough  through the processor, memory skipped (a greeting);
  retrieval    through the processor, a personal question: embed, search, inject.
Added latency = percentile(kind) - percentile(direct). CPU per request is measured per kind in
separate blocks from /proc. The last line printed is one JSON object with the results.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import numpy as np
from pymilvus import MilvusClient

from bench.dataset import Questions, facts_and_questions
from memory_extproc.devstack.envoy import EnvoyProcess, Upstream, render
from memory_extproc.devstack.milvus import MilvusProcess
from memory_extproc.devstack.ports import free_port
from memory_extproc.devstack.process import ManagedProcess
from memory_extproc.devstack.processor import ProcessorProcess, write_config
from memory_extproc.devstack.tokens import DevIdentity
from memory_extproc.embedding import OnnxEmbedder, model_files
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory

USERS = int(os.environ.get("BENCH_USERS", "1000"))
PER_USER = int(os.environ.get("BENCH_MEMORIES_PER_USER", "100"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "8"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "1500"))  # requests of each kind, interleaved
CPU_BLOCK = int(os.environ.get("BENCH_CPU_BLOCK", "600"))  # requests per kind for CPU
RATE = float(os.environ.get("BENCH_RATE", "100"))  # requests/s, all kinds together
COLLECTION = "bench_memories"
KINDS = ("direct", "passthrough", "retrieval")


@dataclass
class World:
    users: list[str]
    facts: list[tuple[str, str]]
    owned: dict[str, list[int]]
    tokens: dict[str, str]
    questions: Questions
    rng: random.Random

    def request(self, kind: str) -> tuple[str, dict[str, str], bytes]:
        """(listener, headers, body) for one request of a kind."""
        user = self.rng.choice(self.users)
        headers = {
            "authorization": f"Bearer {self.tokens[user]}",
            "content-type": "application/json",
        }
        if kind == "retrieval":
            _, question = self.facts[self.rng.choice(self.owned[user])]
            text = self.questions.ask(question)
        else:
            text = self.rng.choice(["Hi!", "Hello", "Thanks!", "hey there", "ok"])
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]})
        return ("direct" if kind == "direct" else "memory"), headers, body.encode()


@dataclass
class Samples:
    latency: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    injected: int = 0
    retrievals: int = 0


def session_cpu_seconds(leader: int) -> float:
    """CPU (user + system) of every process in the session led by ``leader``."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == leader:  # field 6 of stat: session id
            total += int(fields[11]) + int(fields[12])
    return total / ticks


async def load_memories(uri: str, world: World) -> None:
    print(f"embedding {len(world.facts)} distinct facts …", flush=True)
    embedder = OnnxEmbedder(model_files(), threads=2)
    texts = [fact for fact, _ in world.facts]
    vectors = np.concatenate([embedder.embed(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    store = MilvusStore(uri, COLLECTION, 384)
    await store.start()
    if not await store.wait_available(120):
        sys.exit("Milvus did not come up")
    print(f"inserting {USERS * PER_USER:,} memories for {USERS:,} users …", flush=True)
    batch: list[tuple[Memory, np.ndarray]] = []
    for user in world.users:
        for index in world.owned[user]:
            batch.append((Memory.new(user, texts[index], source="bench"), vectors[index]))
            if len(batch) == 5000:
                await store.store_many(batch, wait_visible=False)
                batch = []
    await store.store_many(batch)
    await store.close()
    client = MilvusClient(uri=uri)
    client.flush(COLLECTION)
    started = time.monotonic()
    while time.monotonic() - started < 600:  # wait for the HNSW index on every sealed segment
        info = client.describe_index(COLLECTION, "embedding")
        if (
            info.get("pending_index_rows", 0) == 0
            and info.get("indexed_rows", 0) >= USERS * PER_USER
        ):
            break
        await asyncio.sleep(1)
    client.close()


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
            if kind == "retrieval":
                samples.retrievals += 1
                samples.injected += b"I was given no memories" not in answer

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


async def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-bench-"))
    # The loaded Milvus is kept between runs (it takes a minute to build): .run/bench/…
    data_dir = Path(".run/bench") / f"milvus-{USERS}x{PER_USER}"
    loaded = data_dir / "LOADED"
    rng = random.Random(20261121)
    facts = facts_and_questions()
    users = [f"bench-user-{i:04d}" for i in range(USERS)]
    identity = DevIdentity(workdir / "identity")
    world = World(
        users=users,
        facts=facts,
        owned={u: rng.sample(range(len(facts)), PER_USER) for u in users},
        tokens={u: identity.token(u) for u in users},
        questions=Questions(rng),
        rng=rng,
    )
    milvus = MilvusProcess(data_dir, free_port())
    parts: list = [milvus]
    try:
        print(f"starting Milvus standalone (data in {data_dir}) …", flush=True)
        await asyncio.to_thread(milvus.wait_ready)
        if not loaded.exists():
            await load_memories(milvus.uri, world)
            loaded.write_text(f"{USERS} users x {PER_USER} memories\n")

        llm_port, grpc_port, admin_port = free_port(), free_port(), free_port()
        llm = ManagedProcess(
            "mock-llm",
            [sys.executable, "-m", "memory_extproc.devstack", "mock-llm", "--port", str(llm_port)],
            workdir / "mock-llm.log",
        )
        parts.append(llm)
        config = write_config(
            workdir / "config.yaml",
            {
                "memory": {
                    "milvus": {"address": f"127.0.0.1:{milvus.port}", "collection": COLLECTION}
                },
                "server": {
                    "grpc_port": grpc_port,
                    "admin_port": admin_port,
                    "log_level": "WARNING",
                },
            },
        )
        processor = ProcessorProcess(config, grpc_port, workdir / "processor.log")
        parts.append(processor)
        await asyncio.to_thread(processor.wait_ready)
        await asyncio.to_thread(processor.wait_memory_enabled, admin_port)
        memory_port, direct_port = free_port(), free_port()
        envoy = EnvoyProcess(
            render(
                listen_port=memory_port,
                admin_port=free_port(),
                processor_ports=[grpc_port],
                upstream=Upstream("127.0.0.1", llm_port),
                jwks_path=identity.jwks_path,
                direct_port=direct_port,
            ),
            workdir / "envoy",
        )
        parts.append(envoy)
        await asyncio.to_thread(envoy.wait_ready)
        urls = {
            "memory": f"http://127.0.0.1:{memory_port}/v1/chat/completions",
            "direct": f"http://127.0.0.1:{direct_port}/v1/chat/completions",
        }
        connector = aiohttp.TCPConnector(limit=CONCURRENCY * 2)
        async with aiohttp.ClientSession(connector=connector) as http:
            print("warming up …", flush=True)
            await drive(http, urls, world, list(KINDS) * 100, Samples())

            print(f"latency: {ROUNDS} of each kind at {RATE:.0f}/s, {CONCURRENCY} clients …")
            plan = [kind for _ in range(ROUNDS) for kind in rng.sample(KINDS, 3)]
            samples = Samples()
            await drive(http, urls, world, plan, samples, rate=RATE)

            print(f"saturation: {CONCURRENCY} clients, closed loop …", flush=True)
            saturated = Samples()
            elapsed = await drive(http, urls, world, plan[: 3 * CPU_BLOCK], saturated)
            throughput = 3 * CPU_BLOCK / elapsed

            cpu: dict[str, dict[str, float]] = {}
            leaders = {"processor": processor._process.proc.pid, "envoy": envoy._process.proc.pid,
                       "milvus": milvus._process.proc.pid, "llm": llm.proc.pid}  # fmt: skip
            for kind in KINDS:
                before = {name: session_cpu_seconds(pid) for name, pid in leaders.items()}
                await drive(http, urls, world, [kind] * CPU_BLOCK, Samples())
                cpu[kind] = {
                    name: (session_cpu_seconds(pid) - before[name]) / CPU_BLOCK * 1000
                    for name, pid in leaders.items()
                }
    finally:
        for part in reversed(parts):
            part.stop()
    report(samples, saturated, throughput, cpu, workdir)


def report(
    samples: Samples,
    saturated: Samples,
    throughput: float,
    cpu: dict[str, dict[str, float]],
    workdir: Path,
) -> None:
    lat, sat = samples.latency, saturated.latency
    p = {kind: {q: percentile(lat[kind], q) for q in (50, 90, 99)} for kind in KINDS}
    print(f"\nAt {RATE:.0f} requests/s ({CONCURRENCY} clients), then CPU per request by kind:")
    print(f"{'kind':<12} {'n':>5} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} | "
          f"{'processor':>9} {'envoy':>6} {'milvus':>6} {'llm':>6}   saturated p50")  # fmt: skip
    for kind in KINDS:
        c = cpu[kind]
        print(f"{kind:<12} {len(lat[kind]):>5} {p[kind][50]:>7.2f} {p[kind][90]:>7.2f} "
              f"{p[kind][99]:>7.2f} | {c['processor']:>9.2f} {c['envoy']:>6.2f} "
              f"{c['milvus']:>6.2f} {c['llm']:>6.2f}   "
              f"{percentile(sat[kind], 50):>9.2f}")  # fmt: skip
    print(f"saturation ({CONCURRENCY} clients, closed loop): {throughput:.0f} requests/s")
    result = {
        "passthrough_added_p50_ms": round(p["passthrough"][50] - p["direct"][50], 2),
        "passthrough_added_p99_ms": round(p["passthrough"][99] - p["direct"][99], 2),
        "retrieval_added_p50_ms": round(p["retrieval"][50] - p["direct"][50], 2),
        "retrieval_added_p99_ms": round(p["retrieval"][99] - p["direct"][99], 2),
        "direct_p50_ms": round(p["direct"][50], 2),
        "direct_p99_ms": round(p["direct"][99], 2),
        "passthrough_processor_cpu_ms": round(cpu["passthrough"]["processor"], 2),
        "retrieval_processor_cpu_ms": round(cpu["retrieval"]["processor"], 2),
        "retrieval_milvus_cpu_ms": round(cpu["retrieval"]["milvus"] - cpu["direct"]["milvus"], 2),
        "retrieval_injected_share": round(samples.injected / max(1, samples.retrievals), 3),
        "saturated_requests_per_s": round(throughput),
        "saturated_retrieval_added_p50_ms": round(
            percentile(sat["retrieval"], 50) - percentile(sat["direct"], 50), 2
        ),
        "rate_per_s": RATE,
        "memories": USERS * PER_USER,
        "users": USERS,
        "concurrency": CONCURRENCY,
        "requests_per_kind": ROUNDS,
    }
    results = Path("bench/results")
    results.mkdir(parents=True, exist_ok=True)
    (results / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(
        json.dumps(result, indent=2)
    )
    print(f"(logs in {workdir})")
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
