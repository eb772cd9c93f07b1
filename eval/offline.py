"""A fast stand-in for `make eval` replay mode, to try retrieval ideas in seconds.

Each conversation's gold observations are one user's memories (as replay mode stores them,
without the pipeline's dedup), each question of categories 1-4 is a query, and the service's own
ranking code picks what would be injected. `make eval` confirms whatever looks good here.

    .venv/bin/python -m eval.offline [--threshold 0.45] [--limit 5]

It also reports how often 20 generic prompts would be given a memory: what a lower bar costs.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from eval import replay
from eval.locomo import SIDES, Asked, Provenance, questions, score, speaker
from memory_extproc.embedding import model_files
from memory_extproc.embedding.onnx import OnnxEmbedder
from memory_extproc.embedding.quantize import int8_model
from memory_extproc.retrieval.context import format_context
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import RankPolicy, rank
from memory_extproc.store.model import Memory, ScoredMemory
from memory_extproc.words import in_memory_voice

# Requests memory should not touch: how often each LoCoMo user would be given one anyway.
GENERIC_PROMPTS = (
    "Write a haiku about autumn leaves", "How do I reverse a list in Python?",
    "Explain the difference between TCP and UDP.", "What is the capital of Australia?",
    "Give me a recipe for banana bread.", "Summarize the plot of Hamlet.",
    "How do I center a div in CSS?", "Translate 'good morning' into Spanish.",
    "What causes the seasons on Earth?", "Write a limerick about a cat.",
    "Can you help me write a cover letter for a software job?",
    "What's a good name for a goldfish?", "How does compound interest work?",
    "List three tips for better sleep.", "What is the boiling point of water at altitude?",
    "Explain recursion to a beginner.", "I need a SQL query that counts rows per day.",
    "What should I pack for a weekend hike?", "Tell me a joke.", "How do I fix a flat bike tyre?",
)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    defaults = RetrievalPolicy()
    parser.add_argument("--threshold", type=float, default=defaults.threshold)
    parser.add_argument("--limit", type=int, default=defaults.limit)
    parser.add_argument("--max-chars", type=int, default=defaults.max_context_chars)
    parser.add_argument("--hybrid", choices=["on", "off"], default="on")
    for name, value in dataclasses.asdict(RankPolicy()).items():
        if name != "hybrid":
            parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = parser.parse_args()
    policy = RankPolicy(
        hybrid=args.hybrid == "on",
        **{k: getattr(args, k) for k in dataclasses.asdict(RankPolicy()) if k != "hybrid"},
    )
    samples = replay.load_samples()
    embedder = OnnxEmbedder(int8_model(model_files()))

    def chosen(query: str, memories: list[Memory], vectors: np.ndarray) -> list[ScoredMemory]:
        """What the service would rank for this query over one user's memories."""
        cosines = vectors @ embedder.embed([in_memory_voice(query)])[0]
        candidates = [
            ScoredMemory(memories[i], float(cosines[i]))
            for i in np.argsort(-cosines)[: policy.candidates]
            if cosines[i] >= policy.candidate_floor(args.threshold)
        ]
        return rank(query, candidates, args.threshold, args.limit, policy)

    results, generic_given = [], 0
    for sample, side in ((s, side) for s in samples for side in SIDES):
        about = speaker(sample, side)  # each speaker is a user with the observations about them
        texts = sorted({text for who, text, _ in replay.observations(sample) if who == about})
        memories = [Memory.new("u", t, created_at=0) for t in texts]
        vectors = np.stack([embedder.embed([in_memory_voice(t)])[0] for t in texts])
        for question in (q for q in questions(sample) if q.side == side):
            picked = chosen(question.text, memories, vectors)
            context, injected = format_context(picked, args.max_chars)
            lines = [f"[1970-01-01] {m.memory.content}" for m in injected]
            results.append(Asked(question, lines, len(context) // 4))
        generic_given += sum(bool(chosen(p, memories, vectors)) for p in GENERIC_PROMPTS)
    report = score(results, Provenance.of(samples))
    users = len(samples) * len(SIDES)
    for name, row in report.items():
        print(name, dataclasses.asdict(policy) if name == "all" else "", row)
    print(f"generic prompts given a memory: {generic_given / (users * len(GENERIC_PROMPTS)):.3f}")


if __name__ == "__main__":
    main()
