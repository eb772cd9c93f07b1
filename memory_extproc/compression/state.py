"""What the request path knows of a conversation's earlier messages, to compress it. Pure.

The worker reads each batch's new messages once (their vectors, in the embedder's space) and
the processor keeps them as a chunk beside the conversation's state (learning/shared*.py). A
request that asks for compression reads the chunks back and scores its earlier messages against
its own question without embedding any of them: the request path only reads.

Messages are counted as learning counts them: a conversation's user and assistant messages with
text, in order ("dialogue positions"). A chunk also holds a fingerprint of its last message as
the client sent it, so a request whose history differs there (an edited or regenerated message)
is not compressed with vectors of another text.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import orjson

_INT8 = 127.0


def conversation_key(user_id: str, project_id: str, first_user: str, first_answer: str) -> str:
    """Who, and how the conversation began: learning's key for it (learning/turns.py), which a
    request that resends the whole conversation names again."""
    digest = hashlib.sha256()
    for part in (user_id, project_id, first_user, first_answer):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
    return digest.hexdigest()[:32]


def fingerprint(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A batch's new messages: dialogue positions ``first`` … ``first + len(scales) - 1``."""

    first: int
    dates: np.ndarray  # int64 epoch ms per message: when it was said (its batch's date)
    vectors: np.ndarray  # int8, one row per message, each row scaled by its ``scales``
    scales: np.ndarray  # float32
    tail: str  # fingerprint of the last message's text as the client sent it

    @property
    def end(self) -> int:
        return self.first + len(self.scales)

    def followed_by(self, later: Chunk) -> Chunk:
        """One chunk of both (``later`` starts where this one ends): a conversation learned a
        turn at a time is read back in a few chunks, not one per turn."""
        return Chunk(
            self.first,
            np.concatenate([self.dates, later.dates]),
            np.concatenate([self.vectors, later.vectors]),
            np.concatenate([self.scales, later.scales]),
            later.tail,
        )

    def encode(self) -> bytes:
        return orjson.dumps(
            {
                "first": self.first,
                "dates": base64.b64encode(self.dates.tobytes()).decode(),
                "tail": self.tail,
                "dimension": int(self.vectors.shape[1]),
                "vectors": base64.b64encode(self.vectors.tobytes()).decode(),
                "scales": base64.b64encode(self.scales.tobytes()).decode(),
            }
        )

    @classmethod
    def decode(cls, raw: bytes) -> Chunk | None:
        """None for anything not in this shape (another release's, or damaged)."""
        try:
            entry = orjson.loads(raw)
            scales = np.frombuffer(base64.b64decode(entry["scales"]), dtype=np.float32)
            vectors = np.frombuffer(base64.b64decode(entry["vectors"]), dtype=np.int8)
            vectors = vectors.reshape(len(scales), int(entry["dimension"]))
            dates = np.frombuffer(base64.b64decode(entry["dates"]), dtype=np.int64)
            if len(dates) != len(scales):
                return None
            return cls(int(entry["first"]), dates, vectors, scales, str(entry["tail"]))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None


def chunk(first: int, at_ms: int, vectors: list[np.ndarray], tail: str) -> Chunk:
    """Vectors kept as int8 with a scale per row: a quarter of float32's bytes, for scores
    within ~1% of theirs."""
    rows = np.asarray(vectors, dtype=np.float32)
    scales = np.maximum(np.abs(rows).max(axis=1), 1e-12) / _INT8
    quantized = np.rint(rows / scales[:, None]).astype(np.int8)
    dates = np.full(len(rows), at_ms, dtype=np.int64)
    return Chunk(first, dates, quantized, scales.astype(np.float32), tail)


@dataclass(frozen=True, slots=True)
class ConversationIndex:
    """The chunks that follow each other from the conversation's first message."""

    upto: int  # dialogue positions 0 … upto - 1 are held
    tail: str  # fingerprint of message ``upto - 1``
    chunks: tuple[Chunk, ...]

    def scores(self, query: np.ndarray, upto: int) -> np.ndarray:
        """Each of the first ``upto`` messages' score against the question (inner product, as
        memories are scored: embedding/spaces.py)."""
        found = [c.vectors.astype(np.float32) @ query * c.scales for c in self.chunks]
        return np.concatenate(found)[:upto] if found else np.zeros(0, dtype=np.float32)

    def said_at(self, position: int) -> int:
        for held in self.chunks:
            if held.first <= position < held.end:
                return int(held.dates[position - held.first])
        return 0


def assemble(chunks: Iterable[Chunk]) -> ConversationIndex | None:
    """The index from the conversation's start up to the first gap (a chunk another replica has
    not written yet, or one that was lost): what follows a gap is not known to be contiguous."""
    by_first = {c.first: c for c in chunks}
    held: list[Chunk] = []
    at = 0
    while (following := by_first.get(at)) is not None and len(following.scales):
        held.append(following)
        at = following.end
    if not held:
        return None
    return ConversationIndex(at, held[-1].tail, tuple(held))
