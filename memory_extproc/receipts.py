"""What became of one turn, for the client that sent it: ``GET /v1/memory/receipts/{id}``.

The processor names a receipt in the response header (extproc/receipt.py) when it is to read
the answer, records it once the turn is captured (``pending``) or could not be (an error answer,
no text, cut off: ``not_learned``), and again when the worker has learned the batch the turn went
into (``learned``: the memories it added, updated and ended, and each fact's outcome) or gave up
on it (``not_learned``). The turns of one batch are learned together: they share what it did.

Kept beside the conversation state (learning/shared.py, shared_valkey.py): under the user, gone
with a forget of the user or of the project, and a day after its last write. Ids and counts
only, never a user's words. Pure.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from memory_extproc.clock import iso
from memory_extproc.compression.state import Chunk

_ID = re.compile(r"rcpt_[0-9a-f]{32}")


@dataclass(frozen=True, slots=True)
class Learned:
    """What the worker made of a batch (handed back to the processor): ids and counts."""

    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()  # revised in place (a change, a correction), history kept
    ended: tuple[str, ...] = ()  # no longer current: overruled, ended by a move, a copy gone
    held: tuple[str, ...] = ()  # held for review: under the confidence bar, never injected
    # each fact's outcome, as memory_extraction_facts_total counts them ("rejected_secret"…)
    outcomes: tuple[tuple[str, int], ...] = ()
    chunk: Chunk | None = None  # the new messages' vectors, for compression (not a receipt's)


class Status(StrEnum):
    PENDING = "pending"  # captured: learned when its conversation has N turns or goes quiet
    LEARNED = "learned"
    NOT_LEARNED = "not_learned"


class NotLearned(StrEnum):
    """Why a turn whose answer memory meant to read taught it nothing."""

    ERROR_ANSWER = "error_answer"  # the LLM answered with an error: errors are never remembered
    NO_TEXT = "no_text"  # no answer text could be read (an unknown encoding, a tool call only)
    TOO_LARGE = "too_large"  # the answer was over the size memory reads
    CUT_OFF = "cut_off"  # the client or the LLM ended the exchange before the answer did
    FAILED = "failed"  # the extraction failed every time it was tried (the model or Milvus)
    DROPPED = "dropped"  # no room to keep it (the worker's queue and the spool full), or shutdown


def new_id() -> str:
    return f"rcpt_{uuid.uuid4().hex}"


def is_receipt_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None


def captured(at_ms: int, injected: Sequence[str]) -> dict[str, Any]:
    """A turn handed to learning: what memory injected into its request, and when."""
    return {"status": Status.PENDING.value, "at": iso(at_ms), "injected": list(injected)}


def not_captured(at_ms: int, injected: Sequence[str], why: NotLearned) -> dict[str, Any]:
    return {**captured(at_ms, injected), **ended_without(why)}


def ended_without(why: NotLearned) -> dict[str, Any]:
    """What a receipt becomes when its turn will never be learned."""
    return {"status": Status.NOT_LEARNED.value, "reason": why.value}


def learned(learned: Learned, turns: int) -> dict[str, Any]:
    """What a receipt becomes once its batch is learned: the batch's ``turns`` share it."""
    return {
        "status": Status.LEARNED.value,
        "learning": {
            "turns": turns,
            "added": list(learned.added),
            "updated": list(learned.updated),
            "ended": list(learned.ended),
            "held": list(learned.held),
            "outcomes": dict(learned.outcomes),
        },
    }
