"""Asking a model whether an old fact is still true after a new one (the writer's judge).

One pair per call, worked examples as chat turns: the smallest decision there is, so that a small
local model answers it well (memories/writer.py says when it is asked).
"""

from __future__ import annotations

import orjson

from memory_extproc.llm_client import JsonSchema
from memory_extproc.memories.model_json import ExtractionParseError, read_json
from memory_extproc.memories.relative_dates import without_resolved_dates
from memory_extproc.words import one_line

JUDGE_SYSTEM = """\
You keep a user's memory up to date. You get an OLD fact and a NEW fact about the user.
Question: after the NEW fact, is the OLD fact still true?
- "still_true": false only when the NEW fact changes, corrects or ends exactly what the OLD \
fact says (a new value for the same thing, or sold / quit / moved / no longer).
- "still_true": true when the facts are about different things, or both can be true together \
(a person can like many foods, have several relatives, hobbies, allergies), or the NEW fact is \
a step taken for what the OLD fact plans (booked, bought, paid for, started).
Answer with JSON only: {"still_true": true} or {"still_true": false}."""

_JUDGE_EXAMPLES = (
    ("User works as a nurse", "User works as a teacher", False),
    ("User has a cat named Tom", "User has a dog named Rex", True),
    # a move ends where the user lived, not their job nor where a relative lives: without
    # these the 1.5B judge ended "El usuario trabaja como enfermera" with "… se mudó a Madrid"
    ("User works as a nurse", "User moved to Denver", True),
    ("User lives in Boston", "User moved to Denver", False),
    ("User's brother lives in Austin", "User moved to Denver", True),
    ("User plays in a band", "User left the band", False),
    ("User likes jazz", "User likes rock music", True),
    (
        "User's budget for the wedding is $20,000",
        "User already booked the venue for the wedding",
        True,
    ),
    ("User's son is called Ben", "User's niece is called Lily", True),
    ("User's rent is $900 a month", "User's rent is $1,100 a month", False),
)

JUDGE_SCHEMA = JsonSchema(
    "memory_still_true",
    {
        "type": "object",
        "properties": {"still_true": {"type": "boolean"}},
        "required": ["still_true"],
        "additionalProperties": False,
    },
)


def judge_messages(old: str, new: str) -> list[dict[str, str]]:
    """Is ``old`` still true after ``new``? One pair per call: the smallest decision there is."""
    messages = [{"role": "system", "content": JUDGE_SYSTEM}]
    for example_old, example_new, still in _JUDGE_EXAMPLES:
        messages += [
            {"role": "user", "content": f"OLD: {example_old}\nNEW: {example_new}"},
            {"role": "assistant", "content": orjson.dumps({"still_true": still}).decode()},
        ]
    # without the dates the product wrote: shown "用户2026年12月6日前的一周卖了车", the 1.5B judge
    # kept "用户开的是2015年的本田思域" true; shown "用户卖了车", it did not
    old, new = (one_line(without_resolved_dates(text)) for text in (old, new))
    messages.append({"role": "user", "content": f"OLD: {old}\nNEW: {new}"})
    return messages


def parse_judgment(text: str) -> bool:
    """The answer to "is the old fact still true?": {"still_true": true|false}."""
    value = read_json(text).value
    answer = value.get("still_true") if isinstance(value, dict) else None
    if isinstance(answer, str) and answer.strip().lower() in ("true", "yes", "false", "no"):
        answer = answer.strip().lower() in ("true", "yes")
    if not isinstance(answer, bool):
        raise ExtractionParseError("wrong_shape", 'no boolean "still_true"')
    return answer
