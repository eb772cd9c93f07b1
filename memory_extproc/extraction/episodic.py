"""Without an extraction model the service still learns: compact Q/A chunks of real turns."""

from __future__ import annotations

import re

from memory_extproc.retrieval.decision import is_greeting

_QUESTION_CHARS = 300
_ANSWER_CHARS = 400
_MIN_QUESTION_CHARS = 12
_REFUSAL = re.compile(
    r"^\s*(i'?m\s+sorry|sorry,|i\s+(can(no|')?t|am\s+(not\s+able|unable))|as\s+an\s+ai\b"
    r"|i\s+don'?t\s+have\s+(access|information))",
    re.IGNORECASE,
)
_ACKNOWLEDGEMENT = re.compile(
    r"^\s*(ok(ay)?|sure|thanks?( you)?|thank you|great|cool|got it|yes|no|nice|perfect|awesome)"
    r"([\s,]+(a lot|so much|very much|again|for (that|this|the help)))?[\s!.,]*$",
    re.IGNORECASE,
)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def qa_chunk(question: str, answer: str, date: str) -> str | None:
    """One episodic memory for a substantive turn, or None for greetings, thanks and refusals."""
    question, answer = question.strip(), answer.strip()
    if len(question) < _MIN_QUESTION_CHARS or is_greeting(question):
        return None
    if _ACKNOWLEDGEMENT.match(question) or not answer or _REFUSAL.match(answer):
        return None
    asked, told = _clip(question, _QUESTION_CHARS), _clip(answer, _ANSWER_CHARS)
    return f'On {date} the user said: "{asked}" Answer: "{told}"'
