"""How a user (or a response id) is named where it is kept outside Milvus, in spool files and
in Valkey: a digest, never the id itself. Below every layer: the store's write locks
(store/locks_valkey.py) and what learning shares (learning/shared*.py) name a user alike."""

from __future__ import annotations

import hashlib

PREFIX = "memory-extproc"  # of every Valkey key of ours


def digest(text: str) -> str:
    """What a user or response id is kept under, in files and in Valkey: never the id itself."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def valkey_user(user_id: str) -> str:
    """The start of a user's Valkey keys: the braces keep them in one cluster slot, so one
    script may touch several of them."""
    return f"{PREFIX}:{{{digest(user_id)}}}"
