"""Prompts for the extraction model: pure functions from turns to chat messages.

Written for small local models as much as for large hosted ones (measured with the 1.5B local
model, see the README's scenario table): one small decision per call, worked examples as chat
turns rather than rules alone (with rules only, it copied the rules' example sentence into its
answers), the user's words as the only source of facts, and a JSON schema the endpoint can
constrain decoding to.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import JsonSchema
from memory_extproc.store.model import MemoryType
from memory_extproc.words import one_line

EXTRACTION_SYSTEM = """\
You turn what a user says into short facts for the user's long-term memory.
Write each fact the user states about themselves (and the people, places and things in their \
life) as one sentence starting with "User". Only the user's lines state facts; the assistant's \
lines only explain what the user refers to. Keep names, numbers, places and dates exactly. \
Resolve relative dates ("yesterday", "last month") against the conversation's date.
The known facts are only there to understand corrections and changes: when the user changes, \
corrects or ends a known fact, write the fact as it is NOW, never the old value.
Questions, requests and small talk state no facts: answer {"facts": []}.
Types: semantic (facts, preferences), procedural (how the user does something), episodic \
(a dated event).
Answer with JSON only."""

# Worked examples, shown as earlier turns of the same task. Their topics are far from the usual
# test conversations on purpose: a small model copies an example that looks like the input.
_EXAMPLES: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]], ...] = (
    # a change and a new fact in one message: without the second, a change next to a known fact
    # made the 1.5B model drop the new one ("I got a cat named Luna, and my rent is now …")
    (("User works as a nurse",),
     ("user: I quit nursing, I'm a teacher now, and my brother Sam moved in with me.",
      "assistant: Congratulations on the new job!"),
     (("semantic", "User works as a teacher"),
      ("semantic", "User's brother Sam lives with the user"))),
    (("User's dog is called Rex",),
     ("user: What's my dog's name again?", "assistant: Your dog is called Rex."), ()),
    (("User drinks coffee every morning",),
     ("user: I switched to green tea.", "assistant: Green tea has less caffeine."),
     (("semantic", "User drinks green tea every morning"),)),
    ((), ("user: My daughter Mia turns 5 in May. Yesterday I ran my first half marathon!",
          "assistant: Well done! Any plans for Mia's birthday?"),
     (("semantic", "User's daughter Mia turns 5 in May 2024"),
      ("episodic", "User ran their first half marathon on 2024-03-01"))),
    (("User's gym is FitLife",),
     ("user: Sorry, I said FitLife, I meant PowerGym.", "assistant: PowerGym, got it."),
     (("semantic", "User's gym is PowerGym"),)),
    (("User plays bass in a band",),
     ("user: I left the band last year. Can you recommend a teacher?",
      "assistant: Try the Riverside Music School, they teach guitar and bass."),
     (("semantic", "User no longer plays in the band (left in 2023)"),)),
    ((), ("user: Which hotel is good in Rome?", "assistant: Hotel Artemide is central and quiet."),
     ()),
    ((), ("user: To release the app I run the tests, tag the commit, then push the tag.",
          "assistant: A solid routine."),
     (("procedural", "To release the app, user runs the tests, tags the commit, then pushes "
                     "the tag"),)),
)  # fmt: skip
_EXAMPLE_DATE = "2024-03-02"


def facts_schema(max_facts: int, max_chars: int) -> JsonSchema:
    return JsonSchema(
        "memory_facts",
        {
            "type": "object",
            "properties": {
                "facts": {
                    "type": "array",
                    "maxItems": max_facts,
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "enum": [t.value for t in MemoryType]},
                            "content": {"type": "string", "minLength": 1, "maxLength": max_chars},
                        },
                        "required": ["type", "content"],
                        "additionalProperties": False,
                    },
                }
            },
            "required": ["facts"],
            "additionalProperties": False,
        },
    )


def transcript(turns: Sequence[Turn], limit: int = 600) -> list[str]:
    """One line per message, ``role: text``, each clipped to ``limit`` characters."""
    lines = []
    for turn in turns:
        text = one_line(turn.text)
        if text:
            lines.append(f"{turn.role}: {text[:limit]}")
    return lines


def _task(known: Sequence[str], lines: Sequence[str], date: str) -> str:
    listed = "\n".join(f"- {one_line(k)}" for k in known) or "(none)"
    conversation = "\n".join(lines)
    return f"Known facts:\n{listed}\n\nConversation ({date}):\n{conversation}"


def extraction_messages(
    known: Sequence[str], lines: Sequence[str], date: str
) -> list[dict[str, str]]:
    """Facts from a conversation (``transcript`` lines) on ``date``, knowing ``known``."""
    messages = [{"role": "system", "content": EXTRACTION_SYSTEM}]
    for example_known, example_lines, facts in _EXAMPLES:
        answer = {"facts": [{"type": t, "content": c} for t, c in facts]}
        messages += [
            {"role": "user", "content": _task(example_known, example_lines, _EXAMPLE_DATE)},
            {"role": "assistant", "content": orjson.dumps(answer).decode()},
        ]
    messages.append({"role": "user", "content": _task(known, lines, date)})
    return messages
