"""False refusals: how much of what users ordinarily say the defences would refuse or change.

Pure, no stack: every LoCoMo statement and PrefEval preference of the development splits, and
the scenarios' statements in each language we serve, through the command filter the worker
applies to what it stores (memories/instructions.py, read here on the raw sentence: stricter
than on a model's fact) and the secrets policy (memories/redaction.py). Each corpus in two
halves, alternate texts: rules are tuned on half A and confirmed on half B.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from eval.replay import LOCOMO, load_samples, sessions
from memory_extproc.memories.instructions import is_instruction_like
from memory_extproc.memories.redaction import RedactionPolicy, for_memory
from prefeval.data import load_form
from scenarios.catalog import SETS

PREFEVAL = LOCOMO.parents[1] / "prefeval"


def corpora(locomo: Path = LOCOMO, prefeval: Path = PREFEVAL) -> dict[str, list[str]]:
    found = {
        "locomo": [t["text"] for s in load_samples(locomo) for n in sessions(s) for t in n.turns],
        "prefeval": [
            item["preference"] for items in load_form(prefeval, "explicit").values()
            for item in items
        ],
    }  # fmt: skip
    for lang in ("en", "zh", "es", "de", "ja"):
        found[f"scenarios_{lang}"] = list(dict.fromkeys(_said(lang)))
    return found


def _said(lang: str) -> Iterator[str]:
    for scenarios in SETS[lang].values():
        for scenario in scenarios:
            for session in scenario.sessions:
                yield from (turn.said for turn in session)


def refusals(texts: list[str], policy: RedactionPolicy) -> dict[str, object]:
    """Per half: texts, those read as a command, those the secrets policy refuses or masks."""
    report: dict[str, object] = {}
    for half, part in (("a", texts[0::2]), ("b", texts[1::2])):
        commands = [t for t in part if is_instruction_like(t)]
        screened = [for_memory(t, policy) for t in part]
        masked = sum(s.text != t for s, t in zip(screened, part, strict=True))
        report[half] = {
            "texts": len(part),
            "command": _rate(len(commands), len(part)),
            "secret_refused": _rate(sum(bool(s.refused) for s in screened), len(part)),
            "masked": _rate(masked, len(part)),
        }
        report[f"{half}_commands"] = commands[:5]  # what to look at (dev data only)
    return report


def _rate(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0
