"""`python -m eval.bridge_fit`: fit the matrix that carries e5's reading of a memory into
MiniLM's space (memory_extproc/embedding/bridge.py) on LoCoMo dev's English text: every turn,
question and observation, each read by both models as the product reads a memory. Prints the
held-out cosine (fitted on three conversations, checked on the other two), then refits on all
and writes ``memory_extproc/embedding/e5_to_minilm.npy``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from eval import replay
from memory_extproc.config import load
from memory_extproc.embedding.bridge import MATRIX, fit
from memory_extproc.embedding.multilingual import PASSAGE
from memory_extproc.wiring import build_embedder, build_multilingual

RIDGE = 0.1  # held-out cosine 0.69 (1: 0.685, 3: 0.64, 10: 0.57)
_BATCH = 64


def texts(sample: dict[str, Any]) -> list[str]:
    found = [turn["text"] for session in sample["conversation"].values()
             if isinstance(session, list) for turn in session if turn.get("text")]  # fmt: skip
    found += [qa["question"] for qa in sample["qa"]]
    for session in sample["observation"].values():
        for observations in session.values():
            found += [o[0] if isinstance(o, list) else o for o in observations]
    return [t for t in found if isinstance(t, str) and t.strip()]


def main() -> None:
    config = load(None)
    english, other = build_embedder(config), build_multilingual(config)

    def read(batch: list[str]) -> tuple[np.ndarray, np.ndarray]:
        rows = range(0, len(batch), _BATCH)
        e5 = np.vstack([other.embed([PASSAGE + t for t in batch[i : i + _BATCH]]) for i in rows])
        minilm = np.vstack([english.embed(batch[i : i + _BATCH]) for i in rows])
        return e5, minilm

    samples = orjson.loads(Path(replay.LOCOMO).read_bytes())
    fitted_on = [t for s in samples[:3] for t in texts(s)]
    held_out = [t for s in samples[3:] for t in texts(s)]
    (e5_fit, minilm_fit), (e5_held, minilm_held) = read(fitted_on), read(held_out)
    carried = e5_held @ fit(e5_fit, minilm_fit, RIDGE)
    carried /= np.linalg.norm(carried, axis=1, keepdims=True)
    cosine = float(np.mean(np.sum(carried * minilm_held, axis=1)))
    matrix = fit(np.vstack([e5_fit, e5_held]), np.vstack([minilm_fit, minilm_held]), RIDGE)
    np.save(MATRIX, matrix)
    print(json.dumps({"texts": len(fitted_on) + len(held_out), "held_out": len(held_out),
                      "held_out_cosine": round(cosine, 3), "ridge": RIDGE}))  # fmt: skip


if __name__ == "__main__":
    main()
