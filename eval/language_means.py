"""`python -m eval.language_means`: what a question in another language than English is centred
on, and the scale its centred score is read on (memory_extproc/embedding/spaces.py).

1. ``SAMPLE`` of LoCoMo dev's observations, as their speaker's memory holds them ("User attended
   a support group…"), are translated into each of ``LANGUAGES`` by the local model (cached in
   eval/results/translations.json: LoCoMo's text stays out of the repository; the model is
   started only for what is not cached);
2. a language's mean is the mean e5 passage reading of its translations;
3. the scale: LoCoMo dev's questions (as their speaker asks them, in memory voice) against their
   conversation's memories, e5's score centred on English's mean, onto MiniLM's score of the same
   pairs; then each language's centred scores between its translations onto English's between
   the originals. Both quantile by quantile over the upper half (where thresholds are);
4. ``other``, the average of the languages', serves a language without its own.

Writes memory_extproc/embedding/e5_language_means.npz and prints one JSON line (the scale and
offset per language). The local model needs 2-4 s a sentence: ~10 minutes a language uncached.
"""

from __future__ import annotations

import json
import random
import socket
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

from devstack.local_llm import MODEL_NAME, LocalLlmProcess
from eval import replay
from eval.locomo import first_person
from memory_extproc.config import load
from memory_extproc.embedding.multilingual import PASSAGE, QUERY
from memory_extproc.embedding.spaces import MEANS
from memory_extproc.wiring import build_embedder, build_multilingual
from memory_extproc.words import in_memory_voice

LANGUAGES = {"zh": "Simplified Chinese", "es": "Spanish", "de": "German", "fr": "French",
             "ja": "Japanese"}  # fmt: skip
SAMPLE = 150
CACHE = Path(__file__).parent / "results" / "translations.json"
_BATCH = 64


def memories(sample: dict[str, Any]) -> list[str]:
    """Every observation as its speaker's memory holds it."""
    return [text for _, text, _ in replay.observations(sample)]


def sample_of(samples: list[dict[str, Any]]) -> list[str]:
    """Observations about their speaker alone (named once, no one else named), as the speaker's
    memory holds them ("User …")."""
    chosen = []
    for sample in samples:
        names = (sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"])
        for session in sample["observation"].values():
            for about, facts in session.items():
                others = [n for n in names if n != about]
                alone = [t for t, _ in facts
                         if t.count(about) == 1 and not any(n in t for n in others)]  # fmt: skip
                chosen += [t.replace(about, "User") for t in alone]
    random.Random(7).shuffle(chosen)
    return [t for t in chosen if t.startswith("User ")][:SAMPLE]


def translate(port: int, text: str, language: str) -> str:
    body = {"model": MODEL_NAME, "temperature": 0, "max_tokens": 160, "messages": [
        {"role": "system", "content": f"Translate the user's sentence into {language}. "
                                      "Reply with the translation only."},
        {"role": "user", "content": text}]}  # fmt: skip
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return str(json.load(response)["choices"][0]["message"]["content"]).strip()


def translations(originals: list[str]) -> dict[str, dict[str, str]]:
    done: dict[str, dict[str, str]] = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    todo = [(c, t) for c in LANGUAGES for t in originals if t not in done.get(c, {})]
    if not todo:
        return done
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = LocalLlmProcess(port, Path(tempfile.mkdtemp()) / "local-llm.log")
    try:
        model.wait_ready()
        for n, (code, text) in enumerate(todo, 1):
            done.setdefault(code, {})[text] = translate(port, text, LANGUAGES[code])
            if n % 25 == 0 or n == len(todo):
                CACHE.parent.mkdir(exist_ok=True)
                CACHE.write_text(json.dumps(done, ensure_ascii=False, indent=0))
                print(f"translated {n}/{len(todo)}", flush=True)
    finally:
        model.stop()
    return done


def quantile_map(scores: np.ndarray, onto: np.ndarray) -> tuple[float, float]:
    """``a``, ``b`` such that ``a·scores + b`` has ``onto``'s upper half, quantile by quantile."""
    levels = np.linspace(0.5, 0.999, 60)
    design = np.vstack([np.quantile(scores, levels), np.ones_like(levels)]).T
    scale, offset = np.linalg.lstsq(design, np.quantile(onto, levels), rcond=None)[0]
    return float(scale), float(offset)


def main() -> None:
    config = load(None)
    english, other = build_embedder(config), build_multilingual(config)

    def read(texts: list[str], prefix: str) -> np.ndarray:
        rows = range(0, len(texts), _BATCH)
        return np.vstack([other.embed([prefix + t for t in texts[i : i + _BATCH]]) for i in rows])

    def read_minilm(texts: list[str]) -> np.ndarray:
        rows = range(0, len(texts), _BATCH)
        return np.vstack([english.embed(texts[i : i + _BATCH]) for i in rows])

    def centred_pairs(texts: list[str], mean: np.ndarray) -> np.ndarray:
        """Each text asked about every other one, centred on ``mean``."""
        scores = (read(texts, QUERY) - mean) @ read(texts, PASSAGE).T
        return scores[~np.eye(len(texts), dtype=bool)]

    samples = replay.load_samples()
    originals = sample_of(samples)
    translated = translations(originals)
    english_mean = read(originals, PASSAGE).mean(axis=0)

    # English: e5's centred score of a question and a memory onto MiniLM's
    centred, minilm = [], []
    for sample in samples:
        a, b = sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"]
        questions = [qa["question"] for qa in sample["qa"] if qa.get("category") != 5]
        asked = [in_memory_voice(first_person(q, *((a, b) if a in q else (b, a))))
                 for q in questions]  # fmt: skip
        held = memories(sample)
        centred.append(((read(asked, QUERY) - english_mean) @ read(held, PASSAGE).T).ravel())
        minilm.append((read_minilm(asked) @ read_minilm(held).T).ravel())
    scale, offset = quantile_map(np.concatenate(centred), np.concatenate(minilm))

    # another language: its own centred scores onto English's, on the same (translated) pairs
    in_english = centred_pairs(originals, english_mean)
    fitted: dict[str, tuple[np.ndarray, float, float]] = {}
    for code in LANGUAGES:
        texts = [translated[code][t] for t in originals]
        mean = read(texts, PASSAGE).mean(axis=0)
        a, b = quantile_map(centred_pairs(texts, mean), in_english)
        fitted[code] = (mean, scale * a, offset + scale * b)
    fitted["other"] = (
        np.mean([m for m, _, _ in fitted.values()], axis=0),
        float(np.mean([s for _, s, _ in fitted.values()])),
        float(np.mean([o for _, _, o in fitted.values()])),
    )
    np.savez(
        MEANS,
        languages=np.array(list(fitted)),
        means=np.array([m for m, _, _ in fitted.values()], dtype=np.float32),
        scales=np.array([s for _, s, _ in fitted.values()], dtype=np.float32),
        offsets=np.array([o for _, _, o in fitted.values()], dtype=np.float32),
    )
    scales = {c: [round(s, 2), round(o, 2)] for c, (_, s, o) in fitted.items()}
    print(json.dumps({"sentences": len(originals), "english": [round(scale, 2), round(offset, 2)],
                      **scales}))  # fmt: skip


if __name__ == "__main__":
    main()
