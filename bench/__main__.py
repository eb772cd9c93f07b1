"""`make bench`: latency and CPU that memory adds, measured side by side in one run.

One Envoy has two listeners to the same stand-in LLM: `direct` (no ext_proc) and `memory`
(ext_proc → memory-extproc → Milvus standalone holding 100,000 memories of 1,000 users); a second
Envoy sends its ext_proc streams to a processor that does no work (bench/null_processor.py).
Eight client connections send, interleaved, seven kinds of requests:
  direct       Envoy → LLM, the baseline;
  null         the greeting below through the processor that does no work: the floor of any
               ext_proc exchange with Python gRPC on this machine;
  passthrough  through the processor, memory skipped (a greeting, auto_store off);
  learning     the same greeting, but the answer is read and handed to the extraction pool;
  retrieval    a personal question: embed, search, inject (auto_store off: request path);
  retrieval_zh the same questions in Chinese, against the same English memories: read by
               multilingual-e5 instead of MiniLM;
  personalised an open request ("recommend a book for my holiday"): the preferences near it
               join the search.
Added latency = percentile(kind) - percentile(direct); the response phase adds
learning - passthrough. Then retrieval alone, idle and while the pool is kept busy extracting
(statements from other users), gives retrieval_p99_busy_over_idle. CPU per request is measured
per kind in separate blocks from /proc, in rounds alternating with the floor's own measurement
(so a slower minute on a shared machine weighs on both). The last line printed is one JSON
object.

`BENCH_EXTRACTOR=local` learns with the real local model (llama.cpp, nice 19, 2 threads) instead
of the synthetic extractor: the idle and busy phases then run first, and the busy phase leaves
the model a backlog of hours, so every later phase (latency, saturation, CPU) runs with it
extracting in the background.

`BENCH_VALKEY=1` keeps captured turns and conversation state in a Valkey of its own, as replicas
do (`memory.valkey.url`), instead of `spool_dir`: the response phase and the learning CPU then
include the stream's appends and reads.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import numpy as np
from pymilvus import MilvusClient

from bench.dataset import Questions, facts_and_questions
from bench.harness import (
    CONCURRENCY,
    KINDS,
    OURS,
    Samples,
    World,
    drive,
    embed_facts,
    percentile,
    process_cpu_seconds,
    session_cpu_seconds,
    start_stack,
    wait_indexed,
)
from devstack.envoy import EnvoyProcess, Upstream, render
from devstack.milvus import MilvusProcess
from devstack.otlp import OtlpReceiver
from devstack.ports import free_port
from devstack.process import ManagedProcess, run_harness
from devstack.processor import ProcessorProcess, serving, write_config
from devstack.tokens import DevIdentity
from devstack.valkey import ValkeyProcess
from memory_extproc import config as config_module
from memory_extproc.clock import now_ms
from memory_extproc.embedding.spaces import DIMENSION, english_query
from memory_extproc.memories.facts import kind_of
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.store import filters
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.milvus_schema import SCHEMA_TAG, SEARCH_FIELDS
from memory_extproc.store.model import Memory
from memory_extproc.wiring import build_embedder
from memory_extproc.words import in_memory_voice

USERS = int(os.environ.get("BENCH_USERS", "1000"))
PER_USER = int(os.environ.get("BENCH_MEMORIES_PER_USER", "100"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "1500"))  # requests of each kind, interleaved
CPU_BLOCK = int(os.environ.get("BENCH_CPU_BLOCK", "600"))  # requests per kind for CPU
CPU_ROUNDS = max(1, int(os.environ.get("BENCH_CPU_ROUNDS", "3")))  # CPU blocks split in rounds
SCALE_BLOCK = int(os.environ.get("BENCH_SCALE_BLOCK", "2000"))  # retrievals per scaling step
RATE = float(os.environ.get("BENCH_RATE", "100"))  # requests/s, all kinds together
# Retrievals alone, in the contention phases: a quarter of RATE (25/s at the default), the share
# of one kind when there were four; kept as more kinds joined, so runs stay comparable
ALONE_SHARE = 0.25
# retrieval requests in each of the idle and busy phases (p99 needs many)
CONTENTION_ROUNDS = int(os.environ.get("BENCH_CONTENTION_ROUNDS", "1500"))
# embeddings and searches alone, for the floor
FLOOR_ROUNDS = max(1, int(os.environ.get("BENCH_FLOOR_ROUNDS", "500")))
COLLECTION = "bench_memories"
LOCAL = os.environ.get("BENCH_EXTRACTOR", "synthetic") == "local"
TRACING = os.environ.get("BENCH_TRACING") == "1"  # every request traced, to a local collector
# captured turns and conversation state in Valkey, as replicas keep them (not in spool_dir)
VALKEY = os.environ.get("BENCH_VALKEY") == "1"
# conversations/s, each at its 10th turn: one extraction job of 10 facts, keeping the pool busy
BUSY_RATE = float(os.environ.get("BENCH_BUSY_RATE", "2"))


async def load_memories(uri: str, world: World) -> None:
    print(f"embedding {len(world.facts)} distinct facts …", flush=True)
    texts = [fact for fact, _ in world.facts]
    vectors = embed_facts(texts)
    store = MilvusStore(uri, COLLECTION, DIMENSION)
    await store.start()
    if not await store.wait_available(120):
        sys.exit("Milvus did not come up")
    print(f"inserting {USERS * PER_USER:,} memories for {USERS:,} users …", flush=True)
    batch: list[tuple[Memory, np.ndarray]] = []
    for user in world.users:
        for index in world.owned[user]:
            memory = Memory.new(user, texts[index], kind_of(texts[index]), source="bench")
            batch.append((memory, vectors[index]))
            if len(batch) == 5000:
                await store.store_many(batch, wait_visible=False)
                batch = []
    await store.store_many(batch)
    await store.close()
    client = MilvusClient(uri=uri)
    client.flush(COLLECTION)
    await asyncio.to_thread(wait_indexed, client, COLLECTION, USERS * PER_USER, timeout_s=600)
    client.close()


class FloorProbe:
    """What a retrieval cannot cost the processor less than, measured here on the same machine
    in the same run: the embedding alone (the service's int8 model, warm, one new question at a
    time, read in the memory voice) and the client side of the processor's Milvus search alone
    (pymilvus' synchronous client, the cheaper of its two: the processor's filter, limit, fields
    and ef). The third part, what any request costs (the ext_proc exchange), is the
    passthrough's processor CPU; the floor is the sum."""

    def __init__(self, world: World, uri: str) -> None:
        self._world = world
        self._embedder = build_embedder(config_module.load(None))
        self._client = MilvusClient(uri=uri)
        ranking = RetrievalPolicy().ranking
        self._search = {
            "limit": ranking.candidate_limit(RetrievalPolicy().limit),
            "output_fields": SEARCH_FIELDS,
            "search_params": {"metric_type": "IP"},
            "consistency_level": "Eventually",
        }
        self.measure(20)  # warm

    def measure(self, rounds: int) -> dict[str, float]:
        world = self._world
        asked = []
        for _ in range(rounds):
            user = world.rng.choice(world.users)
            _, question = world.facts[world.rng.choice(world.owned[user])]
            asked.append((user, in_memory_voice(world.questions.ask(question))))
        started = time.process_time()
        vectors = [english_query(self._embedder.embed([text])[0]) for _, text in asked]
        embed_ms = (time.process_time() - started) / rounds * 1000
        started = time.process_time()
        for (user, _), vector in zip(asked, vectors, strict=True):
            self._client.search(COLLECTION, data=[vector.tolist()],
                                filter=filters.user_scope(user, alive_at=now_ms()),
                                **self._search)  # fmt: skip
        search_ms = (time.process_time() - started) / rounds * 1000
        return {"embedding": embed_ms, "search_client": search_ms}

    def close(self) -> None:
        self._client.close()


async def cpu_by_kind(
    http: aiohttp.ClientSession,
    urls: dict[str, str],
    world: World,
    leaders: dict[str, int],
    requests: int,
) -> dict[str, dict[str, float]]:
    """CPU ms per request of each kind, in one closed-loop block per kind, from /proc: each
    process with its children (the session), and the processor alone (without its worker,
    which may be learning meanwhile)."""
    cpu: dict[str, dict[str, float]] = {}
    main = leaders["processor"]
    for kind in KINDS:
        before = {name: session_cpu_seconds(pid) for name, pid in leaders.items()}
        alone = process_cpu_seconds(main)
        await drive(http, urls, world, [kind] * requests, Samples())
        cpu[kind] = {
            name: (session_cpu_seconds(pid) - before[name]) / requests * 1000
            for name, pid in leaders.items()
        }
        cpu[kind]["processor_alone"] = (process_cpu_seconds(main) - alone) / requests * 1000
    return cpu


async def build_dataset(folder: Path, world: World) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    milvus = MilvusProcess(folder, free_port())
    try:
        print(f"building the data set in {folder} (once) …", flush=True)
        await asyncio.to_thread(milvus.wait_ready)
        await load_memories(milvus.uri, world)
    finally:
        milvus.stop()
    (folder / "LOADED").write_text(f"{USERS} users x {PER_USER} memories\n")


async def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-bench-"))
    # The loaded Milvus is kept between runs (it takes a minute to build): .run/bench/…; each run
    # works on a copy, so what one run writes (and deletes) never changes the next one's data.
    # Named by the schema that made it: one kept from an older release is not opened.
    schema = SCHEMA_TAG.rsplit(" ", 1)[-1]
    pristine = Path(".run/bench") / f"milvus-{USERS}x{PER_USER}-int8-voiced-flat-typed-{schema}"
    data_dir = workdir / "milvus"
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
        identity=identity,
    )
    if not (pristine / "LOADED").exists():
        await build_dataset(pristine, world)
    shutil.copytree(pristine, data_dir, ignore=shutil.ignore_patterns("*.log"))
    milvus = MilvusProcess(data_dir, free_port())
    parts: list = [milvus]
    collector = OtlpReceiver() if TRACING else None
    try:
        print(f"starting Milvus standalone on a copy of {pristine} …", flush=True)
        await asyncio.to_thread(milvus.wait_ready)

        otlp_port = await collector.start() if collector is not None else None
        valkey_url = ""
        if VALKEY:
            valkey = ValkeyProcess(workdir / "valkey", free_port())
            parts.append(valkey)
            await asyncio.to_thread(valkey.wait_ready)
            valkey_url = valkey.url
        stack = await start_stack(workdir, milvus.port, COLLECTION, identity, parts, local=LOCAL,
                                  otlp_port=otlp_port, valkey_url=valkey_url)  # fmt: skip
        settings, processor, envoy, llm = stack.settings, stack.processor, stack.envoy, stack.llm
        admin_port, grpc_port, llm_port, memory_port = (
            stack.admin_port, stack.grpc_port, stack.llm_port, stack.memory_port,
        )  # fmt: skip
        local = stack.local
        null_port, null_listener = free_port(), free_port()
        null = ManagedProcess("null-processor",
                              [sys.executable, "-m", "bench.null_processor", str(null_port)],
                              workdir / "null-processor.log")  # fmt: skip
        parts.append(null)
        await asyncio.to_thread(null.wait_until, lambda: serving(null_port), 60)
        null_envoy = EnvoyProcess(
            render(
                listen_port=null_listener, admin_port=free_port(), processor_ports=[null_port],
                upstream=Upstream("127.0.0.1", llm_port), jwks_path=identity.jwks_path,
            ),
            workdir / "envoy-null",
        )  # fmt: skip
        parts.append(null_envoy)
        await asyncio.to_thread(null_envoy.wait_ready)
        urls = {**stack.urls, "null": f"http://127.0.0.1:{null_listener}/v1/chat/completions"}
        connector = aiohttp.TCPConnector(limit=CONCURRENCY * 2)
        async with aiohttp.ClientSession(connector=connector) as http:
            print("warming up …", flush=True)
            await drive(http, urls, world, list(KINDS) * 100, Samples())

            async def contention() -> tuple[Samples, Samples, dict[str, float]]:
                alone = RATE * ALONE_SHARE
                print(f"retrieval alone at {alone:.0f}/s: idle, then with "
                      f"{BUSY_RATE:.0f} statements/s …")  # fmt: skip
                # The same traffic twice (retrievals, and 10-turn conversations from other users);
                # only in the second are the conversations learned from, keeping the pool busy.
                writes = int(BUSY_RATE * CONTENTION_ROUNDS / alone)
                phases = {}
                for phase, statement in (("idle", "statement_unlearned"), ("busy", "statement")):
                    phases[phase] = Samples()
                    await asyncio.gather(
                        drive(http, urls, world, ["retrieval"] * CONTENTION_ROUNDS, phases[phase],
                              rate=alone),
                        drive(http, urls, world, [statement] * writes, Samples(), rate=BUSY_RATE),
                    )  # fmt: skip
                idle, busy = phases["idle"], phases["busy"]
                extraction = await extraction_stats(http, admin_port)
                return idle, busy, extraction

            async def latency() -> tuple[Samples, Samples, float]:
                print(f"latency: {ROUNDS} of each kind at {RATE:.0f}/s, {CONCURRENCY} clients …")
                plan = [kind for _ in range(ROUNDS) for kind in rng.sample(KINDS, len(KINDS))]
                samples = Samples()
                await drive(http, urls, world, plan, samples, rate=RATE)

                print(f"saturation: {CONCURRENCY} clients, closed loop …", flush=True)
                saturated = Samples()
                ours = [kind for kind in plan if kind in OURS][: 3 * CPU_BLOCK]  # our stack's
                elapsed = await drive(http, urls, world, ours, saturated)
                throughput = 3 * CPU_BLOCK / elapsed
                return samples, saturated, throughput

            if LOCAL:  # the model learns in the background from the busy phase on
                contended = await contention()
                samples, saturated, throughput = await latency()
            else:
                samples, saturated, throughput = await latency()
                contended = await contention()
            idle, busy, extraction = contended
            leaders = {"processor": processor._process.proc.pid, "envoy": envoy._process.proc.pid,
                       "milvus": milvus._process.proc.pid, "llm": llm.proc.pid,
                       "null_processor": null.proc.pid,
                       "null_envoy": null_envoy._process.proc.pid}  # fmt: skip
            if local is not None:
                leaders["local_model"] = local._process.proc.pid
            print(f"CPU per request by kind, beside the floor, in {CPU_ROUNDS} rounds …")
            probe = await asyncio.to_thread(FloorProbe, world, milvus.uri)
            rounds = []
            for _ in range(CPU_ROUNDS):  # interleaved: a slower minute weighs on both sides
                block = await cpu_by_kind(http, urls, world, leaders, CPU_BLOCK // CPU_ROUNDS)
                floor = await asyncio.to_thread(probe.measure, FLOOR_ROUNDS // CPU_ROUNDS)
                floor["exchange"] = block["passthrough"]["processor_alone"]
                rounds.append((block, floor))
            probe.close()

            print("scaling: retrievals, closed loop, through 1 then 2 processor processes …")
            grpc_2, admin_2, scaled_port = free_port(), free_port(), free_port()
            server_2 = {**settings["server"], "grpc_port": grpc_2, "admin_port": admin_2}
            second = ProcessorProcess(
                write_config(workdir / "config-2.yaml", {**settings, "server": server_2}),
                grpc_2, workdir / "processor-2.log",
            )  # fmt: skip
            parts.append(second)
            await asyncio.to_thread(second.wait_ready)
            await asyncio.to_thread(second.wait_memory_enabled, admin_2)
            scaled = EnvoyProcess(
                render(
                    listen_port=scaled_port, admin_port=free_port(),
                    processor_ports=[grpc_port, grpc_2],
                    upstream=Upstream("127.0.0.1", llm_port), jwks_path=identity.jwks_path,
                ),
                workdir / "envoy-2",
            )  # fmt: skip
            parts.append(scaled)
            await asyncio.to_thread(scaled.wait_ready)
            scaling = {}
            for processes, port in ((1, memory_port), (2, scaled_port)):
                url = {"memory": f"http://127.0.0.1:{port}/v1/chat/completions"}
                took = await drive(http, url, world, ["retrieval"] * SCALE_BLOCK, Samples())
                scaling[processes] = SCALE_BLOCK / took
    finally:
        for part in reversed(parts):
            part.stop()
        if collector is not None:
            await collector.stop()
    report(samples, saturated, throughput, rounds, (idle, busy, extraction), scaling, workdir)


async def extraction_stats(http: aiohttp.ClientSession, admin_port: int) -> dict[str, float]:
    """What the pool did, from the processor's own metrics."""
    async with http.get(f"http://127.0.0.1:{admin_port}/metrics") as response:
        text = await response.text()
    wanted = {
        'memory_extraction_jobs_total{outcome="ok"}': "jobs_ok",
        'memory_extraction_facts_total{outcome="stored"}': "facts_stored",
        "memory_extraction_queue_depth": "queue_depth_at_end",
    }
    stats = dict.fromkeys(wanted.values(), 0.0)
    for line in text.splitlines():
        key, _, value = line.rpartition(" ")
        if key in wanted:
            stats[wanted[key]] = float(value)
    stats["dropped"] = sum(
        float(line.rpartition(" ")[2])
        for line in text.splitlines()
        if line.startswith("memory_extraction_dropped_total{")
    )
    return stats


def report(
    samples: Samples,
    saturated: Samples,
    throughput: float,
    rounds: list[tuple[dict[str, dict[str, float]], dict[str, float]]],
    contention: tuple[Samples, Samples, dict[str, float]],
    scaling: dict[int, float],
    workdir: Path,
) -> None:
    idle, busy, extraction = contention
    lat, sat = samples.latency, saturated.latency
    cpu = {
        kind: {
            name: statistics.fmean(r[kind][name] for r, _ in rounds) for name in rounds[0][0][kind]
        }
        for kind in KINDS
    }
    floor = {part: statistics.fmean(f[part] for _, f in rounds) for part in rounds[0][1]}
    # the ratio of each round (processor and floor measured minutes apart), then their median
    over_floor = [r["retrieval"]["processor_alone"] / sum(f.values()) for r, f in rounds]
    p = {kind: {q: percentile(lat[kind], q) for q in (50, 90, 99)} for kind in KINDS}
    print(f"\nAt {RATE:.0f} requests/s ({CONCURRENCY} clients), then CPU per request by kind:")
    print(f"{'kind':<12} {'n':>5} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} | "
          f"{'processor':>9} {'envoy':>6} {'milvus':>6} {'llm':>6}   saturated p50")  # fmt: skip
    for kind in KINDS:
        c = cpu[kind]
        processor, envoy = (
            (c["null_processor"], c["null_envoy"])
            if kind == "null"
            else (c["processor"], c["envoy"])
        )
        saturated = f"{percentile(sat[kind], 50):>9.2f}" if sat[kind] else f"{'-':>9}"
        print(f"{kind:<12} {len(lat[kind]):>5} {p[kind][50]:>7.2f} {p[kind][90]:>7.2f} "
              f"{p[kind][99]:>7.2f} | {processor:>9.2f} {envoy:>6.2f} "
              f"{c['milvus']:>6.2f} {c['llm']:>6.2f}   {saturated}")  # fmt: skip
    print(
        f"saturation ({CONCURRENCY} clients, closed loop, our stack's kinds): "
        f"{throughput:.0f} requests/s"
    )
    print(
        f"passthrough added p50 {p['passthrough'][50] - p['direct'][50]:.2f} ms; a processor "
        f"that does no work adds {p['null'][50] - p['direct'][50]:.2f} ms "
        f"(the null row: its own Envoy and processor, in the envoy and processor columns)"
    )
    idle_p99 = percentile(idle.latency["retrieval"], 99)
    busy_p99 = percentile(busy.latency["retrieval"], 99)
    idle_p50 = percentile(idle.latency["retrieval"], 50)
    busy_p50 = percentile(busy.latency["retrieval"], 50)
    print(
        f"retrieval alone: p50 {idle_p50:.2f} / p99 {idle_p99:.2f} ms idle, "
        f"p50 {busy_p50:.2f} / p99 {busy_p99:.2f} ms with the pool busy "
        f"(extraction jobs done {extraction['jobs_ok']:.0f}, facts stored "
        f"{extraction['facts_stored']:.0f}, queued at the end "
        f"{extraction['queue_depth_at_end']:.0f}, dropped {extraction['dropped']:.0f})"
    )
    print(
        f"retrievals at saturation: {scaling[1]:.0f}/s with 1 processor process, "
        f"{scaling[2]:.0f}/s with 2 ({scaling[2] / scaling[1]:.2f}x)"
    )
    floor_ms = sum(floor.values())
    ratio = statistics.median(over_floor)
    print(
        f"processor CPU per retrieval {cpu['retrieval']['processor_alone']:.2f} ms against its "
        f"floor {floor_ms:.2f} ms (embedding {floor['embedding']:.2f} + Milvus search client "
        f"{floor['search_client']:.2f} + ext_proc exchange {floor['exchange']:.2f}): "
        f"{ratio:.2f}x (median of {len(rounds)} rounds: "
        f"{', '.join(f'{x:.2f}' for x in over_floor)})"
    )
    result = {
        "passthrough_added_p50_ms": round(p["passthrough"][50] - p["direct"][50], 2),
        "passthrough_added_p99_ms": round(p["passthrough"][99] - p["direct"][99], 2),
        "null_added_p50_ms": round(p["null"][50] - p["direct"][50], 2),
        "null_added_p99_ms": round(p["null"][99] - p["direct"][99], 2),
        "null_processor_cpu_ms": round(cpu["null"]["null_processor"], 2),
        "null_envoy_cpu_ms": round(cpu["null"]["null_envoy"], 2),
        "passthrough_envoy_cpu_ms": round(cpu["passthrough"]["envoy"], 2),
        "direct_envoy_cpu_ms": round(cpu["direct"]["envoy"], 2),
        "retrieval_added_p50_ms": round(p["retrieval"][50] - p["direct"][50], 2),
        "retrieval_added_p99_ms": round(p["retrieval"][99] - p["direct"][99], 2),
        "direct_p50_ms": round(p["direct"][50], 2),
        "direct_p99_ms": round(p["direct"][99], 2),
        "passthrough_processor_cpu_ms": round(cpu["passthrough"]["processor"], 2),
        "retrieval_processor_cpu_ms": round(cpu["retrieval"]["processor"], 2),
        "retrieval_processor_alone_cpu_ms": round(cpu["retrieval"]["processor_alone"], 2),
        "retrieval_floor_cpu_ms": round(floor_ms, 2),
        "retrieval_floor_embedding_cpu_ms": round(floor["embedding"], 2),
        "retrieval_floor_search_cpu_ms": round(floor["search_client"], 2),
        "retrieval_processor_over_floor": round(ratio, 2),
        "retrieval_processor_over_floor_rounds": [round(x, 2) for x in over_floor],
        "retrieval_milvus_cpu_ms": round(cpu["retrieval"]["milvus"] - cpu["direct"]["milvus"], 2),
        "retrieval_injected_share": round(
            samples.injected["retrieval"] / max(1, samples.asked["retrieval"]), 3
        ),
        "retrieval_zh_added_p50_ms": round(p["retrieval_zh"][50] - p["direct"][50], 2),
        "retrieval_zh_added_p99_ms": round(p["retrieval_zh"][99] - p["direct"][99], 2),
        "retrieval_zh_processor_cpu_ms": round(cpu["retrieval_zh"]["processor"], 2),
        "retrieval_zh_processor_alone_cpu_ms": round(cpu["retrieval_zh"]["processor_alone"], 2),
        "retrieval_zh_injected_share": round(
            samples.injected["retrieval_zh"] / max(1, samples.asked["retrieval_zh"]), 3
        ),
        "personalised_added_p50_ms": round(p["personalised"][50] - p["direct"][50], 2),
        "personalised_added_p99_ms": round(p["personalised"][99] - p["direct"][99], 2),
        "personalised_processor_cpu_ms": round(cpu["personalised"]["processor"], 2),
        "personalised_injected_share": round(
            samples.injected["personalised"] / max(1, samples.asked["personalised"]), 3
        ),
        "response_added_p50_ms": round(p["learning"][50] - p["passthrough"][50], 2),
        "learning_processor_cpu_ms": round(cpu["learning"]["processor"], 2),
        "retrieval_p99_idle_ms": round(idle_p99, 2),
        "retrieval_p99_busy_ms": round(busy_p99, 2),
        "retrieval_p99_busy_over_idle": round(busy_p99 / idle_p99, 2),
        "extractor": "local model" if LOCAL else "synthetic",
        "tracing": TRACING,
        "valkey": VALKEY,
        "busy_extraction_jobs": int(extraction["jobs_ok"]),
        "saturated_requests_per_s": round(throughput),
        "saturated_retrievals_per_s_1_process": round(scaling[1]),
        "saturated_retrievals_per_s_2_processes": round(scaling[2]),
        "retrieval_scaling_2_over_1": round(scaling[2] / scaling[1], 2),
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
    run_harness(main)
