"""`make bench`: latency and CPU that memory adds, measured side by side in one run.

One Envoy has two listeners to the same stand-in LLM: `direct` (no ext_proc) and `memory`
(ext_proc → memory-extproc → Milvus standalone holding 100,000 memories of 1,000 users, each
in its own words: bench/dataset.py `said`); a second Envoy sends its ext_proc streams to a
processor that does no work (bench/null_processor.py).
Eight client connections send, interleaved, nine kinds of requests:
  direct       Envoy → LLM, the baseline;
  null         the greeting below through the processor that does no work: the floor of any
               ext_proc exchange with Python gRPC on this machine;
  passthrough  through the processor, memory skipped (a greeting, auto_store off);
  learning     the same greeting, but the answer is read and handed to the extraction pool;
  retrieval    a personal question: embed, search, inject (auto_store off: request path);
  retrieval_zh the same questions in Chinese, against the same English memories: read by
               multilingual-e5 instead of MiniLM;
  retrieval_es, retrieval_de  the same in Spanish (a language with word rules of its own) and
               German (one without);
  personalised an open request ("recommend a book for my holiday"): the preferences near it
               join the search.
  conversation a question about its start at the end of a long conversation (160 messages),
               sent as it is;
  compressed   the same, with "memory_config": {"compress": true}: what the worker keeps of the
               conversation is written before the run (harness.seed_conversations), so the
               older turns are replaced (docs/concepts/compression.md).
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

`BENCH_BASELINE=<git ref>` runs that revision's processor beside today's (devstack/baseline.py:
a worktree, today's packages), behind an Envoy of its own config, on the same Milvus and the same
memories (copied into a collection in its schema), the same stand-in LLMs, in the same run: every
kind that goes through a processor is sent to both, interleaved, each phase's traffic shared
between them at the same total rate (more of it through processors: 18 kinds of 20 against 9 of
11, so absolute figures run a little higher than without a baseline; compare within a run), CPU
measured in blocks taking turns; saturation and scaling one side after the other. Not with
BENCH_VALKEY: both revisions would read one stream of captured turns as replicas do. It prints
both columns and their ratios, and the JSON holds the baseline's figures under `baseline_` + the
same keys.

`BENCH_PROFILE=1` samples each processor with py-spy through the latency phase (bench/profile.py)
and prints the functions that take its time.

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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from pymilvus import MilvusClient

from bench.dataset import Questions, facts_and_questions, said
from bench.harness import (
    BASE,
    CONCURRENCY,
    KINDS,
    LANGUAGE,
    OURS,
    SIDED,
    Samples,
    Stack,
    World,
    drive,
    embed_facts,
    percentile,
    process_cpu_seconds,
    seed_conversations,
    session_cpu_seconds,
    start_stack,
    wait_indexed,
    with_baseline,
)
from bench.profile import Profile, side_by_side, top
from devstack import baseline
from devstack.envoy import EnvoyProcess, Upstream, render
from devstack.gateway import Gateway
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
from memory_extproc.memories.kinds import kind_of
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
WARMUP = int(os.environ.get("BENCH_WARMUP", "100"))  # requests of each kind before measuring
# short runs: the memories loaded into this run's Milvus, not into a kept copy started again
# (a restarted copy's recovery, under the load of `make test`, once left a collection unserved)
FRESH = os.environ.get("BENCH_FRESH") == "1"
COLLECTION = "bench_memories"
# a git ref: its processor runs beside today's, on the same memories, sharing the same load
BASELINE = os.environ.get("BENCH_BASELINE", "")
BASE_COLLECTION = "bench_memories_baseline"  # the same memories, in the baseline's schema
LOCAL = os.environ.get("BENCH_EXTRACTOR", "synthetic") == "local"
TRACING = os.environ.get("BENCH_TRACING") == "1"  # every request traced, to a local collector
# captured turns and conversation state in Valkey, as replicas keep them (not in spool_dir)
VALKEY = os.environ.get("BENCH_VALKEY") == "1"
PROFILE = os.environ.get("BENCH_PROFILE") == "1"  # py-spy on each processor, latency phase
CPU_PROFILE_RATE = 1000  # samples/s in the English retrieval blocks: a few thousand a side
# with a baseline: added latency by kind, today beside the baseline (docs/benchmarks.md)
PLOT = Path(os.environ.get("BENCH_PLOT", "bench/baseline.png"))
# conversations/s, each at its 10th turn: one extraction job of 10 facts, keeping the pool busy
BUSY_RATE = float(os.environ.get("BENCH_BUSY_RATE", "2"))


async def load_memories(uri: str, world: World) -> None:
    ways: Counter[int] = Counter()  # each owner of a fact says it in its own words
    memories = []
    for user in world.users:
        for index in world.owned[user]:
            memories.append((user, said(world.facts[index][0], ways[index])))
            ways[index] += 1
    print(f"embedding {len(memories):,} memories …", flush=True)
    vectors = embed_facts([text for _, text in memories])
    store = MilvusStore(uri, COLLECTION, DIMENSION)
    await store.start()
    if not await store.wait_available(120):
        sys.exit("Milvus did not come up")
    print(f"inserting {USERS * PER_USER:,} memories for {USERS:,} users …", flush=True)
    for start in range(0, len(memories), 5000):
        chunk = zip(memories[start : start + 5000], vectors[start : start + 5000], strict=True)
        batch = [(Memory.new(u, text, kind_of(text), source="bench"), v) for (u, text), v in chunk]
        await store.store_many(batch, wait_visible=start + 5000 >= len(memories))
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
    passthrough's processor CPU; the floor is the sum. ``baseline``: the search in the
    baseline's collection too, with the part of the vector it holds."""

    def __init__(self, world: World, uri: str, baseline: bool = False) -> None:
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
        self._collections = {"search_client": (COLLECTION, DIMENSION, "IP")}
        if baseline:  # its schema: the length of its vectors, the metric of its index
            fields = self._client.describe_collection(BASE_COLLECTION)["fields"]
            (dim,) = [int(f["params"]["dim"]) for f in fields if f["name"] == "embedding"]
            metric = self._client.describe_index(BASE_COLLECTION, "embedding")["metric_type"]
            self._collections["search_client_baseline"] = (BASE_COLLECTION, dim, metric)
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
        measured = {"embedding": (time.process_time() - started) / rounds * 1000}
        for name, (collection, dim, metric) in self._collections.items():
            search = {**self._search, "search_params": {"metric_type": metric}}
            started = time.process_time()
            for (user, _), vector in zip(asked, vectors, strict=True):
                self._client.search(collection, data=[vector[:dim].tolist()],
                                    filter=filters.user_scope(user, alive_at=now_ms()),
                                    **search)  # fmt: skip
            measured[name] = (time.process_time() - started) / rounds * 1000
        return measured

    def close(self) -> None:
        self._client.close()


async def cpu_by_kind(
    http: aiohttp.ClientSession,
    urls: dict[str, str],
    world: World,
    leaders: dict[str, int],
    requests: int,
    kinds: tuple[str, ...],
    profiles: Path | None = None,
) -> dict[str, dict[str, float]]:
    """CPU ms per request of each kind, in one closed-loop block per kind (today's and the
    baseline's one after the other), from /proc: each process with its children (the session),
    and the processor alone (without its worker, which may be learning meanwhile). "processor"
    and "envoy" are those the kind went through. ``profiles``: a folder where py-spy's samples
    of each side's English retrievals are added (BENCH_PROFILE)."""
    cpu: dict[str, dict[str, float]] = {}
    for kind in sorted(kinds, key=lambda k: kinds.index(k.removeprefix(BASE))):
        side = "null_" if kind == "null" else BASE if kind.startswith(BASE) else ""
        main = leaders[side + "processor"]
        before = {name: session_cpu_seconds(pid) for name, pid in leaders.items()}
        alone = process_cpu_seconds(main)
        profile = None
        if profiles is not None and kind.removeprefix(BASE) == "retrieval":
            output = profiles / f"cpu-{side or 'today_'}retrieval-{time.monotonic_ns()}.txt"
            profile = Profile(main, output, rate=CPU_PROFILE_RATE)
        await drive(http, urls, world, [kind] * requests, Samples())
        if profile is not None:
            profile.stop()
        used = {
            name: (session_cpu_seconds(pid) - before[name]) / requests * 1000
            for name, pid in leaders.items()
        }
        cpu[kind] = {
            "processor": used[side + "processor"],
            "envoy": used[side + "envoy"],
            "milvus": used["milvus"],
            "llm": used["llm"],
            "processor_alone": (process_cpu_seconds(main) - alone) / requests * 1000,
        }
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


@dataclass
class Side:
    """A processor under test and its Envoy: today's (prefix "") or the baseline's."""

    prefix: str
    gateway: Gateway
    listener: str  # World.request's name for its Envoy listener

    def kind(self, kind: str) -> str:
        return self.prefix + kind if kind in SIDED else kind


async def start_baseline(
    workdir: Path, tree: Path, milvus: MilvusProcess, stack: Stack, world: World,
    parts: list[Any],
) -> Side:  # fmt: skip
    """The baseline revision's processor, on the same Milvus and the same memories (copied into
    a collection in its own schema), the same stand-in LLMs, and an Envoy of its own config."""
    memory = {
        **stack.memory,
        "milvus": {"address": f"127.0.0.1:{milvus.port}", "collection": BASE_COLLECTION},
    }
    gateway = Gateway(workdir / "baseline", memory, stack.llm_port, world.identity, tree=tree)
    parts.append(gateway)
    await asyncio.to_thread(gateway.wait_ready)  # memory on: its collection is made
    print(f"copying the memories into the baseline's collection ({BASE_COLLECTION}) …", flush=True)
    await asyncio.to_thread(copy_memories, milvus.uri, COLLECTION, BASE_COLLECTION, world.users)
    return Side(BASE, gateway, "baseline")


def copy_memories(uri: str, source: str, target: str, users: list[str]) -> int:
    """Every user's rows of ``source`` into ``target``, in the fields ``target`` has (one user
    at a time: Milvus 2.3 answers a query iterator with the whole collection at once). A vector
    longer than ``target``'s is cut to its first part: today's ``[MiniLM | e5 | 1]`` begins
    with the MiniLM reading that a revision storing MiniLM alone holds."""
    client = MilvusClient(uri=uri)
    client.load_collection(source)  # loaded by today's processor, maybe not yet in full
    fields = client.describe_collection(target)["fields"]
    names = [f["name"] for f in fields]
    (dim,) = [int(f["params"]["dim"]) for f in fields if f["name"] == "embedding"]
    copied, batch = 0, []
    for n, user in enumerate(users, 1):
        rows = client.query(source, filter=filters.user_scope(user, active_only=False),
                            output_fields=names, limit=16_384)  # fmt: skip
        batch += [{**row, "embedding": list(row["embedding"])[:dim]} for row in rows]
        if len(batch) >= 5000 or n == len(users):
            client.insert(target, batch)
            copied, batch = copied + len(batch), []
    client.flush(target)
    wait_indexed(client, target, copied, timeout_s=600)
    client.close()
    return copied


async def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-bench-"))
    # The loaded Milvus is kept between runs (it takes a minute to build): .run/bench/…; each run
    # works on a copy, so what one run writes (and deletes) never changes the next one's data.
    # Named by the schema that made it: one kept from an older release is not opened.
    schema = SCHEMA_TAG.rsplit(" ", 1)[-1]
    pristine = Path(".run/bench") / f"milvus-{USERS}x{PER_USER}-int8-voiced-distinct-{schema}"
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
    world.converse()
    tree = None
    if BASELINE and VALKEY:
        sys.exit("BENCH_BASELINE and BENCH_VALKEY: both workers would learn from one stream")
    if BASELINE:
        print(f"checking out the baseline {BASELINE} …", flush=True)
        tree = await asyncio.to_thread(baseline.checkout, BASELINE)
    kinds = with_baseline(KINDS) if BASELINE else KINDS
    if not FRESH and not (pristine / "LOADED").exists():
        await build_dataset(pristine, world)
    if not FRESH:
        shutil.copytree(pristine, data_dir, ignore=shutil.ignore_patterns("*.log"))
    milvus = MilvusProcess(data_dir, free_port())
    parts: list = [milvus]
    collector = OtlpReceiver() if TRACING else None
    try:
        print(f"starting Milvus standalone on {'new data' if FRESH else f'a copy of {pristine}'} …",
              flush=True)  # fmt: skip
        await asyncio.to_thread(milvus.wait_ready)
        if FRESH:
            await load_memories(milvus.uri, world)

        otlp_port = await collector.start() if collector is not None else None
        valkey_url = ""
        if VALKEY:
            valkey = ValkeyProcess(workdir / "valkey", free_port())
            parts.append(valkey)
            await asyncio.to_thread(valkey.wait_ready)
            valkey_url = valkey.url
        stack = await start_stack(workdir, milvus.port, COLLECTION, identity, parts, local=LOCAL,
                                  otlp_port=otlp_port, valkey_url=valkey_url)  # fmt: skip
        sides = [Side("", stack.gateway, "memory")]
        if tree is not None:
            sides.append(await start_baseline(workdir, tree, milvus, stack, world, parts))
        print("writing what the worker keeps of the long conversations …", flush=True)
        spools = [] if VALKEY else [workdir / "spool"]
        if tree is not None:
            spools.append(workdir / "baseline" / "spool")
        await seed_conversations(world, spools, valkey_url)
        null_port, null_listener = free_port(), free_port()
        null = ManagedProcess("null-processor",
                              [sys.executable, "-m", "bench.null_processor", str(null_port)],
                              workdir / "null-processor.log")  # fmt: skip
        parts.append(null)
        await asyncio.to_thread(null.wait_until, lambda: serving(null_port), 60)
        null_envoy = EnvoyProcess(
            render(
                listen_port=null_listener, admin_port=free_port(), processor_ports=[null_port],
                upstream=Upstream("127.0.0.1", stack.llm_port), jwks_path=identity.jwks_path,
            ),
            workdir / "envoy-null",
        )  # fmt: skip
        parts.append(null_envoy)
        await asyncio.to_thread(null_envoy.wait_ready)
        urls = {**stack.urls, "null": f"http://127.0.0.1:{null_listener}/v1/chat/completions"}
        urls.update({side.listener: side.gateway.chat_url for side in sides})
        connector = aiohttp.TCPConnector(limit=CONCURRENCY * 2)
        async with aiohttp.ClientSession(connector=connector) as http:
            print("warming up …", flush=True)
            await drive(http, urls, world, list(kinds) * WARMUP, Samples())

            async def contention() -> tuple[Samples, Samples, dict[str, dict[str, float]]]:
                alone = RATE * ALONE_SHARE
                print(f"retrieval alone at {alone:.0f}/s: idle, then with "
                      f"{BUSY_RATE:.0f} statements/s …")  # fmt: skip
                # The same traffic twice (retrievals, and 10-turn conversations from other users);
                # only in the second are the conversations learned from, keeping the pool busy.
                # With a baseline, both sides share that traffic, taking turns.
                writes = int(BUSY_RATE * CONTENTION_ROUNDS / alone)
                phases = {}
                for phase, statement in (("idle", "statement_unlearned"), ("busy", "statement")):
                    phases[phase] = Samples()
                    asked = [side.kind("retrieval") for side in sides] * CONTENTION_ROUNDS
                    said = [side.prefix + statement for side in sides] * writes
                    await asyncio.gather(
                        drive(http, urls, world, asked[:CONTENTION_ROUNDS], phases[phase],
                              rate=alone),
                        drive(http, urls, world, said[:writes], Samples(), rate=BUSY_RATE),
                    )  # fmt: skip
                stats = {
                    side.prefix: await processor_stats(http, side.gateway.admin_port)
                    for side in sides
                }
                return phases["idle"], phases["busy"], stats

            async def latency() -> tuple[Samples, Samples, dict[str, float]]:
                print(f"latency: {ROUNDS} of each kind at {RATE:.0f}/s, {CONCURRENCY} clients …")
                plan = [kind for _ in range(ROUNDS) for kind in rng.sample(kinds, len(kinds))]
                samples = Samples()
                before = {
                    side.prefix: await processor_stats(http, side.gateway.admin_port)
                    for side in sides
                }
                profiles = [
                    Profile(side.gateway.processor._process.proc.pid,
                            workdir / f"profile-{side.prefix or 'today_'}processor.txt")
                    for side in sides if PROFILE
                ]  # fmt: skip
                await drive(http, urls, world, plan, samples, rate=RATE)
                for profile in profiles:
                    if profile.stop():
                        print_profile(profile.output)
                for side in sides:  # requests that ran out of time at RATE
                    after = await processor_stats(http, side.gateway.admin_port)
                    timeouts[side.prefix] = after["timeouts"] - before[side.prefix]["timeouts"]

                saturated, throughput = Samples(), {}
                for side in sides:  # one side at a time: each its own capacity
                    print(f"saturation: {CONCURRENCY} clients, closed loop, {side.listener} …")
                    ours = [side.kind(kind) for kind in plan if kind in OURS][: 3 * CPU_BLOCK]
                    throughput[side.prefix] = len(ours) / await drive(http, urls, world, ours,
                                                                      saturated)  # fmt: skip
                return samples, saturated, throughput

            timeouts: dict[str, float] = {}
            if LOCAL:  # the model learns in the background from the busy phase on
                contended = await contention()
                samples, saturated, throughput = await latency()
            else:
                samples, saturated, throughput = await latency()
                contended = await contention()
            leaders = {"milvus": milvus._process.proc.pid, "llm": stack.llm.proc.pid,
                       "null_processor": null.proc.pid,
                       "null_envoy": null_envoy._process.proc.pid}  # fmt: skip
            for side in sides:
                leaders[side.prefix + "processor"] = side.gateway.processor._process.proc.pid
                leaders[side.prefix + "envoy"] = side.gateway.envoy._process.proc.pid
            print(f"CPU per request by kind, beside the floor, in {CPU_ROUNDS} rounds …")
            probe = await asyncio.to_thread(FloorProbe, world, milvus.uri, tree is not None)
            rounds = []
            for _ in range(CPU_ROUNDS):  # interleaved: a slower minute weighs on both sides
                block = await cpu_by_kind(http, urls, world, leaders, CPU_BLOCK // CPU_ROUNDS,
                                          kinds, workdir if PROFILE else None)  # fmt: skip
                floor = await asyncio.to_thread(probe.measure, FLOOR_ROUNDS // CPU_ROUNDS)
                rounds.append((block, floor))
            probe.close()

            print("scaling: retrievals, closed loop, through 1 then 2 processor processes …")
            scaling = {}
            for side in sides:
                scaling[side.prefix] = await scale(http, world, workdir, side, stack, identity,
                                                   parts)  # fmt: skip
    finally:
        for part in reversed(parts):
            part.stop()
        if collector is not None:
            await collector.stop()
        shutil.rmtree(data_dir, ignore_errors=True)  # a copy of .run/bench's: ~1.5 GB a run
    measured = Measured(samples, saturated, throughput, rounds, contended, scaling, timeouts)
    report(measured, sides, workdir)


async def scale(
    http: aiohttp.ClientSession, world: World, workdir: Path, side: Side, stack: Stack,
    identity: DevIdentity, parts: list[Any],
) -> dict[int, float]:  # fmt: skip
    """Retrievals/s at saturation through the side's processor, then through it and a second."""
    grpc_2, admin_2, scaled_port = free_port(), free_port(), free_port()
    settings = side.gateway.settings
    server_2 = {**settings["server"], "grpc_port": grpc_2, "admin_port": admin_2}
    name = f"{side.prefix}2"
    second = ProcessorProcess(
        write_config(workdir / f"config-{name}.yaml", {**settings, "server": server_2}),
        grpc_2, workdir / f"processor-{name}.log", side.gateway.tree,
    )  # fmt: skip
    parts.append(second)
    await asyncio.to_thread(second.wait_ready)
    await asyncio.to_thread(second.wait_memory_enabled, admin_2)
    scaled = EnvoyProcess(
        render(
            listen_port=scaled_port, admin_port=free_port(),
            processor_ports=[side.gateway.grpc_port, grpc_2],
            upstream=Upstream("127.0.0.1", stack.llm_port), jwks_path=identity.jwks_path,
            source=side.gateway.envoy_source,
        ),
        workdir / f"envoy-{name}",
    )  # fmt: skip
    parts.append(scaled)
    await asyncio.to_thread(scaled.wait_ready)
    scaling = {}
    for processes, url in ((1, side.gateway.chat_url),
                           (2, f"http://127.0.0.1:{scaled_port}/v1/chat/completions")):  # fmt: skip
        plan = [side.kind("retrieval")] * SCALE_BLOCK
        took = await drive(http, {side.listener: url}, world, plan, Samples())
        scaling[processes] = SCALE_BLOCK / took
    scaled.stop()
    second.stop()
    return scaling


async def processor_stats(http: aiohttp.ClientSession, admin_port: int) -> dict[str, float]:
    """What the pool did, and how many requests ran out of time, from the processor's metrics."""
    async with http.get(f"http://127.0.0.1:{admin_port}/metrics") as response:
        text = await response.text()
    wanted = {
        'memory_extraction_jobs_total{outcome="ok"}': "jobs_ok",
        'memory_extraction_facts_total{outcome="stored"}': "facts_stored",
        "memory_extraction_queue_depth": "queue_depth_at_end",
        'memory_retrieval_outcomes_total{outcome="timeout"}': "timeouts",
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


@dataclass
class Measured:
    samples: Samples  # the latency phase, every kind at RATE
    saturated: Samples
    throughput: dict[str, float]  # by side prefix
    rounds: list[tuple[dict[str, dict[str, float]], dict[str, float]]]  # CPU, floor
    contention: tuple[Samples, Samples, dict[str, dict[str, float]]]  # idle, busy, by side
    scaling: dict[str, dict[int, float]]  # by side prefix: processes → retrievals/s
    timeouts: dict[str, float]  # by side prefix: requests out of time in the latency phase


def ratio(value: float, by: float) -> float | None:
    """None where the divisor rounded to nothing (a tiny run)."""
    return round(value / by, 2) if by else None


def figures(m: Measured, prefix: str) -> dict[str, Any]:
    """One side's figures, under the keys a run without a baseline prints."""
    lat, sat = m.samples.latency, m.saturated.latency
    idle, busy, stats = m.contention
    extraction, scaling = stats[prefix], m.scaling[prefix]

    def k(kind: str) -> str:
        return prefix + kind if kind in SIDED else kind

    def added(kind: str, q: float) -> float:
        return round(percentile(lat[k(kind)], q) - percentile(lat["direct"], q), 2)

    def cpu(kind: str, part: str = "processor") -> float:
        return round(statistics.fmean(r[k(kind)][part] for r, _ in m.rounds), 2)

    def injected(kind: str) -> float:
        return round(m.samples.injected[k(kind)] / max(1, m.samples.asked[k(kind)]), 3)

    search = "search_client_baseline" if prefix else "search_client"
    floors = [f["embedding"] + f[search] + r[k("passthrough")]["processor_alone"]
              for r, f in m.rounds]  # fmt: skip
    over_floor = [r[k("retrieval")]["processor_alone"] / f
                  for (r, _), f in zip(m.rounds, floors, strict=True)]  # fmt: skip
    idle_p50, idle_p99 = (percentile(idle.latency[k("retrieval")], q) for q in (50, 99))
    busy_p50, busy_p99 = (percentile(busy.latency[k("retrieval")], q) for q in (50, 99))
    result: dict[str, Any] = {
        "passthrough_added_p50_ms": added("passthrough", 50),
        "passthrough_added_p99_ms": added("passthrough", 99),
        "null_added_p50_ms": added("null", 50),
        "null_added_p99_ms": added("null", 99),
        "passthrough_over_null_p50": ratio(added("passthrough", 50), added("null", 50)),
        "null_processor_cpu_ms": cpu("null"),
        "null_envoy_cpu_ms": cpu("null", "envoy"),
        "passthrough_envoy_cpu_ms": cpu("passthrough", "envoy"),
        "direct_envoy_cpu_ms": cpu("direct", "envoy"),
        "retrieval_added_p50_ms": added("retrieval", 50),
        "retrieval_added_p99_ms": added("retrieval", 99),
        "direct_p50_ms": round(percentile(lat["direct"], 50), 2),
        "direct_p99_ms": round(percentile(lat["direct"], 99), 2),
        "passthrough_processor_cpu_ms": cpu("passthrough"),
        "passthrough_processor_alone_cpu_ms": cpu("passthrough", "processor_alone"),
        "retrieval_processor_cpu_ms": cpu("retrieval"),
        "retrieval_processor_alone_cpu_ms": cpu("retrieval", "processor_alone"),
        "retrieval_floor_cpu_ms": round(statistics.fmean(floors), 2),
        "retrieval_floor_embedding_cpu_ms": round(
            statistics.fmean(f["embedding"] for _, f in m.rounds), 2
        ),
        "retrieval_floor_search_cpu_ms": round(statistics.fmean(f[search] for _, f in m.rounds), 2),
        "retrieval_processor_over_floor": round(statistics.median(over_floor), 2),
        "retrieval_processor_over_floor_rounds": [round(x, 2) for x in over_floor],
        "retrieval_milvus_cpu_ms": round(cpu("retrieval", "milvus") - cpu("direct", "milvus"), 2),
        "retrieval_injected_share": injected("retrieval"),
    }
    # other languages; an open request; 160 messages, then a question about the start, as sent
    # and compressed
    for kind in (*LANGUAGE, "personalised", "conversation", "compressed"):
        result |= {
            f"{kind}_added_p50_ms": added(kind, 50),
            f"{kind}_added_p99_ms": added(kind, 99),
            f"{kind}_processor_cpu_ms": cpu(kind),
            f"{kind}_processor_alone_cpu_ms": cpu(kind, "processor_alone"),
            f"{kind}_injected_share": injected(kind),
        }
    for kind in LANGUAGE:  # what a question in another language costs beside an English one
        result[f"{kind}_over_english_p50"] = ratio(
            result[f"{kind}_added_p50_ms"], result["retrieval_added_p50_ms"]
        )
        result[f"{kind}_over_english_cpu"] = ratio(
            result[f"{kind}_processor_alone_cpu_ms"], result["retrieval_processor_alone_cpu_ms"]
        )
    result |= {
        # of the compressed kind, the share sent compressed (the rest: a reason on the receipt)
        "compressed_share": round(
            m.samples.compressed[k("compressed")] / max(1, m.samples.asked[k("compressed")]), 3
        ),
        # what compressing costs: over the same conversation sent as it is, and over a retrieval
        "compressed_over_conversation_p50_ms": round(
            result["compressed_added_p50_ms"] - result["conversation_added_p50_ms"], 2
        ),
        "compressed_over_conversation_cpu_ms": round(
            result["compressed_processor_alone_cpu_ms"]
            - result["conversation_processor_alone_cpu_ms"],
            2,
        ),
        "compressed_over_retrieval_p50_ms": round(
            result["compressed_added_p50_ms"] - result["retrieval_added_p50_ms"], 2
        ),
        "personalised_over_retrieval_p50_ms": round(
            result["personalised_added_p50_ms"] - result["retrieval_added_p50_ms"], 2
        ),
        "response_added_p50_ms": round(
            percentile(lat[k("learning")], 50) - percentile(lat[k("passthrough")], 50), 2
        ),
        "learning_processor_cpu_ms": cpu("learning"),
        "retrieval_timeouts": int(m.timeouts[prefix]),
        "retrieval_p50_idle_ms": round(idle_p50, 2),
        "retrieval_p99_idle_ms": round(idle_p99, 2),
        "retrieval_p50_busy_ms": round(busy_p50, 2),
        "retrieval_p99_busy_ms": round(busy_p99, 2),
        "retrieval_p99_busy_over_idle": round(busy_p99 / idle_p99, 2),
        "busy_extraction_jobs": int(extraction["jobs_ok"]),
        "busy_facts_stored": int(extraction["facts_stored"]),
        "busy_queued_at_end": int(extraction["queue_depth_at_end"]),
        "busy_dropped": int(extraction["dropped"]),
        "saturated_requests_per_s": round(m.throughput[prefix]),
        "saturated_retrievals_per_s_1_process": round(scaling[1]),
        "saturated_retrievals_per_s_2_processes": round(scaling[2]),
        "retrieval_scaling_2_over_1": round(scaling[2] / scaling[1], 2),
        "saturated_retrieval_added_p50_ms": round(
            percentile(sat[k("retrieval")], 50) - percentile(sat["direct"], 50), 2
        ),
    }
    return result


def report(m: Measured, sides: list[Side], workdir: Path) -> None:
    lat, sat = m.samples.latency, m.saturated.latency
    kinds = [kind for kind in with_baseline(KINDS) if lat[kind]]
    print(f"\nAt {RATE:.0f} requests/s ({CONCURRENCY} clients), then CPU per request by kind:")
    print(f"{'kind':<22} {'n':>5} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} | "
          f"{'processor':>9} {'envoy':>6} {'milvus':>6} {'llm':>6}   saturated p50")  # fmt: skip
    for kind in kinds:
        c = {
            part: statistics.fmean(r[kind][part] for r, _ in m.rounds)
            for part in m.rounds[0][0][kind]
        }
        p = [percentile(lat[kind], q) for q in (50, 90, 99)]
        saturated = f"{percentile(sat[kind], 50):>9.2f}" if sat[kind] else f"{'-':>9}"
        print(f"{kind:<22} {len(lat[kind]):>5} {p[0]:>7.2f} {p[1]:>7.2f} {p[2]:>7.2f} | "
              f"{c['processor']:>9.2f} {c['envoy']:>6.2f} {c['milvus']:>6.2f} {c['llm']:>6.2f}"
              f"   {saturated}")  # fmt: skip
    result = figures(m, "")
    for side in sides:
        f = result if not side.prefix else figures(m, side.prefix)
        name = "today" if not side.prefix else f"baseline {BASELINE}"
        print(f"\n{name}:")
        print(f"  passthrough added p50 {f['passthrough_added_p50_ms']:.2f} ms; a processor that "
              f"does no work adds {f['null_added_p50_ms']:.2f} ms "
              f"({f['passthrough_over_null_p50']}x)")  # fmt: skip
        print(f"  retrieval alone: p50 {f['retrieval_p50_idle_ms']:.2f} / p99 "
              f"{f['retrieval_p99_idle_ms']:.2f} ms idle, p50 {f['retrieval_p50_busy_ms']:.2f} / "
              f"p99 {f['retrieval_p99_busy_ms']:.2f} ms with the pool busy (extraction jobs "
              f"done {f['busy_extraction_jobs']}, facts stored {f['busy_facts_stored']}, queued "
              f"at the end {f['busy_queued_at_end']}, dropped {f['busy_dropped']})")  # fmt: skip
        print(f"  retrievals at saturation: {f['saturated_retrievals_per_s_1_process']}/s with 1 "
              f"processor process, {f['saturated_retrievals_per_s_2_processes']}/s with 2 "
              f"({f['retrieval_scaling_2_over_1']:.2f}x)")  # fmt: skip
        print(f"  processor CPU per retrieval {f['retrieval_processor_alone_cpu_ms']:.2f} ms "
              f"against its floor {f['retrieval_floor_cpu_ms']:.2f} ms (embedding "
              f"{f['retrieval_floor_embedding_cpu_ms']:.2f} + Milvus search client "
              f"{f['retrieval_floor_search_cpu_ms']:.2f} + ext_proc exchange): "
              f"{f['retrieval_processor_over_floor']:.2f}x (median of {len(m.rounds)} rounds: "
              f"{', '.join(map(str, f['retrieval_processor_over_floor_rounds']))})")  # fmt: skip
        if side.prefix:
            result |= {side.prefix + key: value for key, value in f.items()}
    if len(sides) > 1:
        print_comparison(result)
        if PROFILE:
            print_cpu_profiles(workdir, result)
        result["baseline_ref"] = BASELINE
        result["baseline_commit"] = str(sides[1].gateway.tree and sides[1].gateway.tree.name)
    result |= {
        "extractor": "local model" if LOCAL else "synthetic",
        "tracing": TRACING,
        "valkey": VALKEY,
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
    if len(sides) > 1:  # after the figures are kept: a plot that fails loses nothing
        plot(result, PLOT)
        print(f"plot: {PLOT}")
    print(f"(logs in {workdir})")
    print(json.dumps(result))


def plot(result: dict[str, Any], path: Path) -> None:
    """Added p50 and p99 by kind, today beside the baseline, with each one's processor CPU."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = [kind for kind in SIDED if kind != "learning"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharey=True)
    sides = (("", "today", "tab:blue"), (BASE, f"baseline {BASELINE}", "tab:gray"))
    for axis, q in zip(axes, (50, 99), strict=True):
        for offset, (prefix, label, color) in zip((-0.2, 0.2), sides, strict=True):
            values = [result[f"{prefix}{kind}_added_p{q}_ms"] for kind in kinds]
            y = [i + offset for i in range(len(kinds))]
            axis.barh(y, values, height=0.38, color=color, label=label)
            for i, value in enumerate(values):
                axis.text(value, y[i], f" {value:.1f}", va="center", fontsize=7)
        axis.set_title(f"added p{q} (ms) at {RATE:.0f} requests/s, both sides in one run",
                       fontsize=9)  # fmt: skip
        axis.grid(True, axis="x", alpha=0.3)

    def label(kind: str) -> str:
        """The kind, its processor CPU and, for a question, the share given its memory: today /
        baseline."""
        both = [result[f"{p}{kind}_processor_alone_cpu_ms"] for p in ("", BASE)]
        text = f"{kind}\nCPU {both[0]:.1f} / {both[1]:.1f} ms"
        if f"{kind}_injected_share" in result:
            given = [result[f"{p}{kind}_injected_share"] for p in ("", BASE)]
            text += f"\nmemory given {given[0]:.2f} / {given[1]:.2f}"
        return text

    axes[0].set_yticks(range(len(kinds)), [label(kind) for kind in kinds], fontsize=7)
    axes[0].invert_yaxis()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="upper center", ncol=2)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def print_profile(collapsed: Path) -> None:
    own, cumulative = top(collapsed.read_text())
    print(f"\nwhere {collapsed.stem.removeprefix('profile-')} spent the latency phase "
          f"(share of samples; {collapsed}):")  # fmt: skip
    for (name, share), (whole, whole_share) in zip(own, cumulative, strict=False):
        print(f"  own {share:6.1%}  {name[:70]:<70}  with callees {whole_share:6.1%}  {whole[:70]}")


def print_cpu_profiles(workdir: Path, result: dict[str, Any]) -> None:
    """Where an English retrieval's processor CPU goes, today beside the baseline (py-spy in
    the CPU blocks): the functions whose cost grew most."""
    sides = [("".join(p.read_text() for p in sorted(workdir.glob(f"cpu-{side}retrieval-*.txt"))),
              result[f"{key}retrieval_processor_alone_cpu_ms"])
             for side, key in (("today_", ""), (BASE, BASE))]  # fmt: skip
    print(f"\nprocessor CPU ms per English retrieval, with callees ({workdir}/cpu-*.txt):")
    print(f"{'function':<90} {'today':>6} {'base':>6} {'+':>6}")
    for function, ours, theirs in side_by_side(sides[0], sides[1]):
        print(f"{function[:90]:<90} {ours:>6.2f} {theirs:>6.2f} {ours - theirs:>+6.2f}")


def print_comparison(result: dict[str, Any]) -> None:
    """Each figure of today's beside the baseline's, and their ratio (not those both share: the
    direct path and the null processor)."""
    print(f"\n{'figure':<44} {'today':>9} {'baseline':>9} {'ratio':>6}")
    for key, value in result.items():
        other = result.get(BASE + key)
        if key.startswith((BASE, "null_", "direct_")) or not isinstance(value, int | float):
            continue
        if other is None:
            continue
        ratio = f"{value / other:>6.2f}" if other else f"{'-':>6}"
        print(f"{key:<44} {value:>9} {other:>9} {ratio}")


if __name__ == "__main__":
    run_harness(main)
