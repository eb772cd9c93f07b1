"""The format of a note, the memory the model-free mode keeps of a turn, and its way back.

A note quotes what the user said (and the answer), dated; the truth rules and injection compare
what was said (``statement``), not the frame around it.
"""

from __future__ import annotations

import re

from memory_extproc.memories.preferences import states_preference
from memory_extproc.store.model import MemoryType
from memory_extproc.words import one_line

_QUESTION_CHARS = 300
_ANSWER_CHARS = 400
_NOTE = re.compile(
    r'^(?:On \d{4}-\d{2}-\d{2} the user|User) said: "(?P<said>.*?)"(?: Answer: "|$)', re.DOTALL
)


def _clip(text: str, limit: int) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def note(question: str, answer: str, date: str) -> str:
    asked = _clip(question, _QUESTION_CHARS)
    if not answer:
        return f'On {date} the user said: "{asked}"'
    return f'On {date} the user said: "{asked}" Answer: "{_clip(answer, _ANSWER_CHARS)}"'


def note_kind(stated: str) -> MemoryType:
    """A note is of what was said on a day, unless what was said is a standing preference
    ("I'm vegan, so no honey please."): that shapes later requests like any preference."""
    return MemoryType.PREFERENCE if states_preference(stated) else MemoryType.EPISODIC


def statement(content: str) -> str:
    """What the user said, for a note; the memory itself for anything else."""
    match = _NOTE.match(content)
    return match.group("said") if match else content


def unframed(content: str) -> str:
    """What a memory is embedded by: a note's own words, without its frame. The frame is most of
    a one-sentence note, so "My son is 5 years old." and "My daughter is 5 years old." looked the
    same as notes (cosine 0.92: one was taken for a restatement of the other) and not as words
    (0.84)."""
    match = _NOTE.match(content)
    if match is None:
        return content
    answer = content[match.end() :].removesuffix('"')
    return f"{match.group('said')} {answer}" if answer else match.group("said")


def saying(content: str, said: str) -> str | None:
    """The note ``content`` as if its user had said only ``said`` on its day, without its answer
    (None: ``content`` is no note)."""
    match = _NOTE.match(content)
    if match is None:
        return None
    return f'{content[: match.start("said")]}{_clip(said, _QUESTION_CHARS)}"'


def undated(content: str, date: str) -> str:
    """A note as injected on a line dated ``date``: its own date, the same, said once (five notes
    of a block: ~35 tokens)."""
    frame = f"On {date} the user said: "
    return "User said: " + content[len(frame) :] if content.startswith(frame) else content
