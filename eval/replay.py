"""LoCoMo replay: a stand-in extraction model that answers with the benchmark's gold observations.

Given an extraction prompt, it finds which LoCoMo turns the transcript contains and returns the
observations written from those turns about the user (the speaker whose turns are the user's
lines), as a perfect extractor would, with the user's name as "User" (``as_user``): what the
other speaker says about themselves belongs to the other speaker's memory. Asked whether an
old fact is still true, it says yes (the observations are distinct facts). Used by the tests
and `make eval`.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from devstack.mock_llm import Reply
from memory_extproc.words import sentences
from memory_extproc.worker.prompts import REQUESTS_SYSTEM

# ../shared next to the repository (never copied into it); LOCOMO_PATH points elsewhere
LOCOMO = Path(
    os.environ.get(
        "LOCOMO_PATH",
        Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json",
    )
)


_SHORTEST = 15  # sentences shorter than this ("Thanks!") are left out of the match


def _norm(text: str) -> str:
    return " ".join(text.split())


_QUOTES = str.maketrans("", "", "\"'\u2033")


def _key(text: str) -> str:
    """A turn's text as matched: without quote marks, since the extraction prompt shows the
    user's double quotes as single ones (worker/prompts.py)."""
    return _norm(text.translate(_QUOTES))


@dataclass(frozen=True)
class Session:
    number: int
    date_time: str  # as LoCoMo writes it: "1:56 pm on 8 May, 2023"
    turns: list[dict[str, Any]]  # {speaker, dia_id, text}


def load_samples(path: Path = LOCOMO) -> list[dict[str, Any]]:
    return orjson.loads(path.read_bytes())


def sessions(sample: dict[str, Any]) -> list[Session]:
    conversation = sample["conversation"]
    numbers = sorted(
        int(m.group(1)) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key))
    )
    return [
        Session(n, conversation[f"session_{n}_date_time"], conversation[f"session_{n}"])
        for n in numbers
    ]


def as_user(text: str, name: str) -> str:
    """An observation about a speaker as their own memory holds it: "Caroline attended a
    support group" → "User attended a support group", as a memory layer writes about its user
    (and as the speaker asks: "When did I go to the support group?", eval/locomo.py)."""
    return re.sub(rf"\b{re.escape(name)}\b", "User", text)


def observations(sample: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(the speaker it is about, the observation as their memory holds it, evidence dia_ids)
    for every observation."""
    found = []
    for per_speaker in sample["observation"].values():
        for about, facts in per_speaker.items():
            for text, evidence in facts:
                ids = evidence if isinstance(evidence, list) else [evidence]
                found.append((about, _norm(as_user(text, about)), [str(i) for i in ids]))
    return found


class ObservationReplay:
    def __init__(self, samples: list[dict[str, Any]]) -> None:
        self._by_text: dict[str, set[str]] = defaultdict(set)  # turn text → dia ids
        self._speaker: dict[str, str] = {}  # dia id → who said it
        self._by_dia: dict[str, list[tuple[str, str]]] = defaultdict(list)  # → (about, text)
        for sample in samples:
            prefix = sample["sample_id"]
            for session in sessions(sample):
                for turn in session.turns:
                    dia = f"{prefix}/{turn['dia_id']}"
                    self._by_text[_key(turn["text"])].add(dia)
                    self._speaker[dia] = turn["speaker"]
            for about, text, evidence in observations(sample):
                for dia in evidence:
                    self._by_dia[f"{prefix}/{dia}"].append((about, text))

    def _turns(self, shown: str) -> list[str]:
        """The turns a transcript line shows: the extractor sees a turn clipped, without its
        questions or what it echoed from memory, so the turn that holds all of its sentences."""
        exact = self._by_text.get(shown)
        if exact:
            return sorted(exact)
        parts = [p.rstrip(".") for p in sentences(shown) if len(p) >= _SHORTEST]
        if not parts:
            return []
        return sorted(
            {d for text, ids in self._by_text.items() if all(p in text for p in parts)
             for d in ids}
        )  # fmt: skip

    def __call__(self, payload: dict[str, Any]) -> Reply:
        system = payload["messages"][0]["content"]
        if "still_true" in system:
            return Reply(text='{"still_true": true}')
        if system == REQUESTS_SYSTEM:  # LoCoMo has no gold kinds of request: none, as said
            return Reply(text='{"requests": []}')
        transcript = payload["messages"][-1]["content"]
        shown = [line.partition(": ") for line in transcript.splitlines()]
        turns = [(role, self._turns(_key(text))) for role, _, text in shown]
        said = {role: {self._speaker[d] for r, dias in turns if r == role for d in dias}
                for role in ("user", "assistant")}  # fmt: skip
        # a short line ("Good to see you!") can match both speakers' turns: the user is who
        # said the user's lines and not the assistant's
        users = (said["user"] - said["assistant"]) or said["user"]
        facts: list[str] = []
        for _, dias in turns:
            for dia in dias:
                facts.extend(
                    text
                    for about, text in self._by_dia.get(dia, [])
                    if about in users and text not in facts
                )
        answer = {"facts": [{"type": "semantic", "content": f} for f in facts]}
        return Reply(text=orjson.dumps(answer).decode())
