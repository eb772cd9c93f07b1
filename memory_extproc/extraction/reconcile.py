"""Read the model's ADD / UPDATE / DELETE / NOOP decision, strictly."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from memory_extproc.extraction.facts import (
    ExtractionParseError,
    FactLimits,
    is_instruction_like,
    json_object,
)


class Action(StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NOOP = "NOOP"


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    index: int | None = None  # into the candidates shown to the model
    content: str = ""  # UPDATE: the new text ("" = use the new memory as is)


def parse_decision(text: str, candidates: int, limits: FactLimits) -> Decision:
    data = json_object(text)
    try:
        action = Action(str(data.get("action", "")).upper())
    except ValueError as exc:
        raise ExtractionParseError("unknown action") from exc
    if action is Action.ADD:
        return Decision(action)
    index = data.get("id")
    if isinstance(index, str) and index.strip().isdigit():
        index = int(index)
    if action is Action.NOOP:
        return Decision(action)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < candidates:
        raise ExtractionParseError(f"{action} names no memory that was shown")
    content = data.get("content")
    if action is Action.UPDATE and isinstance(content, str):
        content = " ".join(content.split())
        if limits.min_chars <= len(content) <= limits.max_chars and not is_instruction_like(
            content
        ):
            return Decision(action, index, content)
    return Decision(action, index)
