"""`make prefeval`: does a preference said once shape the later requests it bears on?

PrefEval (Zhao et al., ICLR 2025; development topics in ../shared/data/prefeval or
PREFEVAL_PATH) through the product as users run it: Envoy, the processor, its worker, Milvus,
learning with the local model (``llm``) and without a model (``notes``). Each user is new and
holds five preferences, each revealed in one form (prefeval/data.py) in a conversation of its
own, every turn learned before the next; then each preference's open request ("Can you
recommend some cafes in San Francisco?") is asked in a new conversation — right away (T = 0)
and again after the user's unrelated chats (T = PREFEVAL_INTER, 10) — and the stand-in LLM
records what was injected. Last, the same user asks the generic requests (prefeval/generic.py)
that no preference bears on.

Per mode, form and T it prints what the question got (prefeval/score.py: its own preference,
only another one, only unrelated memories, nothing), hit@1, injected tokens, the share of items
learned and the seconds of learning per user; the share of generic requests given a memory;
then writes prefeval/results/*.json (every question's lines, every item's memories), a plot
(prefeval/prefeval.png) and, last, one JSON line.

PREFEVAL_MODES (llm,notes), PREFEVAL_FORMS (explicit,choice,persona), PREFEVAL_USERS (3 per
form), PREFEVAL_FIRST (the first item index, 0: tune on some items, confirm on others) and
PREFEVAL_INTER (10) make quicker or other runs.

PREFEVAL_LANG=zh (default en) runs it in Chinese, the explicit form only (the forms' default
then; asking for another form exits with an error): each item's preference and question are
translated at run time by the local model, which is started for it in any mode, and cached in a
git-ignored file (prefeval/translate.py; a translation of PrefEval is never committed either).
The unrelated chats and the generic requests stay English. Its results and plot are
prefeval/results/prefeval-zh-*.json and prefeval-zh.png (the English plot is kept); the JSON
line says ``lang`` and how many texts stayed English (``untranslated``). PREFEVAL_LANG=en-zh
says each preference in English and asks its question in Chinese, zh-en the other way round.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from devstack.gateway import Gateway
from devstack.local_llm import MODEL_NAME, LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, memory_lines
from devstack.ports import free_port
from devstack.process import run_harness
from devstack.tokens import DevIdentity
from eval.progress import Progress
from eval.tokens import token_counter
from prefeval import score, translate
from prefeval.data import FORMS, PREFEVAL, User, load_form, users
from prefeval.generic import GENERIC_REQUESTS
from scenarios.runner import CHAT_MODEL, ChatAnswers, Run, memory_settings

MODES = {"llm": "real", "notes": "notes"}  # ours → the scenario runner's settings


def setting(name: str, default: str) -> str:
    return os.environ.get(f"PREFEVAL_{name}", default)


@dataclass
class UserRun:
    """One user's questions and what was learned from each of their items."""

    asked: list[score.Asked] = field(default_factory=list)
    learned: dict[str, list[str]] = field(default_factory=dict)  # item → its memories' texts
    held: dict[str, list[str]] = field(default_factory=dict)  # item → those held for review
    owners: dict[str, frozenset[str]] = field(default_factory=dict)  # memory id → items
    learning_s: float = 0.0
    generic_given: int = 0


async def listing(run: Run, user: str, status: str = "active") -> dict[str, tuple[str, str]]:
    """The user's active memories (or those held for review): id → (content, updated_at)."""
    found: dict[str, tuple[str, str]] = {}
    cursor = ""
    headers = {"authorization": f"Bearer {run.identity.token(user)}"}
    while True:
        url = f"{run.gateway.url}/v1/memory?limit=100&status={status}" + (
            f"&cursor={cursor}" if cursor else ""
        )
        async with run.http.get(url, headers=headers) as response:
            page = orjson.loads(await response.read())
        found |= {m["id"]: (m["content"], m["updated_at"]) for m in page["data"]}
        if not (cursor := page.get("next_cursor") or ""):
            return found


async def play(run: Run, user: str, conversation: tuple[tuple[str, str], ...]) -> None:
    """One conversation, as a client sends it (the history grows), each answer as given."""
    history: list[dict[str, str]] = []
    for said, answer in conversation:
        history.append({"role": "user", "content": said})
        run.answers.next = answer
        await run.chat(user, history)
        history.append({"role": "assistant", "content": answer})
    await run.learned()


async def ask(run: Run, llm: MockLLM, user: str, text: str) -> list[str]:
    """A new conversation that is not learned from; the memory lines the LLM was given."""
    run.answers.next = "ok"
    await run.chat(user, [{"role": "user", "content": text}], learn=False)
    return memory_lines(llm.recorded[-1].json)


async def play_user(run: Run, llm: MockLLM, user: User, inter: int, tokens: Any) -> UserRun:
    result = UserRun()
    owners: dict[str, set[str]] = defaultdict(set)
    seen: dict[str, str] = {}
    reviewed: set[str] = set()
    started = time.monotonic()
    for item in user.items:
        await play(run, user.name, item.conversation)
        held = await listing(run, user.name)
        touched = [i for i, (_, updated) in held.items() if seen.get(i) != updated]
        for memory_id in touched:
            owners[memory_id].add(item.key)
        result.learned[item.key] = [held[i][0] for i in touched]
        seen = {i: updated for i, (_, updated) in held.items()}
        pending = await listing(run, user.name, "pending")
        result.held[item.key] = [text for i, (text, _) in pending.items() if i not in reviewed]
        reviewed |= set(pending)
    result.learning_s = time.monotonic() - started
    result.owners = {i: frozenset(items) for i, items in owners.items()}
    for turns in (0, inter):
        if turns:
            for chat in user.between:
                await play(run, user.name, chat)
        held = await listing(run, user.name)
        contents = {i: content for i, (content, _) in held.items()}
        for item in user.items:
            lines = await ask(run, llm, user.name, item.question)
            mapped = [score.memory_of(line, contents) for line in lines]
            result.asked.append(
                score.Asked(
                    user.form, turns, user.name, item.key, tuple(lines),
                    tuple(result.owners.get(m, frozenset()) if m else frozenset() for m in mapped),
                    tokens("\n".join(lines)) if lines else 0,
                )
            )  # fmt: skip
    for request in GENERIC_REQUESTS:
        result.generic_given += bool(await ask(run, llm, user.name, request))
    return result


async def run_mode(
    mode: str, held: list[User], inter: int, workdir: Path, milvus: MilvusProcess,
    llm: MockLLM, local: LocalLlmProcess | None, identity: DevIdentity, tokens: Any,
) -> list[UserRun]:  # fmt: skip
    settings = memory_settings(MODES[mode], milvus.port, llm.port, local)
    settings["milvus"]["collection"] = f"prefeval_{mode}"
    gateway = Gateway(workdir / mode, settings, llm.port, identity)
    runs = []
    try:
        await asyncio.to_thread(gateway.wait_ready)
        async with aiohttp.ClientSession() as http:
            run = Run(gateway, http, identity, llm, llm_answers(llm))
            progress = Progress(f"{mode} users", len(held), every_s=0)
            for done, user in enumerate(held):
                progress.update(done)
                runs.append(await play_user(run, llm, user, inter, tokens))
            progress.update(len(held), force=True)
    finally:
        await asyncio.to_thread(gateway.stop)
    return runs


def llm_answers(llm: MockLLM) -> ChatAnswers:
    answers = ChatAnswers()
    llm.on_model(CHAT_MODEL, answers)
    return answers


_WIDTHS = (-6, -9, 3, 4, 9, 6, 6, 6, 7, 7, 8, 7)  # negative: left-aligned


def _row(cells: tuple[object, ...]) -> str:
    return " ".join(
        f"{cell!s:<{-w}}" if w < 0 else f"{cell!s:>{w}}"
        for cell, w in zip(cells, _WIDTHS, strict=True)
    )


def report(results: dict[str, list[UserRun]], inter: int) -> dict[str, Any]:
    """The table, and the summary (the JSON line)."""
    summary: dict[str, Any] = {}
    header = ("mode", "form", "T", "n", "injected", "hit@1", "wrong", "unrel.", "nothing", "tokens")
    print("\n" + _row((*header, "learned", "s/user")))
    for mode, runs in results.items():
        prefix = "" if mode == "llm" else f"{mode}_"
        asked = [a for r in runs for a in r.asked]
        for form in FORMS:
            mine = [r for r in runs if any(a.form == form for a in r.asked)]
            if not mine:
                continue
            items = [a.item for r in mine for a in r.asked if a.inter_turns == 0]
            learned = score.learned(items, {i: o for r in mine for i, o in r.owners.items()})
            seconds = round(sum(r.learning_s for r in mine) / len(mine), 1)
            for turns in sorted({0, inter}):
                row = score.summary([a for a in asked if a.form == form and a.inter_turns == turns])
                shares = [f"{row[k]:.3f}" for k in ("injected", "hit_at_1", "wrong", "unrelated")]
                print(_row((mode, form, turns, row["questions"], *shares, f"{row['nothing']:.3f}",
                            f"{row['mean_tokens']:.1f}", f"{learned:.3f}", seconds)))  # fmt: skip
                summary[f"{prefix}{form}_t{turns}"] = row
                if turns == inter:
                    summary[f"{prefix}{form}_injected"] = row["injected"]
            summary[f"{prefix}{form}_learned"] = learned
            summary[f"{prefix}{form}_learning_seconds_per_user"] = seconds
        last = score.summary([a for a in asked if a.inter_turns == inter])
        summary[f"{prefix}wrong_preference"] = last.get("wrong", 0.0)
        summary[f"{prefix}mean_injected_tokens"] = last.get("mean_tokens", 0.0)
        dangling = [
            t for r in runs for texts in r.learned.values() for t in texts if score.dangling(t)
        ]
        summary[f"{prefix}dangling_memories"] = len(dangling)
        for form in FORMS:  # learned, and held for review (memory.review)
            theirs = [r for r in runs if any(a.form == form for a in r.asked)]
            if theirs:
                learned_n = sum(len(t) for r in theirs for t in r.learned.values())
                held_n = sum(len(t) for r in theirs for t in r.held.values())
                summary[f"{prefix}{form}_memories"] = learned_n
                summary[f"{prefix}{form}_held_for_review"] = held_n
                print(f"{mode:<6} {form}: {learned_n} memories learned, {held_n} held for review")
        given = sum(r.generic_given for r in runs) / max(len(runs) * len(GENERIC_REQUESTS), 1)
        summary[f"{prefix}generic_given_memory"] = round(given, 3)
        print(f"{mode:<6} generic requests given a memory: {given:.3f}; learned memories that "
              f"say nothing alone: {len(dangling)}")  # fmt: skip
    return summary


def plot(
    summary: dict[str, Any], modes: list[str], inter: int, path: Path, lang: str = "en"
) -> None:
    """What each form's questions got at T = inter, per mode: stacked shares."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    rows = [(m, f) for m in modes for f in FORMS
            if f"{'' if m == 'llm' else m + '_'}{f}_t{inter}" in summary]  # fmt: skip
    figure, axes = pyplot.subplots(figsize=(8, 0.6 * len(rows) + 1.6))
    colours = {"injected": "#2a9d8f", "wrong": "#e76f51", "unrelated": "#e9c46a", "nothing": "#bbb"}
    labels = {"injected": "its preference", "wrong": "only another preference",
              "unrelated": "only unrelated memories", "nothing": "nothing"}  # fmt: skip
    for y, (mode, form) in enumerate(rows):
        row = summary[f"{'' if mode == 'llm' else mode + '_'}{form}_t{inter}"]
        left = 0.0
        for kind, colour in colours.items():
            axes.barh(y, row[kind], left=left, color=colour, label=labels[kind] if y == 0 else None)
            left += row[kind]
    axes.set_yticks(range(len(rows)), [f"{m} · {f}" for m, f in rows])
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.set_xlabel(f"share of preference questions (after {inter} unrelated turns)")
    said = translate.SAID[lang]
    axes.set_title(f"What a preference's later request was given (make prefeval{said})")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=4, fontsize=8, frameon=False)
    figure.savefig(path, dpi=110, bbox_inches="tight")


def save(summary: dict[str, Any], detail: dict[str, Any], lang: str = "en") -> Path:
    out = Path("prefeval/results")
    out.mkdir(parents=True, exist_ok=True)
    tag = "" if lang == "en" else f"{lang}-"
    path = out / f"prefeval-{tag}{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({"summary": summary, **detail}, indent=1, default=sorted))
    return path


async def main() -> int:
    if not (PREFEVAL / "explicit").is_dir():
        message = f"PrefEval data not found at {PREFEVAL} (set PREFEVAL_PATH): skipped"
        print(message)
        print(json.dumps({"skipped": message}))
        return 0
    modes = setting("MODES", "llm,notes").split(",")
    lang = setting("LANG", "en")
    if lang not in translate.LANGS:
        print(f"PREFEVAL_LANG={lang}: use one of {', '.join(translate.LANGS)}", file=sys.stderr)
        return 2
    forms = setting("FORMS", ",".join(FORMS) if lang == "en" else "explicit").split(",")
    if lang != "en" and (others := [f for f in forms if f != "explicit"]):
        print(f"PREFEVAL_LANG={lang} translates the explicit form only, not {', '.join(others)}: "
              "set PREFEVAL_FORMS=explicit (or leave it unset)", file=sys.stderr)  # fmt: skip
        return 2
    count, first, inter = (
        int(setting("USERS", "3")),
        int(setting("FIRST", "0")),
        int(setting("INTER", "10")),
    )
    between = orjson.loads((PREFEVAL / "inter_turns.json").read_bytes())
    held = [
        user
        for form in forms
        for user in users(
            form, load_form(PREFEVAL, form), between, count, first=first, inter_turns=inter
        )
    ]
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-prefeval-"))
    identity = DevIdentity(workdir / "identity")
    llm = MockLLM()
    await llm.start()
    milvus = MilvusProcess(workdir / "milvus", free_port())
    wanted = "llm" in modes or lang != "en"  # it learns, or it translates
    local = LocalLlmProcess(free_port(), workdir / "local-llm.log") if wanted else None
    tokens = token_counter()
    results: dict[str, list[UserRun]] = {}
    untranslated, translating_s = 0, 0.0
    started = time.monotonic()
    try:
        print(f"starting Milvus standalone{' and the local model' if local else ''} …", flush=True)
        await asyncio.to_thread(milvus.wait_ready)
        if local is not None:
            await asyncio.to_thread(local.wait_ready)
        if lang != "en":
            assert local is not None
            translating = time.monotonic()
            held, untranslated = await translate.to_chinese(
                held, local.base_url, MODEL_NAME, lang=lang
            )
            translating_s = round(time.monotonic() - translating, 1)
        for mode in modes:
            print(f"[{mode}] {len(held)} users ({', '.join(forms)}; {count} each, items from "
                  f"{first}, {inter} unrelated turns; {lang}) …", flush=True)  # fmt: skip
            results[mode] = await run_mode(
                mode, held, inter, workdir, milvus, llm, local, identity, tokens
            )
    finally:
        if local is not None:
            local.stop()
        milvus.stop()
        await llm.stop()
    summary = report(results, inter)
    summary |= {"users_per_form": count, "first_item": first, "inter_turns": inter,
                "lang": lang, "untranslated": untranslated, "translating_seconds": translating_s,
                "seconds": round(time.monotonic() - started)}  # fmt: skip
    if untranslated:
        print(f"{untranslated} texts stayed English (the model's answer was no translation)")
    detail = {mode: [asdict(r) for r in runs] for mode, runs in results.items()}
    path = await asyncio.to_thread(save, summary, detail, lang)
    # the Chinese plot stays with the results (git-ignored): prefeval/prefeval.png is the English
    picture = Path(
        "prefeval/prefeval.png" if lang == "en" else f"prefeval/results/prefeval-{lang}.png"
    )
    plot(summary, modes, inter, picture, lang)
    print(f"(details in {path}, plot in {picture}, logs in {workdir})")
    summary["results_file"] = str(path)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(run_harness(main))
