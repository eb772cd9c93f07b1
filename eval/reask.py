"""`python -m eval.reask WORKDIR RESULTS`: a finished `make eval`'s questions asked again, in
this process, of the memories that run learned, through the service's own retrieval.

`make eval` keeps its Milvus data in its work directory and every question it asked in its
results file (its last line but one names both: "details in RESULTS, logs in WORKDIR").
Learning with the local model takes ~30 minutes; a ranking or threshold idea tried on what
that run learned takes seconds here, on the same memories and questions. On the code that
ran, this gives back every injected line of the run (79 of 79 questions of the llm and
replay_slice modes, eval/RESULTS.md), so a difference it shows is the idea's alone. `make
eval` confirms what looks good here.

The Milvus data are copied first (Milvus writes to what it opens).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from devstack.milvus import MilvusProcess
from devstack.mock_llm import memory_lines
from devstack.ports import free_port
from eval import replay
from eval.locomo import Asked, Provenance, Question, score, user_of
from memory_extproc.config import load
from memory_extproc.embedding.spaces import DIMENSION
from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import Api, parse_request
from memory_extproc.retrieval.service import MemoryRetrieval
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.wiring import build_embeddings, retrieval_policy

_PATH = "/v1/chat/completions"


def question_of(asked: dict[str, Any]) -> Question:
    return Question(
        asked["sample_id"], asked["question"], asked["category"],
        frozenset(asked["evidence"]), asked["side"], asked["answer"],
    )  # fmt: skip


async def reask(retrieval: MemoryRetrieval, asked: list[dict[str, Any]]) -> list[Asked]:
    """Each question as `make eval` sends it: a new conversation, not learned from."""
    results = []
    for item in asked:
        question = question_of(item)
        body = {"model": "eval", "messages": [{"role": "user", "content": question.text}],
                "memory_config": {"auto_store": False}}  # fmt: skip
        request = parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(body))
        signals = HeaderSignals(user_id=user_of(question.sample_id, question.side), path=_PATH)
        result = await retrieval.process(request, signals)
        lines = memory_lines(orjson.loads(result.body)) if result.body else []
        results.append(Asked(question, lines, 0))
    return results


async def main(workdir: Path, results_file: Path) -> None:
    detail = json.loads(await asyncio.to_thread(results_file.read_text))
    modes = [m for m in detail if m != "summary" and (workdir / m).is_dir()]
    data = Path(tempfile.mkdtemp(prefix="memory-extproc-reask-")) / "milvus"
    shutil.copytree(workdir / "milvus", data)
    milvus = MilvusProcess(data, free_port())
    config = load(None)
    embeddings = build_embeddings(config, "reask")
    provenance = Provenance.of(replay.load_samples())
    try:
        await asyncio.to_thread(milvus.wait_ready)
        for mode in modes:
            store = MilvusStore(milvus.uri, f"eval_{mode}", DIMENSION)
            await store.start()
            await store.wait_available(120)
            try:
                retrieval = MemoryRetrieval(embeddings, store, retrieval_policy(config), 30.0)
                results = await reask(retrieval, detail[mode]["asked"])
            finally:
                await store.close()
            same = sum(
                r.injected == a["injected"]
                for r, a in zip(results, detail[mode]["asked"], strict=True)
            )
            scored = score(results, provenance, attribute=mode == "llm")
            print(f"{mode}: the same lines as the run for {same} of {len(results)} questions")
            for group in ("all", *sorted(k for k in scored if k.startswith("conv-"))):
                row = scored[group]
                print(f"  {group:<8} n {row['questions']:>3}  hit@1 {row['hit_at_1']:.3f}  "
                      f"hit@5 {row['hit_at_5']:.3f}  answer {row['answer_recall']:.3f}  "
                      f"empty {row['nothing_injected']:.3f}")  # fmt: skip
    finally:
        embeddings.close()
        milvus.stop()
        shutil.rmtree(data.parent, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
