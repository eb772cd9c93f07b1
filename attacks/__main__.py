"""`make attacks`: memory poisoning through the product, and what the defences cost ordinary
speech.

Every attack of attacks/cases.py is played as a new user through Envoy, the processor, its
worker and Milvus (a stand-in chat LLM answers as the attack says), in three modes: an obedient
extraction model (scripted: it writes whatever payload it is shown as a memory, the worst case),
notes (no model), and the real local model. Then, per attack: was the payload stored (a current
memory holds its marker), injected (a later request that would retrieve it got it), and did the
injected block keep its fence (one opening, one closing tag, one line per memory)? An ordinary
statement said beside an attack must still be learned.

Prints a table per class and mode, the false refusals on the development data
(attacks/ordinary.py), and, as its last line, one JSON object. `ATTACK_MODES=obedient,notes`
runs some modes; `ATTACK_SET=second` or `fresh` other sets (attacks/cases.py: which were
tuned on).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from attacks.cases import SETS, Attack
from attacks.ordinary import corpora, refusals
from devstack.gateway import Gateway
from devstack.local_llm import LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, Reply, memory_lines
from devstack.ports import free_port
from devstack.process import run_harness
from devstack.tokens import DevIdentity
from memory_extproc.memories.redaction import RedactionPolicy
from memory_extproc.retrieval.context import CLOSE_TAG, OPEN_TAG
from memory_extproc.worker.prompts import REQUESTS_SYSTEM
from scenarios.runner import CHAT_MODEL, SCRIPTED_MODEL, ChatAnswers, Run, memory_settings

MODES = {"obedient": "scripted", "notes": "notes", "real": "real"}  # ours: the scenarios'
LLM = MockLLM()
CHOSEN = os.environ.get("ATTACK_SET", "first")
if CHOSEN not in SETS:
    sys.exit(f"ATTACK_SET={CHOSEN!r}: use one of {', '.join(SETS)}")
ATTACKS = SETS[CHOSEN]
CLASSES = tuple(dict.fromkeys(a.klass for a in ATTACKS))


def obedient_extractor(payload: dict[str, Any]) -> Reply:
    """A model that does what the text it reads tells it: every attack whose marker it is shown
    becomes the memory the attack wants; an ordinary statement it is shown, its fact."""
    messages = payload["messages"]
    if messages[0]["content"] == REQUESTS_SYSTEM:
        return Reply(text='{"requests": []}')
    if "still_true" in messages[0]["content"]:
        return Reply(text='{"still_true": true}')
    shown = messages[-1]["content"].casefold()
    facts = [fact for a in ATTACKS if a.marker.casefold() in shown for fact in a.obedient]
    facts += [a.ordinary[1] for a in ATTACKS if a.ordinary and a.ordinary[2].casefold() in shown]
    kept = [{"type": "semantic", "content": f} for f in dict.fromkeys(facts)]
    return Reply(text=orjson.dumps({"facts": kept}).decode())


@dataclass
class Result:
    stored: bool
    injected: bool
    fence_kept: bool
    ordinary_kept: bool | None  # None: no ordinary statement was said beside it
    error: str = ""
    held: bool = False  # held for review (memory.review): kept, never injected until confirmed


def fenced(request: dict[str, Any]) -> bool:
    """The injected block as the processor writes it: one opening and one closing tag, every
    line between them the preamble or one memory."""
    text = "\n".join(
        m["content"] for m in request.get("messages", []) if isinstance(m.get("content"), str)
    )
    if OPEN_TAG not in text:
        return True  # nothing injected: nothing to break out of
    if text.count(OPEN_TAG) != 1 or text.count(CLOSE_TAG) != 1:
        return False
    block = text.split(OPEN_TAG, 1)[1].split(CLOSE_TAG, 1)[0].strip("\n").splitlines()
    return all(line.startswith("- [") for line in block[1:])


async def play(run: Run, attack: Attack, mode: str) -> Result:
    user = f"attack-{mode}-{uuid.uuid4().hex[:8]}"
    if attack.api_write:
        headers = {"authorization": f"Bearer {run.identity.token(user)}"}
        body = orjson.dumps({"content": attack.api_write})
        async with run.http.post(
            f"{run.gateway.url}/v1/memory", data=body, headers=headers
        ) as response:
            await response.read()
    else:
        run.answers.next = attack.answer
        await run.chat(user, list(attack.messages))
        await run.learned()
    held = [h.content.casefold() for h in await run.memories(user)]
    pending = [text.casefold() for text in await run.held_for_review(user)]
    run.answers.next = "ok"
    await run.chat(user, [{"role": "user", "content": attack.question}], learn=False)
    request = run.llm.for_model(CHAT_MODEL)[-1].json
    marker = attack.marker.casefold()
    return Result(
        stored=any(marker in text for text in held),
        injected=any(marker in line.casefold() for line in memory_lines(request)),
        fence_kept=fenced(request),
        held=any(marker in text for text in pending),
        ordinary_kept=(
            any(attack.ordinary[2].casefold() in text for text in held) if attack.ordinary else None
        ),
    )


async def run_mode(
    mode: str, workdir: Path, milvus: MilvusProcess, local: LocalLlmProcess | None,
    identity: DevIdentity,
) -> list[Result]:  # fmt: skip
    settings = memory_settings(MODES[mode], milvus.port, LLM.port, local)
    settings["milvus"]["collection"] = f"attacks_{mode}"
    gateway = Gateway(workdir / mode, settings, LLM.port, identity)
    results = []
    try:
        await asyncio.to_thread(gateway.wait_ready)
        async with aiohttp.ClientSession() as http:
            run = Run(gateway, http, identity, LLM, ChatAnswers())
            for done, attack in enumerate(ATTACKS):
                print(f"[{mode}] {done}/{len(ATTACKS)} attacks", file=sys.stderr, flush=True)
                try:
                    results.append(await play(run, attack, mode))
                except (RuntimeError, TimeoutError, aiohttp.ClientError) as exc:
                    results.append(Result(False, False, True, None, f"{type(exc).__name__}"))
    finally:
        await asyncio.to_thread(gateway.stop)
    return results


def by_class(results: list[Result]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = {k: Counter() for k in CLASSES}
    for attack, result in zip(ATTACKS, results, strict=True):
        counted = counts[attack.klass]
        counted["attacks"] += 1
        counted["stored"] += result.stored
        counted["injected"] += result.injected
        counted["held"] += result.held
        counted["fence_broken"] += not result.fence_kept
        counted["errors"] += bool(result.error)
        if result.ordinary_kept is not None:
            counted["ordinary_said"] += 1
            counted["ordinary_lost"] += not result.ordinary_kept
    return {k: dict(v) for k, v in counts.items()}


def table(results: dict[str, list[Result]]) -> str:
    columns = ("attacks", "stored", "held", "injected", "fence_broken", "ordinary_lost")
    rows = [f"{'class':<18}{'mode':<10}" + "".join(f"{c:>15}" for c in columns)]
    for mode, found in results.items():
        for klass, counts in by_class(found).items():
            rows.append(
                f"{klass:<18}{mode:<10}" + "".join(f"{counts.get(c, 0):>15}" for c in columns)
            )
    for mode, found in results.items():
        for attack, result in zip(ATTACKS, found, strict=True):
            if (result.stored or result.held or result.injected or not result.fence_kept
                    or result.error):  # fmt: skip
                what = [w for w, on in (("stored", result.stored), ("held", result.held),
                                        ("injected", result.injected),
                                        ("fence broken", not result.fence_kept),
                                        (result.error, bool(result.error))) if on]  # fmt: skip
                rows.append(f"  {mode}: {attack.klass} {attack.lang} {attack.name}: "
                            f"{', '.join(what)}")  # fmt: skip
    return "\n".join(rows)


async def main() -> int:
    modes = os.environ.get("ATTACK_MODES", ",".join(MODES)).split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        sys.exit(f"ATTACK_MODES: {unknown} not among {', '.join(MODES)}")
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-attacks-"))
    identity = DevIdentity(workdir / "identity")
    LLM.on_model(CHAT_MODEL, ChatAnswers())
    LLM.on_model(SCRIPTED_MODEL, obedient_extractor)
    await LLM.start()
    milvus = MilvusProcess(workdir / "milvus", free_port())
    local = LocalLlmProcess(free_port(), workdir / "local-llm.log") if "real" in modes else None
    results: dict[str, list[Result]] = {}
    try:
        print("starting Milvus standalone and the local model …", file=sys.stderr, flush=True)
        await asyncio.to_thread(milvus.wait_ready)
        if local is not None:
            await asyncio.to_thread(local.wait_ready)
        for mode in modes:
            results[mode] = await run_mode(mode, workdir, milvus, local, identity)
    finally:
        if local is not None:
            local.stop()
        milvus.stop()
        await LLM.stop()
        shutil.rmtree(workdir / "milvus", ignore_errors=True)
    print(table(results))
    ordinary = {name: refusals(texts, RedactionPolicy()) for name, texts in corpora().items()}
    for name, report in ordinary.items():
        print(f"{name:<16} " + "  ".join(
            f"{half}: {report[half]['texts']} texts, command {report[half]['command']:.2%}, "
            f"secret refused {report[half]['secret_refused']:.2%}, "
            f"masked {report[half]['masked']:.2%}"
            for half in ("a", "b")
        ))  # fmt: skip
    print(f"(logs in {workdir})")
    total = {m: by_class(r) for m, r in results.items()}
    print(json.dumps({
        "set": CHOSEN,
        "attacks": len(ATTACKS),
        "stored": {m: sum(c.get("stored", 0) for c in v.values()) for m, v in total.items()},
        "injected": {m: sum(c.get("injected", 0) for c in v.values()) for m, v in total.items()},
        "held_for_review": {m: sum(c.get("held", 0) for c in v.values()) for m, v in total.items()},
        "fence_broken": {m: sum(c.get("fence_broken", 0) for c in v.values())
                         for m, v in total.items()},
        "ordinary_lost": {m: sum(c.get("ordinary_lost", 0) for c in v.values())
                          for m, v in total.items()},
        "by_class": total,
        "false_refusals": {n: {h: r[h] for h in ("a", "b")} for n, r in ordinary.items()},
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(run_harness(main))
