"""PrefEval's development topics as users of the product: pure, no I/O but reading the files.

A user holds several preferences, as real users do: user ``i`` of a form states item ``first +
i`` of five topics (the topic sets rotate, so every topic is held by some users), each item in
that form — ``explicit`` (one user turn), ``choice`` (the user asks, the assistant offers
options, the user picks one), ``persona`` (a persona conversation that reveals it in passing) —
each as a conversation of its own. Between the preferences and the questions the user has
unrelated chats (PrefEval's ``inter_turns.json``: code, writing, trivia). Each item's question is
then asked in a new conversation.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

PREFEVAL = Path(os.environ.get("PREFEVAL_PATH", "../shared/data/prefeval"))
FORMS = ("explicit", "choice", "persona")
TOPICS_PER_USER = 5
# What the stand-in assistant answers to a stated preference (PrefEval gives none)
ACKNOWLEDGED = "Thanks for letting me know, I'll keep that in mind."

Exchange = tuple[str, str]  # what the user said, what the assistant answered


@dataclass(frozen=True, slots=True)
class Item:
    topic: str
    index: int
    preference: str
    question: str
    conversation: tuple[Exchange, ...]  # how the user revealed it, in this item's form

    @property
    def key(self) -> str:
        return f"{self.topic}:{self.index}"


@dataclass(frozen=True, slots=True)
class User:
    name: str
    form: str
    items: tuple[Item, ...]
    between: tuple[tuple[Exchange, ...], ...]  # the unrelated chats, each a conversation


def exchanges(form: str, record: dict[str, Any]) -> tuple[Exchange, ...]:
    """The conversation that reveals an item's preference in ``form``."""
    if form == "explicit":
        return ((record["preference"], ACKNOWLEDGED),)
    talk = record["conversation"]
    if form == "choice":
        return (
            (talk["query"], talk["assistant_options"]),
            (talk["user_selection"], talk["assistant_acknowledgment"]),
        )
    if form == "persona":
        turns = sorted(talk, key=int)
        return tuple((talk[k]["user"], talk[k]["assistant"]) for k in turns)
    raise ValueError(f"unknown form {form!r}: use one of {', '.join(FORMS)}")


def chats_between(
    records: Sequence[dict[str, Any]], start: int, turns: int
) -> list[list[Exchange]]:
    """``turns`` user turns of unrelated chats, from chat ``start`` on (wrapping), each chat
    a conversation of its own and cut where the count is reached."""
    found: list[list[Exchange]] = []
    left = turns
    for k in range(len(records)):
        if left <= 0:
            break
        messages = records[(start + k) % len(records)]["conversation"]
        pairs = [
            (messages[j]["content"], messages[j + 1]["content"])
            for j in range(len(messages) - 1)
            if messages[j]["role"] == "user" and messages[j + 1]["role"] == "assistant"
        ][:left]
        if pairs:
            found.append(pairs)
            left -= len(pairs)
    return found


def topic_sets(topics: Sequence[str]) -> list[tuple[str, ...]]:
    """The topics in sets of five, in name order (15 topics: three sets)."""
    ordered = sorted(topics)
    return [
        tuple(ordered[k : k + TOPICS_PER_USER])
        for k in range(0, len(ordered) - TOPICS_PER_USER + 1, TOPICS_PER_USER)
    ]


def load_form(root: Path, form: str) -> dict[str, list[dict[str, Any]]]:
    return {
        path.stem: orjson.loads(path.read_bytes()) for path in sorted((root / form).glob("*.json"))
    }


def users(
    form: str,
    records: dict[str, list[dict[str, Any]]],
    between: Sequence[dict[str, Any]],
    count: int,
    *,
    first: int = 0,
    inter_turns: int = 0,
) -> list[User]:
    """``count`` users of one form: user ``i`` holds item ``first + i`` of the topic set
    ``i mod 3``, and ``inter_turns`` turns of unrelated chat (a different start for each)."""
    sets = topic_sets(list(records))
    made = []
    for i in range(count):
        index = first + i
        items = tuple(
            Item(
                topic,
                index,
                records[topic][index]["preference"],
                records[topic][index]["question"],
                exchanges(form, records[topic][index]),
            )
            for topic in sets[i % len(sets)]
        )
        chats = chats_between(between, 3 * i, inter_turns)
        made.append(User(f"{form}-{index}", form, items, tuple(tuple(c) for c in chats)))
    return made
