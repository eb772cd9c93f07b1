"""Which of a request's messages a compressed request replaces, and which of them it quotes. Pure.

A compressed request keeps, as sent: every system and developer message, the last
``keep_turns`` turns (a turn: a user message and all that follows it up to the next one),
every message newer than what the index holds, and every message with parts other than text
(an image, a file, audio). The older turns are replaced by one block (retrieval/context.py)
that quotes the few of them nearest to the new message, each with its date.

Whole turns go or stay together, so an assistant's tool calls and their results are never
parted: a tool message left without its call is an API error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

import numpy as np

from memory_extproc.compression.state import ConversationIndex, fingerprint, is_dialogue
from memory_extproc.words import CJK

_KEPT_ROLES = frozenset({"system", "developer"})
VECTOR_WEIGHT = 0.2  # of meaning against shared words (eval/RESULTS.md, "Compression")


class NotCompressed(StrEnum):
    """Why a request that asked for compression went as sent."""

    SHORT = "short"  # fewer turns than ``min_turns``
    NO_STATE = "no_state"  # nothing of this conversation learned yet (or the store is down)
    DIVERGED = "diverged"  # its history is not the one the index was built from
    NOTHING_OLD = "nothing_old"  # every older turn is newer than the index, or kept
    NOT_EDITABLE = "not_editable"  # a body we cannot edit exactly
    UNAVAILABLE = "unavailable"  # the state not read in time (its store down or slow)


class Message(NamedTuple):
    """One element of ``messages`` (Chat Completions) or ``input`` (Responses). A tuple: a
    long conversation has hundreds, read on the request path."""

    role: str  # "" for an item that is not a message (a function call, its output)
    text: str
    plain: bool  # text only (no image, file or audio part)
    tokens: int  # its text's, estimated (``tokens``)
    dialogue: bool  # a user or assistant message with text (state.is_dialogue)


@dataclass(frozen=True, slots=True)
class CompressionPolicy:
    """``memory.compression`` (config/schema.py); numbers chosen in eval/RESULTS.md,
    "Compression"."""

    min_turns: int
    keep_turns: int
    quote_tokens: int  # the old messages quoted, nearest to the new message first
    state: bool = True  # show the conversation's running state, when one is kept
    # Quotes bounded by a tenth of what they stand for too: a compressed request is smaller
    # than the one sent however short the conversation (800 tokens of quotes were a third of a
    # 60-turn one, and over a fifth of a 204-turn one of short messages)
    quote_share: float = 0.1


@dataclass(frozen=True, slots=True)
class Query:
    """The new message, as quotes are chosen for it: its words (words.terms) and, when the
    memory search embedded it, its vector."""

    words: tuple[str, ...]
    vector: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Quote:
    role: str
    text: str
    said_at_ms: int


@dataclass(frozen=True, slots=True)
class Compression:
    runs: tuple[tuple[int, int], ...]  # element ranges [start, end) replaced, in order
    replaced: int  # dialogue messages replaced (positions 0 … replaced - 1)
    quotes: tuple[Quote, ...]  # in the conversation's order
    summary: str  # the conversation's running state ("" when none is kept)
    tokens_before: int  # of the messages' text, as sent
    tokens_after: int  # …without the replaced ones (the block is counted by the caller)


def tokens(text: str) -> int:
    """An estimate that needs no tokenizer: a CJK character is about one token, four
    characters of other scripts are about one."""
    cjk = sum(len(run) for run in CJK.findall(text)) if not text.isascii() else 0
    return cjk + (len(text) - cjk + 3) // 4


def messages_of(items: Sequence[Any], part_text: Callable[[Any], str]) -> list[Message]:
    """``part_text``: a message content's text (llm_api/requests.py)."""
    found = []
    for item in items:
        if not isinstance(item, dict):
            found.append(_NOT_A_MESSAGE)
            continue
        role = item.get("role") if item.get("type", "message") == "message" else None
        role = role if isinstance(role, str) else ""
        content = item.get("content")
        if isinstance(content, str):  # the usual case
            text, plain = content, True
        else:
            text = part_text(content)
            plain = not isinstance(content, list) or all(
                isinstance(p, str) or (isinstance(p, dict) and "text" in p) for p in content
            )
        found.append(Message(role, text, plain, tokens(text), is_dialogue(role, text)))
    return found


_NOT_A_MESSAGE = Message("", "", plain=True, tokens=0, dialogue=False)


def plan(
    messages: Sequence[Message],
    index: ConversationIndex | None,
    query: Query,
    policy: CompressionPolicy,
) -> Compression | NotCompressed:
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if len(users) < max(policy.min_turns, policy.keep_turns + 1):
        return NotCompressed.SHORT
    if index is None:
        return NotCompressed.NO_STATE
    dialogue = [i for i, m in enumerate(messages) if m.dialogue]
    if len(dialogue) < index.upto or fingerprint(messages[dialogue[index.upto - 1]].text) != (
        index.tail
    ):
        return NotCompressed.DIVERGED
    # the turns that may go: older than the raw ones, and all held by the index
    newest = dialogue[index.upto - 1]
    end = max((u for u in users[: len(users) - policy.keep_turns] if u <= newest + 1), default=0)
    starts = [u for u in users if u < end]
    if not starts:
        return NotCompressed.NOTHING_OLD
    lead = _first_non_system(messages, users[0])
    if lead < starts[0]:  # what precedes the first user message (a greeting)
        starts.insert(0, lead)
    runs = list(zip(starts, [*starts[1:], end], strict=True))
    if not all(m.plain and m.role not in _KEPT_ROLES for m in messages[starts[0] : end]):
        runs = [(start, stop) for start, stop in runs
                if all(messages[i].plain for i in range(start, stop))]  # fmt: skip
        runs = _without_system(runs, messages)
    runs = _merged(runs)
    if not runs:
        return NotCompressed.NOTHING_OLD
    gone = [i for start, stop in runs for i in range(start, stop)]
    left_out = set(gone)
    replaced_positions = [p for p, i in enumerate(dialogue) if i in left_out]
    before = sum(m.tokens for m in messages)
    after = before - sum(messages[i].tokens for i in gone)
    room = min(policy.quote_tokens, int(policy.quote_share * (before - after)))
    quotes = _quotes(messages, dialogue, replaced_positions, index, query, room)
    summary = index.summary if policy.state else ""
    return Compression(tuple(runs), len(replaced_positions), quotes, summary, before, after)


def _first_non_system(messages: Sequence[Message], before: int) -> int:
    at = 0
    while at < before and messages[at].role in _KEPT_ROLES:
        at += 1
    return at


def _without_system(
    runs: list[tuple[int, int]], messages: Sequence[Message]
) -> list[tuple[int, int]]:
    """The runs split around system and developer messages, which stay where they are."""
    split = []
    for start, stop in runs:
        at = start
        for i in range(start, stop + 1):
            if i == stop or messages[i].role in _KEPT_ROLES:
                if at < i:
                    split.append((at, i))
                at = i + 1
    return split


def _merged(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, stop in runs:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], stop)
        else:
            merged.append((start, stop))
    return merged


def _quotes(
    messages: Sequence[Message],
    dialogue: list[int],
    positions: list[int],
    index: ConversationIndex,
    query: Query,
    room: int,
) -> tuple[Quote, ...]:
    """The replaced messages nearest to the new one, each with the message after it (what
    answered it), as many as ``room`` tokens hold: by the words they share with it (BM25),
    and a fifth as much by meaning (its vector, when the memory search made one). Words first:
    a question names the words its answer was said with ("When did Caroline go to the LGBTQ
    support group?"), which a long chatty message's vector blurs (eval/RESULTS.md,
    "Compression")."""
    if not positions or room <= 0:
        return ()
    upto = positions[-1] + 1
    relevance = _scaled(index.shared_words(query.words, upto))
    if query.vector is not None:
        relevance = relevance + VECTOR_WEIGHT * _scaled(index.scores(query.vector, upto))
    replaced = set(positions)
    chosen: set[int] = set()
    candidates = np.asarray(positions)
    for position in candidates[np.argsort(-relevance[candidates], kind="stable")].tolist():
        if relevance[position] <= 0:
            break
        for quoted in (position, position + 1):  # and the message after it: its answer
            if quoted not in replaced or quoted in chosen:
                continue  # (the last replaced may be the last message with text)
            cost = messages[dialogue[quoted]].tokens + 8  # its date and role
            if cost <= room:
                chosen.add(quoted)
                room -= cost
    return tuple(
        Quote(messages[dialogue[p]].role, messages[dialogue[p]].text, index.said_at(p))
        for p in sorted(chosen)
    )


def _scaled(scores: np.ndarray) -> np.ndarray:
    """0 … 1, the best 1 (a negative score counts as none)."""
    scores = np.maximum(scores, 0.0)
    best = float(scores.max()) if len(scores) else 0.0
    return scores / best if best > 0 else scores
