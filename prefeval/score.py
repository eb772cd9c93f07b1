"""What each question was given, scored: pure.

A memory belongs to the items whose turns wrote or revised it (the harness lists the user's
memories after each item is learned). For an item's question, what was injected is one of:

* ``injected``: a memory of this item (``hit_at_1`` when it is the first line);
* ``wrong``: only memories of the user's other preferences;
* ``unrelated``: only memories of no preference (the unrelated chats);
* ``nothing``: no memory at all.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from memory_extproc.memories.notes import statement
from memory_extproc.words import terms

OUTCOMES = ("injected", "wrong", "unrelated", "nothing")
# A memory that points at what it does not say ("User dislikes the other options", "User chose
# option 3") and says little else says nothing on its own.
_POINTS = re.compile(
    r"(?i)\b(?:(?:the|these|those)\s+other\s+(?:options?|ones?)|options?\s+\d|(?:the|that|this)\s+"
    r"(?:first|second|third|fourth|last|other)\s+(?:one|option))\b"
)
_CHOICE_TALK = terms(
    "user said option options other one first second third fourth last go think choice work "
    "appeal quite really seem dislike don't like prefer chose choose pick"
)


@dataclass(frozen=True, slots=True)
class Asked:
    form: str
    inter_turns: int
    user: str
    item: str  # Item.key
    injected: tuple[str, ...]  # the memory lines, as the LLM got them
    owners: tuple[frozenset[str], ...]  # for each line, the items whose memory it is
    tokens: int


def line_text(line: str) -> str:
    """An injected line without its "[date] " / "[date, latest] " prefix."""
    return line.split("] ", 1)[1] if line.startswith("[") and "] " in line else line


def memory_of(line: str, memories: Mapping[str, str]) -> str | None:
    """The id of the memory (id → content) an injected line shows: the one sharing most of
    its words (the block rewrites a note's date frame and whitespace, not its words)."""
    said = terms(line_text(line))
    best, best_share = None, 0.0
    for memory_id, content in memories.items():
        words = terms(content)
        share = len(said & words) / max(len(said | words), 1)
        if share > best_share:
            best, best_share = memory_id, share
    return best if best_share >= 0.5 else None


def outcome(asked: Asked) -> str:
    if not asked.injected:
        return "nothing"
    if any(asked.item in owners for owners in asked.owners):
        return "injected"
    if any(owners for owners in asked.owners):
        return "wrong"
    return "unrelated"


def dangling(content: str) -> bool:
    said = statement(content)
    return bool(_POINTS.search(said)) and len(terms(said) - _CHOICE_TALK) < 2


def summary(asked: Sequence[Asked]) -> dict[str, float | int]:
    """Shares of each outcome, hit@1 and injected tokens over some questions."""
    count = len(asked)
    if not count:
        return {"questions": 0}
    kinds = [outcome(a) for a in asked]
    row: dict[str, float | int] = {"questions": count}
    row |= {kind: round(kinds.count(kind) / count, 3) for kind in OUTCOMES}
    first = sum(bool(a.owners) and a.item in a.owners[0] for a in asked)
    row["hit_at_1"] = round(first / count, 3)
    given = [a.tokens for a in asked if a.injected]
    row["mean_tokens"] = round(statistics.fmean(given), 1) if given else 0.0
    return row


def learned(items: Iterable[str], owners: Mapping[str, frozenset[str]]) -> float:
    """The share of items whose turns left any memory (``owners``: memory id → items)."""
    wanted = list(items)
    held = set().union(*owners.values()) if owners else set()
    return round(sum(item in held for item in wanted) / max(len(wanted), 1), 3)
