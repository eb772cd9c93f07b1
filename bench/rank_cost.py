"""`python -m bench.rank_cost`: what ranking and the injected block cost a request when its
candidates were read before (a per-text cache answers) and when they were not (a deployment's
many distinct memories: the words of each are read anew).

LoCoMo's dev questions, each against 30 of its observations (facts) as candidates, each said
on a day of its own, through the request path's own pure steps (the question's language told,
``rank``, ``format_context``);
process CPU per request, caches warm, then cleared before each request. Prints one JSON line.
"""

from __future__ import annotations

import json
import random
import time

from eval.locomo import questions
from eval.replay import load_samples
from memory_extproc import words
from memory_extproc.languages import language_of
from memory_extproc.memories import changes
from memory_extproc.retrieval.context import format_context
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import rank
from memory_extproc.store.model import Memory, ScoredMemory

CANDIDATES = 30
DAY = 86_400_000  # each candidate said on a day of its own, as a user's memories are


def requests() -> list[tuple[str, list[ScoredMemory]]]:
    samples = load_samples()
    turns = [  # what replay mode stores: LoCoMo's observations, one fact each
        fact
        for sample in samples
        for session in sample["observation"].values()
        for facts in session.values()
        for fact, _ in facts
    ]
    asked = [q.text for sample in samples for q in questions(sample)]
    random.Random(3).shuffle(turns)
    made = []
    for i, question in enumerate(asked):  # a window of turns each (caches cleared: never read)
        start = i * CANDIDATES % (len(turns) - CANDIDATES)
        texts = turns[start : start + CANDIDATES]
        made.append((question, [ScoredMemory(Memory.new("u", text, created_at=DAY * (99 - j)),
                                             0.62 - j * 0.01)
                                for j, text in enumerate(texts)]))  # fmt: skip
    return made


def cpu_ms(made: list[tuple[str, list[ScoredMemory]]], *, unseen: bool) -> float:
    policy = RetrievalPolicy()
    started = time.process_time()
    for question, candidates in made:
        if unseen:
            words.clear_cache()
            changes.clear_caches()
        language = language_of(question)
        ranked = rank(question, candidates, policy.threshold, policy.limit, policy.ranking,
                      language=language)  # fmt: skip
        format_context(ranked, policy.max_context_chars)
    return (time.process_time() - started) / len(made) * 1000


def main() -> None:
    made = requests()
    cpu_ms(made, unseen=False)  # every word's stem learned once, as a running process has
    seen = cpu_ms(made, unseen=False)
    unseen = cpu_ms(made, unseen=True)
    print(f"{len(made)} requests of {CANDIDATES} candidates: {seen:.2f} ms a request read "
          f"before, {unseen:.2f} ms never read")  # fmt: skip
    print(json.dumps({"requests": len(made), "seen_cpu_ms": round(seen, 3),
                      "unseen_cpu_ms": round(unseen, 3)}))  # fmt: skip


if __name__ == "__main__":
    main()
