"""`make scale`: what retrieval costs from ten thousand to a million memories, and which index.

Each point (users x memories per user) gets a fresh Milvus standalone, loaded through the
product's own store (its schema, ``user_id`` partition key and index), then measured:
  load      insert, flush and index build, until every row is indexed;
  start-up  Milvus restarted on its data: until the collection is loaded and answers;
  Milvus    one search at a time from pymilvus' client, the processor's filter and parameters:
            latency, resident memory of Milvus' processes, recall@5 against exact search over
            the user's memories (numpy), and the share of questions whose memory is in the top 5;
  request   the real path, Envoy → processor → Milvus, open loop: retrieval added p50/p99
            (against the same Envoy's listener without ext_proc) and processor CPU per retrieval.
At the first point with SCALE_INDEX_AT memories or more the index kinds Milvus standalone
offers are swept on the same data (build time, memory, latency, recall).

Data made fast: the 1,912 distinct facts of bench/dataset.py are embedded for real, in the
memory voice; a memory's vector is its fact's vector jittered to cosine ~0.95 (so no two rows
are equal and a user's memories keep the real facts' geometry); questions are real text that the
processor embeds itself, and the recall figures check they still find their memory. The last
line printed is one JSON object; a plot goes to bench/scale.png.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
from pymilvus import MilvusClient

from bench.dataset import Questions, facts_and_questions
from bench.harness import (
    Samples,
    World,
    drive,
    embed_facts,
    percentile,
    process_cpu_seconds,
    session_cpu_seconds,
    session_rss_mb,
    start_stack,
    wait_indexed,
)
from devstack.milvus import MilvusProcess
from devstack.ports import free_port
from devstack.process import run_harness
from devstack.tokens import DevIdentity
from memory_extproc import config as config_module
from memory_extproc.clock import now_ms
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.store import filters
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.milvus_schema import SEARCH_FIELDS
from memory_extproc.store.model import Memory
from memory_extproc.wiring import build_embedder
from memory_extproc.words import in_memory_voice

POINTS = os.environ.get("SCALE_POINTS", "100x100,1000x100,10000x100,3334x300,100000x10")
RATE = float(os.environ.get("SCALE_RATE", "40"))  # requests/s, retrievals and direct together
REQUESTS = int(os.environ.get("SCALE_REQUESTS", "600"))  # retrievals (and as many direct)
CPU_BLOCK = int(os.environ.get("SCALE_CPU_BLOCK", "400"))
PROBES = int(os.environ.get("SCALE_PROBES", "500"))  # questions searched from pymilvus
INDEX_AT = int(os.environ.get("SCALE_INDEX_AT", "1000000"))
JITTER_COSINE = 0.95
COLLECTION = "scale_memories"
BATCH = 5000
DIMENSION = 384
PLOT = Path("bench/scale.png")

# (kind, build parameters, search parameters): what Milvus 2.3 standalone offers on CPU.
# The product's (FLAT) last: the sweep then adds a Trie index on user_id to it, and searches it
# once with the partition key unused (what a search costs when every row must be filtered).
INDEXES: list[tuple[str, dict[str, int], dict[str, int]]] = [
    ("HNSW", {"M": 16, "efConstruction": 200}, {"ef": 64}),  # the default until make scale
    ("HNSW", {"M": 8, "efConstruction": 64}, {"ef": 32}),
    ("IVF_FLAT", {"nlist": 1024}, {"nprobe": 32}),
    ("IVF_SQ8", {"nlist": 1024}, {"nprobe": 32}),
    ("FLAT", {}, {}),
]
UNPRUNED = ' or content_hash == "-"'  # matches no row, but stops partition-key pruning


@dataclass(frozen=True)
class Point:
    users: int
    per_user: int

    @classmethod
    def parse(cls, text: str) -> Point:
        users, _, per_user = text.strip().partition("x")
        if not (users.isdigit() and per_user.isdigit() and int(users) and int(per_user)):
            raise ValueError(f"not USERSxPER_USER: {text!r}")
        return cls(int(users), int(per_user))

    @property
    def memories(self) -> int:
        return self.users * self.per_user


def jitter(base: np.ndarray, rng: np.random.Generator, cosine: float) -> np.ndarray:
    """Unit rows near ``base`` rows (unit too): Gaussian noise scaled so that each row's
    expected cosine with its base is ``cosine`` (noise of norm r at right angles: 1/√(1+r²))."""
    sigma = math.sqrt((1 / cosine**2 - 1) / base.shape[1])
    rows = base + rng.standard_normal(base.shape, dtype=np.float32) * np.float32(sigma)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def user_memories(
    user: int, facts: int, per_user: int, base: np.ndarray
) -> tuple[list[int], np.ndarray]:
    """The facts one user holds and their vectors: the same on every call (seeded by user)."""
    rng = np.random.default_rng(user)
    owned = rng.choice(facts, size=per_user, replace=False).tolist()
    return owned, jitter(base[owned], rng, JITTER_COSINE)


def exact_top_k(query: np.ndarray, vectors: np.ndarray, k: int) -> list[int]:
    """Rows of ``vectors`` (unit) nearest ``query`` by cosine, best first: the ground truth."""
    scores = vectors @ (query / np.linalg.norm(query))
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


def recall_at_k(found: list[str], exact: list[str]) -> float:
    """Share of the exact top k that the index returned (order ignored)."""
    return len(set(found) & set(exact)) / len(exact) if exact else 1.0


def user_name(index: int) -> str:
    return f"scale-user-{index:06d}"


async def load(uri: str, point: Point, facts: Facts) -> float:
    """Insert through the product's store, flush, wait for the index; returns the seconds."""
    started = time.monotonic()
    store = MilvusStore(uri, COLLECTION, DIMENSION)
    await store.start()
    if not await store.wait_available(120):
        sys.exit("Milvus did not come up")
    batch: list[tuple[Memory, np.ndarray]] = []
    for user in range(point.users):
        owned, vectors = facts.of(user, point.per_user)
        name = user_name(user)
        for index, vector in zip(owned, vectors, strict=True):
            batch.append((Memory.new(name, facts.pairs[index][0], source="scale"), vector))
        if len(batch) >= BATCH:
            await store.store_many(batch, wait_visible=False)
            batch = []
        if user % max(1, point.users // 10) == 0:
            print(f"  {user * point.per_user:,} memories in", flush=True)
    await store.store_many(batch)
    await store.close()
    client = MilvusClient(uri=uri)
    client.flush(COLLECTION)
    wait_indexed(client, COLLECTION, point.memories)
    client.close()
    return time.monotonic() - started


@dataclass(frozen=True)
class Facts:
    """The distinct facts (fact, question) and their real vectors, embedded once per run."""

    pairs: list[tuple[str, str]]
    vectors: np.ndarray

    def of(self, user: int, per_user: int) -> tuple[list[int], np.ndarray]:
        return user_memories(user, len(self.pairs), per_user, self.vectors)


@dataclass
class Probe:
    user: int
    fact: int
    vector: np.ndarray  # the question, embedded as the processor embeds it


def probes(point: Point, facts: Facts, rng: random.Random) -> list[Probe]:
    """PROBES real questions of random users about one of their facts, embedded for real."""
    embedder = build_embedder(config_module.load(None))
    questions = Questions(rng)
    chosen = []
    for _ in range(PROBES):
        user = rng.randrange(point.users)
        owned, _ = facts.of(user, point.per_user)
        chosen.append((user, rng.choice(owned)))
    texts = [in_memory_voice(questions.ask(facts.pairs[fact][1])) for _, fact in chosen]
    vectors = embedder.embed(texts)
    return [Probe(u, f, v) for (u, f), v in zip(chosen, vectors, strict=True)]


def search_probes(
    client: MilvusClient,
    found: list[Probe],
    point: Point,
    facts: Facts,
    params: dict[str, int],
    widen: str = "",
) -> dict[str, float]:
    """One search at a time, as the processor asks: latency, recall@5, questions answered.
    ``widen`` is appended to the filter."""
    limit = RetrievalPolicy().ranking.candidate_limit(RetrievalPolicy().limit)
    latencies, recalls, hits = [], [], 0
    for warm in (True, False):
        for probe in found[:20] if warm else found:
            scope = filters.user_scope(user_name(probe.user), alive_at=now_ms())
            started = time.perf_counter()
            (rows,) = client.search(
                COLLECTION,
                data=[probe.vector.tolist()],
                filter=f"({scope}){widen}" if widen else scope,
                limit=limit,
                output_fields=SEARCH_FIELDS,
                search_params={"metric_type": "IP", "params": params},
                consistency_level="Eventually",
            )
            if warm:
                continue
            latencies.append(time.perf_counter() - started)
            owned, vectors = facts.of(probe.user, point.per_user)
            exact = [facts.pairs[owned[i]][0] for i in exact_top_k(probe.vector, vectors, 5)]
            top = [row["entity"]["content"] for row in rows[:5]]
            recalls.append(recall_at_k(top, exact))
            hits += facts.pairs[probe.fact][0] in top
    return {
        "search_p50_ms": percentile(latencies, 50),
        "search_p99_ms": percentile(latencies, 99),
        "recall_at_5": statistics.fmean(recalls),
        "question_hit_at_5": hits / len(found),
    }


def start_milvus(data_dir: Path) -> tuple[MilvusProcess, float]:
    """Milvus on ``data_dir``, and the seconds until its collection is loaded and answers."""
    started = time.monotonic()
    milvus = MilvusProcess(data_dir, free_port())
    milvus.wait_ready()
    client = MilvusClient(uri=milvus.uri)
    if client.has_collection(COLLECTION):
        client.load_collection(COLLECTION)
        client.query(COLLECTION, filter='user_id == "none"', limit=1, consistency_level="Strong")
    client.close()
    return milvus, time.monotonic() - started


async def measure(point: Point, facts: Facts, workdir: Path, *, indexes: bool) -> dict[str, Any]:
    print(f"\n{point.memories:,} memories ({point.users:,} users x {point.per_user}) …")
    folder = workdir / f"{point.users}x{point.per_user}"
    data_dir = folder / "milvus"
    milvus, _ = await asyncio.to_thread(start_milvus, data_dir)
    parts: list[Any] = [milvus]
    rng = random.Random(point.memories + point.users)
    try:
        load_s = await load(milvus.uri, point, facts)
        print(f"  loaded and indexed in {load_s:.0f} s; restarting Milvus …", flush=True)
        milvus.stop()
        parts.remove(milvus)
        milvus, startup_s = await asyncio.to_thread(start_milvus, data_dir)
        parts.append(milvus)
        client = MilvusClient(uri=milvus.uri)
        partitions = client.describe_collection(COLLECTION).get("num_partitions")
        found = await asyncio.to_thread(probes, point, facts, rng)
        search = await asyncio.to_thread(search_probes, client, found, point, facts, {})
        rss = session_rss_mb(milvus._process.proc.pid)
        print(f"  start-up {startup_s:.1f} s, Milvus {rss:.0f} MB, search p50 "
              f"{search['search_p50_ms']:.2f} ms, recall@5 {search['recall_at_5']:.3f}, "
              f"questions found {search['question_hit_at_5']:.3f}", flush=True)  # fmt: skip

        identity = DevIdentity(folder / "identity")
        stack = await start_stack(folder, milvus.port, COLLECTION, identity, parts)
        world = World(
            users=[user_name(u) for u in range(point.users)],
            facts=facts.pairs,
            owned={user_name(u): facts.of(u, point.per_user)[0] for u in range(point.users)},
            tokens={},
            questions=Questions(rng),
            rng=rng,
            identity=identity,
        )
        async with aiohttp.ClientSession() as http:
            await drive(http, stack.urls, world, ["retrieval", "direct"] * 50, Samples())
            plan = [
                kind for _ in range(REQUESTS) for kind in rng.sample(["retrieval", "direct"], 2)
            ]
            samples = Samples()
            await drive(http, stack.urls, world, plan, samples, rate=RATE)
            main = stack.gateway.processor._process.proc.pid
            cpu_before = process_cpu_seconds(main)
            milvus_before = session_cpu_seconds(milvus._process.proc.pid)
            await drive(http, stack.urls, world, ["retrieval"] * CPU_BLOCK, Samples())
            processor_cpu = (process_cpu_seconds(main) - cpu_before) / CPU_BLOCK * 1000
            milvus_cpu = (
                (session_cpu_seconds(milvus._process.proc.pid) - milvus_before) / CPU_BLOCK * 1000
            )
        lat = samples.latency
        result = {
            "memories": point.memories,
            "users": point.users,
            "memories_per_user": point.per_user,
            "retrieval_added_p50_ms": round(
                percentile(lat["retrieval"], 50) - percentile(lat["direct"], 50), 2
            ),
            "retrieval_added_p99_ms": round(
                percentile(lat["retrieval"], 99) - percentile(lat["direct"], 99), 2
            ),
            "processor_cpu_ms": round(processor_cpu, 2),
            "milvus_cpu_ms": round(milvus_cpu, 2),
            "milvus_search_ms": round(search["search_p50_ms"], 2),
            "milvus_search_p99_ms": round(search["search_p99_ms"], 2),
            "milvus_rss_mb": round(session_rss_mb(milvus._process.proc.pid)),
            "index_recall_at_5": round(search["recall_at_5"], 4),
            "question_hit_at_5": round(search["question_hit_at_5"], 3),
            "injected_share": round(
                samples.injected["retrieval"] / max(1, samples.asked["retrieval"]), 3
            ),
            "load_seconds": round(load_s, 1),
            "startup_seconds": round(startup_s, 1),
            "partitions": partitions,
        }
        print("  " + json.dumps(result), flush=True)
        for part in reversed(parts[1:]):
            part.stop()
        del parts[1:]
        if indexes:
            result["indexes"] = await asyncio.to_thread(sweep, client, milvus, found, point, facts)
        client.close()
        return result
    finally:
        for part in reversed(parts):
            part.stop()
        shutil.rmtree(folder, ignore_errors=True)


def sweep(
    client: MilvusClient,
    milvus: MilvusProcess,
    found: list[Probe],
    point: Point,
    facts: Facts,
) -> list[dict[str, Any]]:
    """Every index kind on the same rows: build seconds, Milvus memory, latency, recall."""
    rows = []

    def measured(name: str, build: dict[str, int], params: dict[str, int], built: float,
                 widen: str = "") -> None:  # fmt: skip
        search = search_probes(client, found, point, facts, params, widen)
        row = {
            "index": name,
            "build": build,
            "search": params,
            "build_and_load_seconds": round(built, 1),
            "milvus_rss_mb": round(session_rss_mb(milvus._process.proc.pid)),
            "search_p50_ms": round(search["search_p50_ms"], 2),
            "search_p99_ms": round(search["search_p99_ms"], 2),
            "recall_at_5": round(search["recall_at_5"], 4),
            "question_hit_at_5": round(search["question_hit_at_5"], 3),
        }
        print("  index " + json.dumps(row), flush=True)
        rows.append(row)

    for kind, build, params in INDEXES:
        client.release_collection(COLLECTION)
        client.drop_index(COLLECTION, "embedding")
        index = MilvusClient.prepare_index_params()
        index.add_index(field_name="embedding", index_type=kind, metric_type="IP",
                        params=build)  # fmt: skip
        started = time.monotonic()
        client.create_index(COLLECTION, index)
        wait_indexed(client, COLLECTION, point.memories)
        client.load_collection(COLLECTION)
        measured(kind, build, params, time.monotonic() - started)
    kind, build, params = INDEXES[-1]
    measured(f"{kind}, partition key unused", build, params, 0.0, UNPRUNED)
    client.release_collection(COLLECTION)
    index = MilvusClient.prepare_index_params()
    index.add_index(field_name="user_id", index_type="Trie", index_name="user_id")
    started = time.monotonic()
    client.create_index(COLLECTION, index)
    wait_indexed(client, COLLECTION, point.memories, "user_id")
    client.load_collection(COLLECTION)
    measured(f"{kind} + Trie on user_id", build, params, time.monotonic() - started)
    measured(f"{kind} + Trie on user_id, partition key unused", build, params, 0.0, UNPRUNED)
    return rows


def plot(points: list[dict[str, Any]], path: Path) -> None:
    """Latency and Milvus memory against memories (log), and the index kinds side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (latency, memory, kinds) = plt.subplots(1, 3, figsize=(16, 4.6))
    common = statistics.mode(p["memories_per_user"] for p in points)
    curve = sorted((p for p in points if p["memories_per_user"] == common),
                   key=lambda p: p["memories"])  # fmt: skip
    others = [p for p in points if p["memories_per_user"] != common]
    series = [
        (latency, "retrieval_added_p50_ms", "tab:blue", "retrieval added p50"),
        (latency, "retrieval_added_p99_ms", "tab:red", "retrieval added p99"),
        (latency, "milvus_search_ms", "tab:green", "Milvus search p50 (client)"),
        (memory, "milvus_rss_mb", "tab:purple", "Milvus resident MB"),
        (memory, "load_seconds", "tab:orange", "insert + index seconds"),
    ]
    for axis, key, color, label in series:
        axis.plot([p["memories"] for p in curve], [p[key] for p in curve], "-o", color=color,
                  label=f"{label}, {common}/user")  # fmt: skip
        for other, shape in zip(others, "sD^v", strict=False):
            axis.plot(other["memories"], other[key], shape, color=color, fillstyle="none",
                      label=f"{label}, {other['memories_per_user']}/user")  # fmt: skip
    for axis, title in ((latency, "latency (ms)"), (memory, "Milvus memory and load time")):
        axis.set_xscale("log")
        axis.set_xlabel("memories in the collection")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=6.5)
    memory.set_yscale("log")
    swept = next((p for p in points if "indexes" in p), None)
    if swept:
        rows = swept["indexes"]
        names = [row["index"] + " " + ",".join(f"{k}={v}" for k, v in row["build"].items())
                 for row in rows]  # fmt: skip
        y = range(len(rows))
        kinds.barh(y, [row["search_p50_ms"] for row in rows], color="tab:green")
        for i, row in enumerate(rows):
            built = row["build_and_load_seconds"]
            kinds.text(row["search_p50_ms"], i, f" recall {row['recall_at_5']:.3f}, "
                       f"{row['milvus_rss_mb']} MB" + (f", build {built:.0f} s" if built else ""),
                       va="center", fontsize=7)  # fmt: skip
        kinds.set_yticks(list(y), names, fontsize=7)
        kinds.invert_yaxis()
        kinds.set_xlim(0, max(row["search_p50_ms"] for row in rows) * 2.2)
        kinds.set_xlabel("Milvus search p50 (ms)")
        kinds.set_title(f"index kinds at {swept['memories']:,} memories")
    fig.suptitle("make scale: Envoy -> memory-extproc -> Milvus standalone, one 2-core machine")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def save(results: list[dict[str, Any]]) -> None:
    out = Path("bench/results")
    out.mkdir(parents=True, exist_ok=True)
    (out / f"scale-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(
        json.dumps({"points": results}, indent=2)
    )


async def main() -> None:
    points = [Point.parse(p) for p in POINTS.split(",") if p.strip()]
    pairs = facts_and_questions()
    print(f"embedding {len(pairs)} distinct facts (memory voice) …", flush=True)
    facts = Facts(pairs, embed_facts([fact for fact, _ in pairs]))
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-scale-"))
    started = time.monotonic()
    results: list[dict[str, Any]] = []
    for point in points:
        swept = any("indexes" in r for r in results)
        indexes = point.memories >= INDEX_AT and not swept
        results.append(await measure(point, facts, workdir, indexes=indexes))
        print(f"  ({(time.monotonic() - started) / 60:.1f} min so far)", flush=True)
    plot(results, PLOT)
    save(results)
    print(f"\nplot: {PLOT}; took {(time.monotonic() - started) / 60:.1f} min")
    print(json.dumps({"points": results}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--plot"]:  # redraw from a saved run: --plot bench/results/scale-….json
        plot(json.loads(Path(sys.argv[2]).read_text())["points"], PLOT)
    else:
        run_harness(main)
