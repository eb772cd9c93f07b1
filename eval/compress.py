"""`make compress`: what a compressed request costs and what its answer loses, through the
product as users run it (Envoy, the processor, its worker, Milvus, the local model learning).

**LoCoMo** (``COMPRESS_SLICES``, default ``conv-26:11``: the first 11 sessions, 232 turns): one
conversation sent as clients send it, the whole history with every request, speaker A the user
and B the assistant, session after session (the first message of a session says its date, as
the history's only clock). A stand-in LLM replays B's next line and records what it received.
Then each question whose evidence lies in those sessions is asked at the end of the same
conversation, as sent (``history``) and with ``"memory_config": {"compress": true}`` at each
lever point (``LEVERS``: raw turns kept, quoted tokens, memories on or off; each point a
processor started with its settings). Per question: tokens the client sent and the LLM
received (characters / 4, a CJK character one), answer recall (the share of the gold answer's
content in what the LLM received, the question left out), whether the evidence turn reached it.

**PrefEval** (explicit form, development topics, ``COMPRESS_PREFERENCES`` items, 6 by default,
notes mode): a preference said at the start, then 40, 120 or 300 unrelated turns
(``inter_turns.json``), then the request it bears on, compressed. Carried: the preference's
content is in what the LLM received (outside the request itself).

Prints a table, writes eval/results/compress-*.json and eval/compress.png (answer recall against
tokens received, per lever point), and last one JSON line: ``token_ratio`` (median received /
history tokens), ``answer_recall_ratio`` (compressed / history), ``evidence_reached``,
``preference_carried``, ``question_intact``, ``system_kept``, ``non_2xx``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from devstack.gateway import Gateway
from devstack.local_llm import LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply
from devstack.ports import free_port
from devstack.process import run_harness
from devstack.processor import write_config
from devstack.tokens import DevIdentity
from eval import replay
from eval.__main__ import extracted
from eval.answer_recall import available, content
from eval.locomo import CATEGORIES, SESSION_END_ANSWER, session_date
from eval.progress import Progress
from memory_extproc.compression.plan import tokens
from prefeval.data import PREFEVAL, chats_between, load_form

SLICES = os.environ.get("COMPRESS_SLICES", "conv-26:11")
LEARNING = os.environ.get("COMPRESS_LEARNING", "llm")  # or notes: no model, quicker
PREFERENCES = int(os.environ.get("COMPRESS_PREFERENCES", "6"))
DISTANCES = (40, 120, 300)  # unrelated turns between a preference and its request
SYSTEM = "You are a warm, attentive friend of the user. Keep answers short."
_DIA = re.compile(r"D(\d+):(\d+)")


@dataclass(frozen=True)
class Lever:
    name: str
    keep_turns: int
    quote_tokens: int
    memories: bool = True
    state_words: int = 150


DEFAULT = Lever("default", 4, 800)
LEVERS = (
    DEFAULT,
    Lever("no memories", 4, 800, memories=False),
    Lever("no state", 4, 800, state_words=0),
    Lever("no quotes", 4, 0),
    Lever("quotes 400", 4, 400),
    Lever("quotes 1200", 4, 1200),
    Lever("keep 8", 8, 800),
    Lever("keep 2", 2, 800),
)


@dataclass(frozen=True)
class Chat:
    date: str  # the session's, ISO
    messages: list[dict[str, str]]  # the history, ending with the user's message
    answer: str  # B's line: what the stand-in LLM replays


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    evidence: tuple[str, ...]  # the evidence turns' texts


@dataclass
class Received:
    """What one question's request carried and what the LLM got."""

    sent_tokens: int
    received_tokens: int
    recall: float  # share of the gold answer's content in what the LLM received
    evidence: bool  # every evidence turn's text reached it
    intact: bool  # the question arrived byte-exact, last
    system_kept: bool
    receipt: str
    ms: float = 0.0  # the request's time through the stack, as the client saw it


@dataclass
class Arm:
    lever: str
    compressed: bool
    received: list[Received] = field(default_factory=list)


def conversation(sample: dict[str, Any], sessions: int) -> list[Chat]:
    """Speaker A's requests, each with the whole history so far (every session one
    conversation), the first message of a session saying its date."""
    user = sample["conversation"]["speaker_a"]
    history: list[dict[str, str]] = [{"role": "system", "content": SYSTEM}]
    chats = []
    for session in replay.sessions(sample)[:sessions]:
        dated = False
        for turn in session.turns:
            role = "user" if turn["speaker"] == user else "assistant"
            if role == "assistant" and history[-1]["role"] == "user":
                chats.append(Chat(session_date(session.date_time), list(history), turn["text"]))
            text = turn["text"]
            if role == "user" and not dated:
                text, dated = f"[{session.date_time}] {text}", True
            history.append({"role": role, "content": text})
        if history[-1]["role"] == "user":
            chats.append(Chat(session_date(session.date_time), list(history), SESSION_END_ANSWER))
            history.append({"role": "assistant", "content": SESSION_END_ANSWER})
    return chats


def questions(sample: dict[str, Any], sessions: int) -> list[Question]:
    """Categories 1-4 whose evidence lies in the first ``sessions``, as LoCoMo asks them."""
    texts = {t["dia_id"]: t["text"] for s in replay.sessions(sample) for t in s.turns}
    found = []
    for qa in sample["qa"]:
        ids = [m.group(0) for e in qa.get("evidence", []) for m in _DIA.finditer(e)]
        if int(qa["category"]) not in CATEGORIES or not ids:
            continue
        if all(int(_DIA.match(i).group(1)) <= sessions for i in ids):  # type: ignore[union-attr]
            evidence = tuple(texts[i] for i in ids if i in texts)
            found.append(Question(qa["question"], str(qa.get("answer", "")), evidence))
    return found


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def message_texts(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content") or "") for m in body.get("messages", [])]


def measured(sent: bytes, received: bytes, question: Question, receipt: str) -> Received:
    asked, got = orjson.loads(sent), orjson.loads(received)
    sent_texts, got_texts = message_texts(asked), message_texts(got)
    last = asked["messages"][-1]
    before_question = "\n".join(got_texts[:-1])  # what the LLM got besides the question
    wanted = content(question.answer)
    offered = available(before_question)
    recall = len(wanted & offered) / len(wanted) if wanted else 0.0
    flat = _norm(before_question)
    return Received(
        sent_tokens=sum(tokens(t) for t in sent_texts),
        received_tokens=sum(tokens(t) for t in got_texts),
        recall=recall,
        evidence=all(_norm(e) in flat for e in question.evidence),
        intact=got["messages"][-1] == last and orjson.dumps(last) in received,
        system_kept=orjson.dumps(asked["messages"][0]) in received,
        receipt=receipt,
    )


async def post(
    http: aiohttp.ClientSession, stack: Gateway, token: str, body: bytes, date: str = ""
) -> tuple[int, str]:
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    if date:
        headers["x-memory-date"] = date
    async with http.post(stack.chat_url, data=body, headers=headers) as response:
        await response.read()
        return response.status, response.headers.get("x-memory-receipt", "")


async def replay_chats(
    http: aiohttp.ClientSession, stack: Gateway, llm: MockLLM, token: str, chats: list[Chat],
    progress: Progress,
) -> int:  # fmt: skip
    failed = 0
    for done, chat in enumerate(chats, 1):
        progress.update(done)
        llm.script(Reply(text=chat.answer))
        # as a client that compresses sends it: the conversation's running state is kept
        body = orjson.dumps({"model": "companion", "messages": chat.messages,
                             "memory_config": {"compress": True}})  # fmt: skip
        status, _ = await post(http, stack, token, body, chat.date)
        failed += status != 200
    return failed


async def ask(
    http: aiohttp.ClientSession, stack: Gateway, llm: MockLLM, token: str,
    history: list[dict[str, str]], question: Question, *, compress: bool, memories: bool,
) -> tuple[Received | None, int]:  # fmt: skip
    llm.script(Reply(text="ok"))
    config: dict[str, Any] = {"auto_store": False, "compress": compress}
    if not memories:  # searched (its vector picks the quotes), nothing passes
        config["similarity_threshold"] = 1.0
    messages = [*history, {"role": "user", "content": question.text}]
    body = orjson.dumps({"model": "companion", "messages": messages, "memory_config": config})
    before = len(llm.recorded)
    started = time.perf_counter()
    status, receipt = await post(http, stack, token, body)
    took = (time.perf_counter() - started) * 1000
    if status != 200:
        return None, status
    (received,) = [r for r in llm.recorded[before:] if "x-request-id" in r.headers]
    sent = orjson.dumps({"model": "companion", "messages": messages})
    got = measured(sent, received.body, question, receipt)
    got.ms = took
    return got, status


def settings(milvus: MilvusProcess, local: LocalLlmProcess | None, lever: Lever,
             collection: str) -> dict[str, Any]:  # fmt: skip
    memory: dict[str, Any] = {
        "milvus": {"address": f"127.0.0.1:{milvus.port}", "collection": collection},
        "extraction": {"queue_size": 100_000, "concurrency": 1, "idle_flush_seconds": 2,
                       "drain_seconds": 600, "job_timeout_seconds": 600},
        "compression": {"keep_turns": lever.keep_turns, "quote_tokens": lever.quote_tokens,
                        "state_words": lever.state_words},
    }  # fmt: skip
    if local is not None:
        memory["external_models"] = [local.endpoint()]
    return memory


async def with_lever(stack: Gateway, memory: dict[str, Any]) -> None:
    """A new processor with these settings, behind the same Envoy, on the same state."""
    await asyncio.to_thread(stack.stop_processor)
    stack.settings["memory"] = {**stack.settings["memory"], **memory,
                                "extraction": stack.settings["memory"]["extraction"]}  # fmt: skip
    write_config(stack.config_path, stack.settings)
    await asyncio.to_thread(stack.start_processor)


async def locomo_part(
    milvus: MilvusProcess, local: LocalLlmProcess | None, llm: MockLLM, identity: DevIdentity,
    workdir: Path,
) -> dict[str, Any]:  # fmt: skip
    samples = {s["sample_id"]: s for s in replay.load_samples()}
    arms: dict[str, list[Arm]] = {}
    timing: dict[str, Any] = {}
    non_2xx = 0
    for name, count in (p.split(":") for p in SLICES.split(",")):
        sample, sessions = samples[name], int(count)
        chats, asked = conversation(sample, sessions), questions(sample, sessions)
        history = [*chats[-1].messages, {"role": "assistant", "content": chats[-1].answer}]
        token = identity.token(f"compress-{name}")
        collection = f"compress_{name.replace('-', '_')}"
        stack = Gateway(workdir / name, settings(milvus, local, DEFAULT, collection), llm.port,
                        identity)  # fmt: skip
        try:
            await asyncio.to_thread(stack.wait_ready)
            async with aiohttp.ClientSession() as http:
                started = time.perf_counter()
                print(f"[{name}] {len(chats)} requests, {len(history)} messages …", flush=True)
                non_2xx += await replay_chats(http, stack, llm, token, chats,
                                              Progress(f"{name} chats", len(chats)))  # fmt: skip
                per_job, job_seconds = await extracted(http, stack, name)
                timing[name] = {"turns": sum(1 for m in history if m["role"] != "system"),
                                "replay_and_learning_s": round(time.perf_counter() - started, 1),
                                "seconds_per_job": per_job, "job_seconds": job_seconds}  # fmt: skip
                found = [Arm("history", False)]
                found += [Arm(lever.name, True) for lever in LEVERS]
                for arm in found:
                    lever = next((v for v in LEVERS if v.name == arm.lever), DEFAULT)
                    if arm.compressed:
                        await with_lever(stack, settings(milvus, local, lever, collection))
                    for question in asked:
                        got, status = await ask(
                            http,
                            stack,
                            llm,
                            token,
                            history,
                            question,
                            compress=arm.compressed,
                            memories=lever.memories,
                        )
                        non_2xx += status != 200  # fmt: skip
                        if got is not None:
                            arm.received.append(got)
                    print(f"[{name}] {arm.lever}: {summary_of(arm)}", flush=True)
                arms[name] = found
        finally:
            await asyncio.to_thread(stack.stop)
    return {"arms": arms, "timing": timing, "non_2xx": non_2xx}


def summary_of(arm: Arm) -> dict[str, Any]:
    got = arm.received
    if not got:
        return {}
    return {
        "questions": len(got),
        "tokens_sent_median": statistics.median(r.sent_tokens for r in got),
        "tokens_received_median": statistics.median(r.received_tokens for r in got),
        "token_ratio": round(statistics.median(r.received_tokens / r.sent_tokens for r in got), 3),
        "answer_recall": round(statistics.fmean(r.recall for r in got), 3),
        "evidence_reached": round(statistics.fmean(r.evidence for r in got), 3),
        "question_intact": round(statistics.fmean(r.intact for r in got), 3),
        "system_kept": round(statistics.fmean(r.system_kept for r in got), 3),
        "compressed": round(statistics.fmean("=compressed" in r.receipt for r in got), 3),
        "latency_p50_ms": round(statistics.median(r.ms for r in got), 2),
    }


async def preference_part(
    milvus: MilvusProcess, llm: MockLLM, identity: DevIdentity, workdir: Path
) -> dict[str, Any]:
    """Each item a user of its own: the preference, ``distance`` unrelated turns, the request."""
    topics = load_form(PREFEVAL, "explicit")
    items = [(topic, records[0]) for topic, records in sorted(topics.items())][:PREFERENCES]
    between = orjson.loads((PREFEVAL / "inter_turns.json").read_bytes())
    stack = Gateway(workdir / "prefeval", settings(milvus, None, DEFAULT, "compress_prefeval"),
                    llm.port, identity)  # fmt: skip
    rows = []
    non_2xx = 0
    try:
        await asyncio.to_thread(stack.wait_ready)
        async with aiohttp.ClientSession() as http:
            for k, (topic, record) in enumerate(items):
                distance = DISTANCES[k % len(DISTANCES)]
                token = identity.token(f"compress-pref-{k}")
                chats = [(record["preference"], "Thanks for letting me know, I'll keep that in "
                          "mind.")]  # fmt: skip
                for chat in chats_between(between, k, distance):
                    chats += chat
                history: list[dict[str, str]] = [{"role": "system", "content": SYSTEM}]
                for said, answered in chats:
                    history.append({"role": "user", "content": said})
                    llm.script(Reply(text=answered))
                    body = orjson.dumps({"model": "companion", "messages": history,
                                         "memory_config": {"compress": True}})  # fmt: skip
                    status, _ = await post(http, stack, token, body)
                    non_2xx += status != 200
                    history.append({"role": "assistant", "content": answered})
                await _learned(http, stack)
                question = Question(record["question"], record["preference"], ())
                got, status = await ask(http, stack, llm, token, history, question,
                                        compress=True, memories=True)  # fmt: skip
                non_2xx += status != 200
                if got is not None:
                    rows.append({
                        "topic": topic, "distance": distance, "carried": got.recall >= 0.8,
                        "recall": round(got.recall, 3), "received_tokens": got.received_tokens,
                        "sent_tokens": got.sent_tokens, "receipt": got.receipt,
                    })  # fmt: skip
                    print(f"[prefeval] {topic} after {distance} turns: carried "
                          f"{got.recall >= 0.8} ({got.received_tokens}/{got.sent_tokens} "
                          "tokens)", flush=True)  # fmt: skip
    finally:
        await asyncio.to_thread(stack.stop)
    return {"rows": rows, "non_2xx": non_2xx}


def mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


async def _learned(http: aiohttp.ClientSession, stack: Gateway) -> None:
    await extracted(http, stack, "prefeval")


def plot(levers: dict[str, dict[str, Any]], path: Path) -> None:
    """Answer recall against tokens received: a colour per lever point, a marker per
    conversation; the whole history is the grey point of each. ``levers``: each
    "conversation:lever" row of the results file (``python -m eval.compress --plot FILE``
    draws it again)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(8, 4.8))
    names = ["history", *(lever.name for lever in LEVERS)]
    palette = [c for i, c in enumerate(pyplot.get_cmap("tab10").colors) if i != 7]  # not grey
    colours = dict(zip(names, ["#888", *palette], strict=False))
    conversations = list(dict.fromkeys(key.split(":")[0] for key in levers))
    markers = dict(zip(conversations, "osD^vP", strict=False))
    for key, row in sorted(levers.items(), key=lambda kv: kv[0].endswith(DEFAULT.name)):
        name, lever = key.split(":", 1)
        default = lever == DEFAULT.name
        if row:
            axes.scatter(row["tokens_received_median"], row["answer_recall"],
                         s=90 if default else 40, color=colours[lever], marker=markers[name],
                         zorder=3 if default else 2)  # fmt: skip
    for lever in names:
        axes.scatter([], [], color=colours[lever], label=lever)
    for name, marker in markers.items():
        axes.scatter([], [], color="black", marker=marker, label=name)
    axes.set_xscale("log")
    axes.set_xlabel("tokens the LLM received (median per question, log scale)")
    axes.set_ylabel("answer recall (share of the gold answer in it)")
    axes.set_ylim(0, 1)
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    axes.set_title("What a compressed request costs and what it loses (make compress)")
    figure.savefig(path, dpi=110, bbox_inches="tight")


async def main() -> int:
    if not replay.LOCOMO.exists():
        message = f"LoCoMo data not found at {replay.LOCOMO} (set LOCOMO_PATH)"
        print(message)
        print(json.dumps({"skipped": message}))
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-compress-"))
    identity = DevIdentity(workdir / "identity")
    llm = MockLLM()
    await llm.start()
    milvus = MilvusProcess(workdir / "milvus", free_port())
    local = LocalLlmProcess(free_port(), workdir / "local-llm.log") if LEARNING == "llm" else None
    try:
        await asyncio.to_thread(milvus.wait_ready)
        if local is not None:
            await asyncio.to_thread(local.wait_ready)
        locomo = await locomo_part(milvus, local, llm, identity, workdir)
        if local is not None:
            local.stop()
            local = None
        preferences = await preference_part(milvus, llm, identity, workdir) if PREFERENCES else {}
    finally:
        if local is not None:
            local.stop()
        milvus.stop()
        await llm.stop()
    return report(locomo, preferences, workdir)


def report(locomo: dict[str, Any], preferences: dict[str, Any], workdir: Path) -> int:
    arms: dict[str, list[Arm]] = locomo["arms"]
    detail: dict[str, Any] = {"timing": locomo["timing"], "levers": {}}
    print(f"\n{'conversation':<10} {'arm':<22} {'n':>3} {'sent':>6} {'recv':>6} {'ratio':>6} "
          f"{'recall':>6} {'evid.':>6} {'compr.':>6}")  # fmt: skip
    for name, found in arms.items():
        for arm in found:
            row = summary_of(arm)
            detail["levers"][f"{name}:{arm.lever}"] = row
            if row:
                print(f"{name:<10} {arm.lever:<22} {row['questions']:>3} "
                      f"{row['tokens_sent_median']:>6.0f} {row['tokens_received_median']:>6.0f} "
                      f"{row['token_ratio']:>6.3f} {row['answer_recall']:>6.3f} "
                      f"{row['evidence_reached']:>6.3f} {row['compressed']:>6.3f}")  # fmt: skip
    pairs = [
        (found[0], next(a for a in found if a.lever == DEFAULT.name)) for found in arms.values()
    ]
    history = [r for h, _ in pairs for r in h.received]
    compressed = [r for _, c in pairs for r in c.received]
    rows = preferences.get("rows", [])
    history_recall = mean([r.recall for r in history])
    compressed_recall = mean([r.recall for r in compressed])
    summary = {
        "token_ratio": median([r.received_tokens / r.sent_tokens for r in compressed]),
        "answer_recall_history": history_recall,
        "answer_recall_compressed": compressed_recall,
        "answer_recall_ratio": round(compressed_recall / history_recall, 3)
        if compressed_recall is not None and history_recall else None,
        "evidence_reached": mean([float(r.evidence) for r in compressed]),
        "preference_carried": mean([float(r["carried"]) for r in rows]),
        "question_intact": all(r.intact for r in compressed + history),
        "system_kept": all(r.system_kept for r in compressed + history),
        "non_2xx": locomo["non_2xx"] + preferences.get("non_2xx", 0),
        "slices": SLICES,
        "learning": LEARNING,
    }  # fmt: skip
    results = Path("eval/results")
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"compress-{time.strftime('%Y%m%d-%H%M%S')}.json"
    detail["preferences"] = rows
    path.write_text(json.dumps({"summary": summary, **detail}, indent=2))
    plot(detail["levers"], Path("eval/compress.png"))
    print(f"(details in {path}, plot in eval/compress.png, logs in {workdir})")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--plot"]:  # the plot of a results file, drawn again
        plot(json.loads(Path(sys.argv[2]).read_text())["levers"], Path("eval/compress.png"))
        sys.exit(0)
    sys.exit(run_harness(main))
