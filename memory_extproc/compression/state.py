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

import hashlib
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import orjson

_INT8 = 127.0
_K1, _B = 1.2, 0.75  # BM25's usual


def is_dialogue(role: str, text: str) -> bool:
    """A message learning reads and counts: the user's or the assistant's, with text (not a
    system prompt, a tool's output, or a tool call without words)."""
    return role in ("user", "assistant") and bool(text.strip())


def opening(user_id: str, project_id: str, dialogue: Sequence[tuple[str, str]]) -> str:
    """The key of a conversation whose dialogue messages (role, text) are these, as sent."""
    first_user = next((text for role, text in dialogue if role == "user"), "")
    first_answer = next((text for role, text in dialogue if role == "assistant"), "")
    return conversation_key(user_id, project_id, first_user, first_answer)


def conversation_key(user_id: str, project_id: str, first_user: str, first_answer: str) -> str:
    """Who, and how the conversation began: learning's key for it (learning/turns.py), which a
    request that resends the whole conversation names again."""
    digest = hashlib.sha256()
    for part in (user_id, project_id, first_user, first_answer):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
    return digest.hexdigest()[:32]


def fingerprint(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def word_ids(words: Iterable[str]) -> np.ndarray:
    """A message's words (words.terms: stemmed, CJK as character pairs) as 32-bit ids: what
    scoring by shared words needs, without keeping the words."""
    return np.array(sorted({zlib.crc32(w.encode()) for w in words}), dtype=np.uint32)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A batch's new messages: dialogue positions ``first`` … ``first + len(scales) - 1``."""

    first: int
    dates: np.ndarray  # int64 epoch ms per message: when it was said (its batch's date)
    vectors: np.ndarray  # int8, one row per message, each row scaled by its ``scales``
    scales: np.ndarray  # float32
    words: np.ndarray  # uint32 word ids (word_ids), each message's in turn
    counts: np.ndarray  # uint32: how many of ``words`` are each message's
    tail: str  # fingerprint of the last message's text as the client sent it
    summary: str = (
        ""  # the conversation's running state up to ``end`` (worker/conversation_state.py)
    )

    @property
    def end(self) -> int:
        return self.first + len(self.scales)

    def followed_by(self, later: Chunk) -> Chunk:
        """One chunk of both (``later`` starts where this one ends): a conversation learned a
        turn at a time is read back in a few chunks, not one per turn."""
        dates, vectors, scales, words, counts = (
            np.concatenate([getattr(self, n), getattr(later, n)]) for n in _ROWS
        )
        summary = later.summary or self.summary
        return Chunk(self.first, dates, vectors, scales, words, counts, later.tail, summary)

    def encode(self) -> bytes:
        """A small JSON header, then the arrays' bytes as they are: read back without copying
        or decoding them (base64 doubled a compressed request's cost)."""
        header = orjson.dumps(
            {"first": self.first, "tail": self.tail, "summary": self.summary,
             "dimension": int(self.vectors.shape[1]), "messages": len(self.scales),
             "words": len(self.words)}
        )  # fmt: skip
        arrays = (getattr(self, name).astype(dtype).tobytes() for name, dtype in _LAYOUT)
        return b"".join([_MAGIC, len(header).to_bytes(4, "big"), header, *arrays])

    @classmethod
    def decode(cls, raw: bytes) -> Chunk | None:
        """None for anything not in this shape (another release's, or damaged)."""
        try:
            if not raw.startswith(_MAGIC):
                return None
            size = int.from_bytes(raw[4:8], "big")
            head = orjson.loads(raw[8 : 8 + size])
            rows, dimension = int(head["messages"]), int(head["dimension"])
            lengths = {"dates": rows, "scales": rows, "counts": rows,
                       "words": int(head["words"]), "vectors": rows * dimension}  # fmt: skip
            at, found = 8 + size, {}
            for name, dtype in _LAYOUT:
                count = lengths[name]
                found[name] = np.frombuffer(raw, dtype=dtype, count=count, offset=at)
                at += count * np.dtype(dtype).itemsize
            if at != len(raw) or int(found["counts"].sum()) != len(found["words"]):
                return None
            return cls(int(head["first"]), found["dates"],
                       found["vectors"].reshape(rows, dimension), found["scales"],
                       found["words"], found["counts"], str(head["tail"]),
                       str(head.get("summary", "")))  # fmt: skip
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None


_MAGIC = b"MXC1"  # a compression chunk, layout 1
_LAYOUT = (("dates", np.int64), ("scales", np.float32), ("counts", np.uint32),
           ("words", np.uint32), ("vectors", np.int8))  # fmt: skip
_ROWS = ("dates", "vectors", "scales", "words", "counts")


def chunk(
    first: int,
    at_ms: int,
    vectors: list[np.ndarray],
    words: list[np.ndarray],
    tail: str,
    summary: str = "",
) -> Chunk:
    """Vectors kept as int8 with a scale per row: a quarter of float32's bytes, for scores
    within ~1% of theirs. ``words``: each message's word_ids."""
    rows = np.asarray(vectors, dtype=np.float32)
    scales = np.maximum(np.abs(rows).max(axis=1), 1e-12) / _INT8
    quantized = np.rint(rows / scales[:, None]).astype(np.int8)
    dates = np.full(len(rows), at_ms, dtype=np.int64)
    counts = np.array([len(w) for w in words], dtype=np.uint32)
    flat = np.concatenate(words).astype(np.uint32) if words else np.zeros(0, np.uint32)
    return Chunk(first, dates, quantized, scales.astype(np.float32), flat, counts, tail, summary)


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

    def shared_words(self, words: Iterable[str], upto: int) -> np.ndarray:
        """Each of the first ``upto`` messages' BM25 score for these words (each word once per
        message), against the whole conversation's: a question names the few words its answer
        was said with, which a sentence's vector blurs in a long chatty message."""
        flat = np.concatenate([c.words for c in self.chunks])
        counts = np.concatenate([c.counts for c in self.chunks]).astype(np.float64)
        owner = np.repeat(np.arange(len(counts)), counts.astype(np.int64))
        held = len(counts)
        length = counts / max(counts.mean(), 1.0)
        score = np.zeros(held, dtype=np.float64)
        for word in word_ids(words):
            hits = owner[flat == word]
            if len(hits):
                idf = np.log(1 + (held - len(hits) + 0.5) / (len(hits) + 0.5))
                score[hits] += idf * (_K1 + 1) / (1 + _K1 * (1 - _B + _B * length[hits]))
        return score[:upto]

    @property
    def summary(self) -> str:
        """The latest running state among the chunks ("" when none was kept)."""
        return next((c.summary for c in reversed(self.chunks) if c.summary), "")

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
