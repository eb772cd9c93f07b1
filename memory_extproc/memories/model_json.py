"""The one JSON value a model answered, read leniently: every model answer (facts, the requests a
preference bears on, the judge's "still true?") is read here, so that a model's way of breaking
JSON is mended in one place.

Real models, small local ones above all, wrap JSON in code fences, put prose around it, and stop
mid-answer. Reading repairs what can be repaired without guessing (a fence, prose around one JSON
value, a list cut off after whole items) and says what it repaired; what cannot be read is an
error with a reason, and the answer is not used.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from typing import Any


class ExtractionParseError(ValueError):
    """The whole answer is unusable; ``reason`` says why (truncated, invalid_json, …)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Reading:
    value: Any
    repairs: list[str] = field(default_factory=list)


_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)


def read_json(text: str) -> Reading:
    """The one JSON value (object or list) a model answered, and what was repaired to get it.
    A fenced block is the answer when it holds a readable value; else the fence is part of the
    answer (a fact quoting a code block: "User asked for ```hcl resource``` blocks")."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced is not None:
        with contextlib.suppress(ExtractionParseError):
            return _read_json(fenced.group(1).strip(), ["fenced"])
    return _read_json(stripped, [])


def _read_json(stripped: str, repairs: list[str]) -> Reading:
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    if not starts:
        raise ExtractionParseError("invalid_json", "no JSON value in the answer")
    start = min(starts)
    try:
        value, end = json.JSONDecoder().raw_decode(stripped, start)
    except json.JSONDecodeError as exc:
        cut = exc.pos >= len(stripped) - 1 or exc.msg.startswith("Unterminated string")
        salvaged = _complete_items(stripped[start:]) if cut else None
        if salvaged is None:
            raise ExtractionParseError("truncated" if cut else "invalid_json", exc.msg) from exc
        return Reading(salvaged, [*repairs, "salvaged"])
    if start > 0 or stripped[end:].strip():
        repairs.append("embedded")
    return Reading(value, repairs)


def _complete_items(cut: str) -> Any | None:
    """An answer cut off by the token limit, without its unfinished last item: the items before
    it are whole ("… {"content": "User has a cat"}, {"content": "User li" → the first)."""
    opening = cut[: cut.find("[") + 1] if "[" in cut else ""
    if not opening:
        return None
    closing = "]" + "}" * opening.count("{")
    end = len(cut)
    while (end := cut.rfind("}", len(opening), end)) > 0:
        try:
            return json.loads(cut[: end + 1] + closing)
        except json.JSONDecodeError:
            continue
    return None
