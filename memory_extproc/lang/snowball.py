"""Snowball's stemmers (snowballstemmer, BSD): the stem of a word in a language it has.

snowballstemmer hands out PyStemmer's C stemmers when PyStemmer is installed (a dependency):
the same stems as its pure-Python ones, ~28x faster on a word never stemmed before."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

import snowballstemmer


def snowball(name: str) -> Callable[[str], str]:
    """The stemmer Snowball calls ``name`` ("spanish": "vendí" / "vendió" → "vend"), cached: a
    vocabulary is shared by all users."""
    stemmer, lock = snowballstemmer.stemmer(name), threading.Lock()  # one word at a time

    @functools.lru_cache(maxsize=65536)
    def stemmed(word: str) -> str:
        with lock:
            return str(stemmer.stemWord(word.removesuffix("'s")))

    return stemmed
