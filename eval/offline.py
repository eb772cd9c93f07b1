"""A fast stand-in for `make eval` replay mode, to try retrieval ideas in seconds.

Each conversation's gold observations are one user's memories (as replay mode stores them,
without the pipeline's dedup), each question of categories 1-4 is a query, and the service's own
ranking code picks what would be injected. `make eval` confirms whatever looks good here.

    .venv/bin/python -m eval.offline [--threshold 0.4] [--limit 5]
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
    provenance = Provenance.of(samples)
    results = []
    for sample, side in ((s, side) for s in samples for side in SIDES):
        about = speaker(sample, side)  # each speaker is a user with the observations about them
        texts = sorted({text for who, text, _ in replay.observations(sample) if who == about})
        memories = [Memory.new("u", t, created_at=0) for t in texts]
        vectors = np.stack([embedder.embed([t])[0] for t in texts])
        for question in (q for q in questions(sample) if q.side == side):
            cosines = vectors @ embedder.embed([question.text])[0]
            order = np.argsort(-cosines)[: policy.candidates]
            candidates = [
                ScoredMemory(memories[i], float(cosines[i]))
                for i in order
                if cosines[i] >= policy.candidate_floor(args.threshold)
            ]
            chosen = rank(question.text, candidates, args.threshold, args.limit, policy)
            context, injected = format_context(chosen, args.max_chars)
            lines = [f"[1970-01-01] {m.memory.content}" for m in injected]
            results.append(Asked(question, lines, len(context) // 4))
    report = score(results, provenance)
    for name, row in report.items():
        print(name, dataclasses.asdict(policy) if name == "all" else "", row)


if __name__ == "__main__":
    main()
