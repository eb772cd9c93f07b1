"""`python -m eval.bridge_fit`: fit the matrices that carry a memory's reading from one model's
space into the other's (memory_extproc/embedding/bridge.py) on LoCoMo dev's English text: every
turn, question and observation, each read by both models as the product reads a memory. Prints
each direction's held-out cosine (fitted on three conversations, checked on the other two; for
MiniLM into e5 also centred on e5's mean English reading, what a question in another language
ranks by), then refits on all and writes ``e5_to_minilm.npy`` and ``minilm_to_e5.npy``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from eval import replay
from memory_extproc.config import load
from memory_extproc.embedding.bridge import MATRIX, TO_E5, fit
from memory_extproc.embedding.multilingual import PASSAGE
from memory_extproc.wiring import build_embedder, build_multilingual

RIDGE = 0.1  # held-out cosine 0.69 (1: 0.685, 3: 0.64, 10: 0.57)
RIDGE_TO_E5 = 1.0  # held-out cosine centred 0.61 (0.01-3: 0.59-0.61; eval/RESULTS.md)
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
    mean = np.mean(np.vstack([e5_fit, e5_held]), axis=0)
    to_minilm = _cosine(e5_held @ fit(e5_fit, minilm_fit, RIDGE), minilm_held)
    carried = minilm_held @ fit(minilm_fit, e5_fit, RIDGE_TO_E5)
    carried /= np.linalg.norm(carried, axis=1, keepdims=True)
    to_e5, centred = _cosine(carried, e5_held), _cosine(carried - mean, e5_held - mean)
    e5_all, minilm_all = np.vstack([e5_fit, e5_held]), np.vstack([minilm_fit, minilm_held])
    np.save(MATRIX, fit(e5_all, minilm_all, RIDGE))
    np.save(TO_E5, fit(minilm_all, e5_all, RIDGE_TO_E5))
    print(json.dumps({"texts": len(fitted_on) + len(held_out), "held_out": len(held_out),
                      "to_minilm_cosine": round(to_minilm, 3), "ridge": RIDGE,
                      "to_e5_cosine": round(to_e5, 3), "to_e5_centred": round(centred, 3),
                      "ridge_to_e5": RIDGE_TO_E5}))  # fmt: skip


def _cosine(carried: np.ndarray, own: np.ndarray) -> float:
    carried = carried / np.linalg.norm(carried, axis=1, keepdims=True)
    own = own / np.linalg.norm(own, axis=1, keepdims=True)
    return float(np.mean(np.sum(carried * own, axis=1)))


if __name__ == "__main__":
    main()
