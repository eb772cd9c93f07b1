"""The search query: the user's message, plus recent context when the message is not enough."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.lang import FILED, either
from memory_extproc.words import STOPWORDS

_VAGUE = re.compile(
    rf"^\s*(?:{either([language.amounts.vague for language in FILED])})(?!\w)", re.IGNORECASE
)
_SELF_CONTAINED_MIN_CHARS = 20
# The model reads at most 256 word pieces; a pasted document must not cost a 5 MB tokenization.
MAX_QUERY_CHARS = 1000
_CONTEXT_MESSAGES = 3
_MAX_TERMS_PER_MESSAGE = 8
_WORD = re.compile(r"[^\W_][\w'$%.,-]*[^\W_]|[^\W_]", re.UNICODE)


def is_self_contained(query: str) -> bool:
    """ "What's my budget for the Hawaii trip?" is; "How much?" or "And that one?" is not."""
    text = query.strip()
    return len(text) > _SELF_CONTAINED_MIN_CHARS and not _VAGUE.match(text)


def key_terms(text: str, limit: int = _MAX_TERMS_PER_MESSAGE) -> list[str]:
    terms: list[str] = []
    for word in _WORD.findall(text):
        lowered = word.lower()
        if lowered not in STOPWORDS and lowered not in terms:
            terms.append(lowered)
            if len(terms) == limit:
                break
    return terms


def build_search_query(query: str, earlier_user_messages: Sequence[str]) -> str:
    """Context prepend: the message, then key terms of the last 3 user messages before it (the
    current message is never counted twice); a model rewrite is the slower alternative."""
    query = query.strip()[:MAX_QUERY_CHARS]
    if is_self_contained(query) or not earlier_user_messages:
        return query
    terms: list[str] = []
    for message in reversed(earlier_user_messages[-_CONTEXT_MESSAGES:]):
        for term in key_terms(message[:MAX_QUERY_CHARS]):
            if term not in terms:
                terms.append(term)
    return f"{query} {' '.join(terms)}".strip()[:MAX_QUERY_CHARS]
