"""LoCoMo as traffic and as a yardstick: pure functions, no I/O.

* ``chats``: a conversation replayed as the chat requests an application would send (speaker A is
  the user, speaker B answers), each with its session date.
* ``Provenance``: which conversation turns a stored memory came from, so an injected memory can be
  checked against a question's evidence turns: a gold observation names its turns; an episodic
  Q/A note quotes them.
* ``score``: hit@k, empty injections and injected tokens per mode and category.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from eval.replay import observations, sessions
from memory_extproc.words import terms

CATEGORIES = (1, 2, 3, 4)  # 5 is adversarial (no answer): left out, as LoCoMo's standard set does
_DIA = re.compile(r"D\d+:\d+")
_DATE_PREFIX = re.compile(r"^\[\d{4}-\d{2}-\d{2}\] ")
_QUOTE_CHARS = 60  # an episodic note quotes a turn if it holds the turn's first 60 characters


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass(frozen=True, slots=True)
class Chat:
    session: int
    date: str  # ISO, for the x-memory-date header
    messages: list[dict[str, str]]  # the request's history, ending with the user's turn(s)
    answer: str  # what the "LLM" (speaker B) answers


@dataclass(frozen=True, slots=True)
class Question:
    sample_id: str
    text: str
    category: int
    evidence: frozenset[str]  # "conv-26/D1:3"


def session_date(text: str) -> str:
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").isoformat()


def chats(sample: dict[str, Any]) -> list[Chat]:
    """Every exchange of every session, in order; a session is a new conversation."""
    speaker_a = sample["conversation"]["speaker_a"]
    found = []
    for session in sessions(sample):
        history: list[dict[str, str]] = []
        for turn in session.turns:
            role = "user" if turn["speaker"] == speaker_a else "assistant"
            if role == "assistant" and history and history[-1]["role"] == "user":
                found.append(
                    Chat(
                        session.number, session_date(session.date_time), list(history), turn["text"]
                    )
                )
            history.append({"role": role, "content": turn["text"]})
    return found


def questions(sample: dict[str, Any]) -> list[Question]:
    prefix = sample["sample_id"]
    return [
        Question(
            prefix,
            qa["question"],
            int(qa["category"]),
            frozenset(f"{prefix}/{d}" for e in qa.get("evidence", []) for d in _DIA.findall(e)),
        )
        for qa in sample["qa"]
        if int(qa["category"]) in CATEGORIES
    ]


@dataclass
class Provenance:
    """Memory text → the turns it came from."""

    observed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    quoted: list[tuple[str, str]] = field(default_factory=list)  # (turn opening, dia id)
    covered: set[str] = field(default_factory=set)  # turns some observation comes from
    said: list[tuple[set[str], str]] = field(default_factory=list)  # (turn words, dia id)

    @classmethod
    def of(cls, samples: Iterable[dict[str, Any]]) -> Provenance:
        provenance = cls()
        for sample in samples:
            prefix = sample["sample_id"]
            for text, ids in observations(sample):
                turns = {f"{prefix}/{i}" for i in ids}
                provenance.observed[norm(text)].update(turns)
                provenance.covered.update(turns)
            for session in sessions(sample):
                for turn in session.turns:
                    opening = norm(turn["text"])[:_QUOTE_CHARS]
                    if len(opening) >= 12:
                        provenance.quoted.append((opening, f"{prefix}/{turn['dia_id']}"))
                    provenance.said.append((terms(turn["text"]), f"{prefix}/{turn['dia_id']}"))
        return provenance

    def covers(self, question: Question) -> bool:
        """A gold observation comes from one of the question's evidence turns: the question is
        answerable from memory at all (LoCoMo has questions whose evidence no observation
        covers; they are left out of hit@k, as in the baseline)."""
        return bool(question.evidence & self.covered)

    def turns(self, injected_line: str, *, attribute: bool = False) -> set[str]:
        """The turns a memory comes from: a gold observation's, the turns a note quotes, or
        (``attribute``: a model's own wording) the turns that share most of its words."""
        content = norm(_DATE_PREFIX.sub("", injected_line))
        if content in self.observed:
            return set(self.observed[content])
        quoted = {dia for opening, dia in self.quoted if opening in content}
        return quoted or (self.attributed(content) if attribute else set())

    def attributed(self, content: str) -> set[str]:
        """The turns sharing the most words with a fact, if they share at least two and 40% of
        its words ("User attended an LGBTQ support group on 2023-05-07" → "I went to a LGBTQ
        support group yesterday …")."""
        words = terms(content) - {"user"}
        best, turns = 0, set()
        for said, dia in self.said:
            shared = len(words & said)
            if shared > best:
                best, turns = shared, {dia}
            elif shared == best:
                turns.add(dia)
        return turns if best >= 2 and best >= 0.4 * len(words) else set()


@dataclass(frozen=True, slots=True)
class Asked:
    question: Question
    injected: list[str]  # the memory lines, best first
    tokens: int  # of the whole injected context


def hit_at(asked: Asked, k: int, provenance: Provenance, attribute: bool = False) -> bool:
    return any(
        provenance.turns(line, attribute=attribute) & asked.question.evidence
        for line in asked.injected[:k]
    )


def score(
    results: Sequence[Asked],
    provenance: Provenance,
    ks: Sequence[int] = (1, 3, 5),
    *,
    attribute: bool = False,
) -> dict:
    """Per category and overall, over the questions a gold observation covers: hit@k, the share
    with nothing injected, injected tokens. ``attribute``: memories in a model's own words are
    traced to turns by the words they share (the llm mode)."""
    groups: dict[str, list[Asked]] = defaultdict(list)
    for asked in results:
        if not provenance.covers(asked.question):
            continue
        groups[f"category_{asked.question.category}"].append(asked)
        groups["all"].append(asked)
    report = {}
    for name, group in sorted(groups.items()):
        tokens = sorted(a.tokens for a in group)
        report[name] = {
            "questions": len(group),
            **{
                f"hit_at_{k}": round(
                    sum(hit_at(a, k, provenance, attribute) for a in group) / len(group), 3
                )
                for k in ks
            },
            "nothing_injected": round(sum(not a.injected for a in group) / len(group), 3),
            "mean_injected_tokens": round(statistics.fmean(tokens), 1),
            "p95_injected_tokens": tokens[min(len(tokens) - 1, int(0.95 * len(tokens)))],
        }
    return report


def first_sessions(sample: dict[str, Any], count: int) -> dict[str, Any]:
    """The sample cut to its first ``count`` sessions (conversation only; observations and
    questions stay whole: ``questions_within`` picks the ones these sessions answer)."""
    conversation = {
        key: value
        for key, value in sample["conversation"].items()
        if not (m := re.match(r"session_(\d+)", key)) or int(m.group(1)) <= count
    }
    return {**sample, "conversation": conversation}


def questions_within(sample: dict[str, Any], count: int) -> list[Question]:
    """The questions whose evidence lies entirely in the first ``count`` sessions."""
    limit = {f"{sample['sample_id']}/D{n}:" for n in range(1, count + 1)}
    return [
        q for q in questions(sample)
        if q.evidence and all(e.startswith(tuple(limit)) for e in q.evidence)
    ]  # fmt: skip
