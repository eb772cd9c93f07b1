"""LoCoMo as traffic and as a yardstick: pure functions, no I/O.

A memory layer learns about its user, and a LoCoMo conversation is between two people: each is
replayed from both sides, speaker A as one user (B's lines as the assistant's) and speaker B as
another (A's lines as the assistant's). A question is asked by the speaker whose turns hold its
evidence (evidence from both: asked by each, each scored on its own turns), so every mode is
measured on what it could learn from its own user.

* ``chats``: a conversation replayed as the chat requests an application of one speaker would
  send, each with its session date.
* ``Provenance``: which conversation turns a stored memory came from, so an injected memory can be
  checked against a question's evidence turns: a gold observation names its turns; a
  Q/A note quotes them; a model's fact is traced by the words it shares with its user's turns.
* ``score``: hit@k, answer recall, empty injections and injected tokens per mode, category and
  evidence speaker.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from eval.answer_recall import recalled
from eval.replay import observations, sessions
from memory_extproc.memories.notes import statement
from memory_extproc.words import terms

CATEGORIES = (1, 2, 3, 4)  # 5 is adversarial (no answer): left out, as LoCoMo's standard set does
SIDES = ("a", "b")  # speaker_a, speaker_b: each one user
_DIA = re.compile(r"D\d+:\d+")
_DATE_PREFIX = re.compile(r"^\[\d{4}-\d{2}-\d{2}(?:, [a-z]+)*\] ")  # as injected
# when something happened, as the product resolves it in a fact (memories/relative_dates.py) or
# as an observation says it: a gold observation stored with its date resolved is still that one
_WHEN = re.compile(
    r"\s*\b(?:(?:on|in)\s+\d{4}(?:-\d{2}){0,2}|in\s+[a-z]+\s+\d{4}"
    r"|the\s+week(?:end)?\s+(?:before|of)\s+\d{4}-\d{2}-\d{2}|yesterday|last\s+\w+"
    r"|\w+\s+(?:days?|weeks?|months?|years?)\s+ago|today|tonight"
    r"|this\s+(?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_QUOTE_CHARS = 60  # a note quotes a turn if it holds the turn's first 60 characters


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def undated(text: str) -> str:
    return norm(_WHEN.sub(" ", text)).rstrip(" .")


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
    evidence: frozenset[str]  # "conv-26/D1:3": the asking speaker's evidence turns only
    side: str = "a"  # who asks: the speaker whose turns hold that evidence
    answer: str = ""  # LoCoMo's gold answer


def user_of(sample_id: str, side: str) -> str:
    """The user a speaker of a conversation is."""
    return f"locomo-{sample_id}-{side}"


def speaker(sample: dict[str, Any], side: str) -> str:
    name: str = sample["conversation"][f"speaker_{side}"]
    return name


def sides_of_turns(sample: dict[str, Any]) -> dict[str, str]:
    """Which side said each turn ("conv-26/D1:3" → "a")."""
    names = {speaker(sample, side): side for side in SIDES}
    prefix = sample["sample_id"]
    return {
        f"{prefix}/{turn['dia_id']}": names[turn["speaker"]]
        for session in sessions(sample)
        for turn in session.turns
        if turn["speaker"] in names
    }


def session_date(text: str) -> str:
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").isoformat()


# What the "LLM" answers a session's last turn when the user spoke last: no other speaker's
# line follows it, and the answer to a request's last message is not shown to extraction.
SESSION_END_ANSWER = "Talk soon!"


def chats(sample: dict[str, Any], side: str = "a") -> list[Chat]:
    """Every exchange of every session, in order, as speaker ``side`` sends them (the other
    speaker answers); a session is a new conversation. A session that ends on the user's
    turn sends it too, as an application would: left out, "I'm off to do some taekwondo!",
    the last line of one, was never heard, while replay mode stored its gold observation."""
    user = speaker(sample, side)
    found = []
    for session in sessions(sample):
        history: list[dict[str, str]] = []
        date = session_date(session.date_time)
        for turn in session.turns:
            role = "user" if turn["speaker"] == user else "assistant"
            if role == "assistant" and history and history[-1]["role"] == "user":
                found.append(Chat(session.number, date, list(history), turn["text"]))
            history.append({"role": role, "content": turn["text"]})
        if history and history[-1]["role"] == "user":
            found.append(Chat(session.number, date, list(history), SESSION_END_ANSWER))
    return found


_AUX = {
    "does": "do",
    "has": "have",
    "is": "am",
    "was": "was",
    "did": "did",
    "will": "will",
    "would": "would",
    "can": "can",
    "could": "could",
    "should": "should",
    "had": "had",
}
_SUBJECT_VERB = {"is": "am", "has": "have", "was": "was", "does": "do"}
_OBJECT_NEXT = frozenset(
    "a an the to about for with and or in on at from that this back".split()
)  # "wrote her a letter": her is the object, not "her car"


def first_person(text: str, name: str, other: str) -> str:
    """A question about ``name`` as ``name`` asks it ("When did Caroline go to the support
    group?" → "When did I go to the support group?"): a user asks about themselves, and a
    memory layer's facts about its user say "User …", not the user's name. ``other``: the
    other speaker, whose his/her is left alone."""
    n = re.escape(name)
    text = re.sub(rf"\b{n}'s\b", "my", text)
    text = re.sub(rf"\b({'|'.join(_AUX)})\s+{n}\b", lambda m: f"{_AUX[m.group(1).lower()]} I",
                  text, flags=re.IGNORECASE)  # fmt: skip
    text = re.sub(rf"\b{n}\s+(is|has|was|does)\b", lambda m: f"I {_SUBJECT_VERB[m.group(1)]}", text)
    text = re.sub(rf"(?:(?<=^)|(?<=[.?!,] )){n}\b", "I", text)
    text = re.sub(rf"\b{n}\b(?=\s+(?:and|or|\w+ed|\w+s)\b)", "I", text)
    text = re.sub(rf"\b{n}\b", "me", text)
    if other not in text:  # his / her can only be the asker's
        text = re.sub(
            r"\b(his|her)\b(?=\s+(\w+))",
            lambda m: "me" if m.group(2).lower() in _OBJECT_NEXT else "my",
            text,
        )
        text = re.sub(r"\b(his|her|him)\b", "me", text)
        text = re.sub(r"\b(himself|herself)\b", "myself", text)
    return text


def questions(sample: dict[str, Any]) -> list[Question]:
    """Each question of categories 1-4, asked by every speaker whose turns hold some of its
    evidence, in their words (``first_person``), with that speaker's evidence turns."""
    prefix = sample["sample_id"]
    side_of = sides_of_turns(sample)
    found = []
    for qa in sample["qa"]:
        if int(qa["category"]) not in CATEGORIES:
            continue
        evidence = {f"{prefix}/{d}" for e in qa.get("evidence", []) for d in _DIA.findall(e)}
        for side in SIDES:
            own = frozenset(e for e in evidence if side_of.get(e) == side)
            if own:
                other = speaker(sample, "b" if side == "a" else "a")
                text = first_person(qa["question"], speaker(sample, side), other)
                found.append(
                    Question(prefix, text, int(qa["category"]), own, side,
                             str(qa.get("answer", "")))
                )  # fmt: skip
    return found


@dataclass
class Provenance:
    """Memory text → the turns it came from."""

    observed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    observed_undated: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    quoted: list[tuple[str, str]] = field(default_factory=list)  # (turn opening, dia id)
    texts: list[tuple[str, str]] = field(default_factory=list)  # (whole turn, dia id)
    covered: set[str] = field(default_factory=set)  # turns an observation of their speaker cites
    # (user, turn words, dia id): the turns each user (a speaker of a conversation) said
    said: list[tuple[str, set[str], str]] = field(default_factory=list)

    @classmethod
    def of(cls, samples: Iterable[dict[str, Any]]) -> Provenance:
        provenance = cls()
        for sample in samples:
            prefix = sample["sample_id"]
            side_of = sides_of_turns(sample)
            names = {speaker(sample, side): side for side in SIDES}
            for about, text, ids in observations(sample):
                turns = {f"{prefix}/{i}" for i in ids}
                provenance.observed[norm(text)].update(turns)
                provenance.observed_undated[undated(text)].update(turns)
                provenance.covered.update(t for t in turns if side_of.get(t) == names.get(about))
            for session in sessions(sample):
                for turn in session.turns:
                    dia = f"{prefix}/{turn['dia_id']}"
                    opening = norm(turn["text"])[:_QUOTE_CHARS]
                    if len(opening) >= 12:
                        provenance.quoted.append((opening, dia))
                    provenance.texts.append((norm(turn["text"]), dia))
                    if dia in side_of:
                        user = user_of(prefix, side_of[dia])
                        provenance.said.append((user, terms(turn["text"]), dia))
        return provenance

    def covers(self, question: Question) -> bool:
        """A gold observation of the asking speaker comes from one of the question's evidence
        turns: the question is answerable from that user's memory at all (LoCoMo has questions
        whose evidence no observation covers; they are left out of hit@k, as in the baseline)."""
        return bool(question.evidence & self.covered)

    def turns(self, injected_line: str, *, attribute: str = "") -> set[str]:
        """The turns a memory comes from: a gold observation's, the turns a note quotes (whole,
        or one sentence of a turn, found in that turn only), or (``attribute``: a model's own
        wording, in this user's memory) the user's turns that share most of its words."""
        content = norm(_DATE_PREFIX.sub("", injected_line))
        if content in self.observed:
            return set(self.observed[content])
        if (key := undated(content)) in self.observed_undated:
            return set(self.observed_undated[key])
        quoted = {dia for opening, dia in self.quoted if opening in content}
        return (
            quoted
            or self.sentence_of(_DATE_PREFIX.sub("", injected_line))
            or (self.attributed(content, attribute) if attribute else set())
        )

    def sentence_of(self, content: str) -> set[str]:
        """The turn a note's quoted sentence comes from; nothing when several turns hold it."""
        said = statement(content)
        if said == content:  # not a note
            return set()
        said = norm(said).removesuffix("…")
        if len(said) < 12:
            return set()
        found = {dia for text, dia in self.texts if said in text}
        return found if len(found) == 1 else set()

    def attributed(self, content: str, user: str) -> set[str]:
        """The user's turns sharing the most words with a fact, if they share at least two and
        40% of its words ("User attended an LGBTQ support group on 2023-05-07" → "I went to a
        LGBTQ support group yesterday …")."""
        words = terms(content) - {"user"}
        best, turns = 0, set()
        for owner, said, dia in self.said:
            if owner != user:
                continue
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
    question = asked.question
    user = user_of(question.sample_id, question.side) if attribute else ""
    return any(
        provenance.turns(line, attribute=user) & question.evidence for line in asked.injected[:k]
    )


def score(
    results: Sequence[Asked],
    provenance: Provenance,
    ks: Sequence[int] = (1, 3, 5),
    *,
    attribute: bool = False,
) -> dict:
    """Overall, per category, per evidence speaker and per conversation, over the questions a
    gold observation of the asking speaker covers: hit@k, answer recall, the share with nothing
    injected, injected tokens. ``attribute``: memories in a model's own words are traced to turns
    by the words they share (the llm mode)."""
    groups: dict[str, list[Asked]] = defaultdict(list)
    for asked in results:
        if not provenance.covers(asked.question):
            continue
        groups[f"category_{asked.question.category}"].append(asked)
        groups[f"speaker_{asked.question.side}"].append(asked)
        groups[asked.question.sample_id].append(asked)
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
            "answer_recall": round(
                sum(recalled(a.question.answer, a.injected) for a in group) / len(group), 3
            ),
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
