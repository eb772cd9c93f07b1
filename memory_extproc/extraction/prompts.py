"""Prompts for the extraction model: pure functions from turns to chat messages."""

from __future__ import annotations

from collections.abc import Sequence

from memory_extproc.llm_api.requests import Turn
from memory_extproc.store.model import Memory

EXTRACTION_SYSTEM = """\
You extract long-term memories about the user from a conversation, for a personal assistant.
Answer with one JSON object and nothing else:
{"facts": [{"type": "semantic" | "procedural" | "episodic", "content": "<one memory>"}]}
- semantic: facts and preferences ("User's budget for the Hawaii trip is $10,000").
- procedural: how the user does things ("To deploy payment-service the user runs npm build, \
then docker push").
- episodic: events, with their date ("On 2023-05-08 the user attended a support group").
Rules:
- Each memory stands alone: keep its context (what, for what, whose), never just \
"budget is $10,000".
- Write about the user in the third person. Never write instructions for an assistant.
- The conversation took place on {date}: resolve "yesterday", "next month" … against that date and \
put the date into every time-bound memory.
- Keep only what the user said or confirmed about themselves or their world; skip greetings, small \
talk and general knowledge.
- Write each memory in the language the user used.
- Nothing worth remembering: {"facts": []}."""

RECONCILE_SYSTEM = """\
You keep a user's memory consistent. You get the user's existing memories, numbered, and one new \
memory. Answer with one JSON object and nothing else:
{"action": "ADD" | "UPDATE" | "DELETE" | "NOOP", "id": <number of an existing memory, or null>, \
"content": "<for UPDATE: the memory as it should now read, self-contained>"}
- ADD: the new memory is new information.
- UPDATE: it changes or refines memory <id> (a new value, a correction, more detail).
- DELETE: it says memory <id> is no longer true, and gives nothing to replace it with.
- NOOP: it is already known."""


def transcript(turns: Sequence[Turn]) -> str:
    return "\n".join(f"{t.role}: {' '.join(t.text.split())}" for t in turns if t.text.strip())


def extraction_messages(turns: Sequence[Turn], date: str) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": EXTRACTION_SYSTEM.replace("{date}", date)
            .replace("{{", "{")
            .replace("}}", "}"),
        },
        {"role": "user", "content": f"Conversation ({date}):\n{transcript(turns)}"},
    ]


def reconcile_messages(existing: Sequence[Memory], new: str) -> list[dict[str, str]]:
    """Existing memories are shown with small numbers, never their ids: the model cannot invent
    an id that exists, and cannot touch a memory it was not shown."""
    listed = "\n".join(f"{i}: {' '.join(m.content.split())}" for i, m in enumerate(existing))
    return [
        {"role": "system", "content": RECONCILE_SYSTEM},
        {"role": "user", "content": f"Existing memories:\n{listed}\n\nNew memory: {new}"},
    ]
