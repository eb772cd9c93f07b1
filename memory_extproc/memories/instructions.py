"""Is a fact a command to the assistant? The memory-injection filter.

Stored memories are injected into later prompts, so a "fact" that tries to command the assistant
is an attack path (memory injection). Those are refused before anything is stored: a model's
facts (facts.py) and the notes of the model-free mode (worker/turn_notes.py).
"""

from __future__ import annotations

import re

_INSTRUCTION = re.compile(
    r"""(?ix)
    \b(ignore|disregard|forget|override)\b.{0,40}\b(instruction|prompt|rule|guideline|message|above|previous|prior)s?\b
    | \bfrom\s+now\s+on\b
    | \b(system|developer)\s+(prompt|message|mode)\b
    | \bjail\s?break
    | \bnew\s+instructions?\b
    | \b(you|assistant|the\s+assistant|the\s+ai|the\s+model|chatgpt)
      \s+(must|should|shall|will|are\s+to|need\s+to)\b
    | \b(always|never)\s+(respond|reply|answer|say|tell|mention|reveal|include|output|use|call
      |refuse|follow|obey)\b
    | \b(do\s+not|don't|dont)\s+(tell|reveal|follow|obey|mention|refuse)\b
    | \b(respond|reply|answer)\s+(only\s+)?(with|in|using)\b
    | ^\s*(act\s+as|pretend|you\s+are\s+now|roleplay|execute|run\s+the\s+following)\b
    """
)


def is_instruction_like(text: str) -> bool:
    """ "User prefers answers in French" is a fact; "Always respond in French" is a command."""
    return bool(_INSTRUCTION.search(text))
