"""What an extraction LLM said, checked strictly: only well-formed facts about the user survive.

Stored memories are injected into later prompts, so a "fact" that tries to command the assistant
is an attack path (memory injection). Those are refused here, before anything is stored.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import orjson

from memory_extproc.store.model import MemoryType, content_hash


class ExtractionParseError(ValueError):
    """The whole answer is unusable (not JSON, fenced, partial, wrong shape): skip the batch."""


@dataclass(frozen=True, slots=True)
class Fact:
    type: MemoryType
    content: str


@dataclass(frozen=True, slots=True)
class FactLimits:
    min_chars: int = 8
    max_chars: int = 500
    max_facts: int = 20


_INSTRUCTION = re.compile(
    r"""(?ix)
    \b(ignore|disregard|forget|override)\b.{0,40}\b(instruction|prompt|rule|guideline|message|above|previous|prior)s?\b
    | \bfrom\s+now\s+on\b
    | \b(system|developer)\s+(prompt|message|mode)\b
    | \bjail\s?break
    | \bnew\s+instructions?\b
    | \b(you|assistant|the\s+assistant|the\s+ai|the\s+model|chatgpt)
      \s+(must|should|shall|will|are\s+to|need\s+to)\b
    | \b(always|never)\s+(respond|reply|answer|say|tell|mention|reveal|include|output|use|call
      |refuse|follow|obey)\b
    | \b(do\s+not|don't|dont)\s+(tell|reveal|follow|obey|mention|refuse)\b
    | \b(respond|reply|answer)\s+(only\s+)?(with|in|using)\b
    | ^\s*(act\s+as|pretend|you\s+are\s+now|roleplay|execute|run\s+the\s+following)\b
    """
)


def is_instruction_like(text: str) -> bool:
    """ "User prefers answers in French" is a fact; "Always respond in French" is a command."""
    return bool(_INSTRUCTION.search(text))


def json_object(text: str) -> dict[str, Any]:
    """A model's answer as one JSON object; prose, code fences or partial JSON are errors."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        raise ExtractionParseError("not a JSON object (garbage, prose or a code fence)")
    try:
        data = orjson.loads(stripped)
    except orjson.JSONDecodeError as exc:
        raise ExtractionParseError("invalid or partial JSON") from exc
    if not isinstance(data, dict):
        raise ExtractionParseError("not a JSON object")
    return data


def parse_facts(text: str, limits: FactLimits) -> tuple[list[Fact], Counter[str]]:
    """The valid facts, and how many were rejected for which reason."""
    data = json_object(text)
    if not isinstance(data.get("facts"), list):
        raise ExtractionParseError('no "facts" list')
    facts: list[Fact] = []
    rejected: Counter[str] = Counter()
    seen: set[str] = set()
    for item in data["facts"]:
        reason = _problem(item, limits)
        if reason is None and len(facts) >= limits.max_facts:
            reason = "too_many"
        if reason is None:
            content = " ".join(item["content"].split())
            digest = content_hash(content)
            if digest in seen:
                reason = "duplicate_in_batch"
            else:
                seen.add(digest)
                facts.append(Fact(MemoryType(item["type"]), content))
                continue
        rejected[reason] += 1
    return facts, rejected


def _problem(item: object, limits: FactLimits) -> str | None:
    if not isinstance(item, dict):
        return "malformed"
    kind, content = item.get("type"), item.get("content")
    if kind not in {t.value for t in MemoryType} or not isinstance(content, str):
        return "malformed"
    length = len(content.strip())
    if length < limits.min_chars:
        return "too_short"
    if length > limits.max_chars:
        return "too_long"
    if is_instruction_like(content):
        return "instruction_like"
    return None
