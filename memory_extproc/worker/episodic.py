"""Without an extraction model the service still learns: compact Q/A chunks of real turns.

What the answer only echoed from injected memories is left out of the note, and a turn that only
asked, answered from memory, leaves no note at all (echo.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.memories.notes import note
from memory_extproc.retrieval.decision import is_greeting
from memory_extproc.worker.echo import adds_information, is_request, strip_echoes

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


def qa_chunk(question: str, answer: str, date: str, recalled: Sequence[str] = ()) -> str | None:
    """One episodic memory for a substantive turn, or None for greetings, thanks, refusals and
    questions answered from memory (``recalled``: the memories injected into the request)."""
    question, answer = question.strip(), answer.strip()
    if len(question) < _MIN_QUESTION_CHARS or is_greeting(question):
        return None
    if _ACKNOWLEDGEMENT.match(question) or not answer or _REFUSAL.match(answer):
        return None
    answer = strip_echoes(answer, recalled)
    if is_request(question) and not adds_information(answer, question, recalled):
        return None
    return note(question, answer, date)
