"""A conversation's running state, written by the extraction model as the worker reads each
batch: what it is about, what was decided, what is still open, and the specifics either side
established (names, numbers, dates, constraints). Pure: the prompt, its schema, and the answer
read back as the few lines a compressed request shows.

Kept for conversations that asked for compression (a model call per batch is learning's most
expensive step: it is not paid for conversations nobody compresses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import JsonSchema
from memory_extproc.memories.model_json import ExtractionParseError, read_json
from memory_extproc.words import CJK

MAX_ITEMS = {"decided": 6, "open": 6, "specifics": 12}
MAX_ITEM_CHARS = 160
MAX_MESSAGE_CHARS = 1500  # of each new message shown: a pasted text is not the conversation's state

SYSTEM = (
    "You keep the running state of a conversation between a user and an assistant, so that "
    "its older messages can be left out of later requests. You are given the state so far "
    "(possibly empty) and the newest messages. Answer with the updated state as JSON: "
    '"about": what the conversation is about, one sentence; "decided": what was decided or '
    'agreed; "open": questions or tasks still open; "specifics": what either side established '
    "that a later answer may need (names, numbers, dates, places, constraints, preferences), "
    "each a short line that stands on its own. Keep what the newest messages do not change; "
    "drop what they settle or make untrue. At most {words} words in all. Write in the "
    "language the conversation is written in."
)


def schema() -> JsonSchema:
    items = {"type": "string", "minLength": 1, "maxLength": MAX_ITEM_CHARS}
    lists = {k: {"type": "array", "maxItems": n, "items": items} for k, n in MAX_ITEMS.items()}
    return JsonSchema(
        "conversation_state",
        {
            "type": "object",
            "properties": {"about": {"type": "string", "maxLength": 300}, **lists},
            "required": ["about", *MAX_ITEMS],
            "additionalProperties": False,
        },
    )


@dataclass(frozen=True, slots=True)
class State:
    about: str
    decided: tuple[str, ...]
    open: tuple[str, ...]
    specifics: tuple[str, ...]

    def text(self, words: int) -> str:
        """The lines a compressed request shows, cut at ``words``: the specifics last, as the
        model listed them (most of the budget goes to them)."""
        lines = [f"About: {self.about}"] if self.about else []
        lines += [f"Decided: {item}" for item in self.decided]
        lines += [f"Open: {item}" for item in self.open]
        lines += [f"Known: {item}" for item in self.specifics]
        kept, left = [], words
        for line in lines:
            left -= _words(line)
            if left < 0:
                break
            kept.append(line)
        return "\n".join(kept)


def _words(line: str) -> int:
    """Words as a budget counts them: a Chinese or Japanese character is one (written without
    spaces, a whole line would be one word)."""
    characters = sum(len(run) for run in CJK.findall(line))
    return characters + len(CJK.sub(" ", line).split())


def messages(previous: str, said: Sequence[Turn], day: str, words: int) -> list[dict[str, str]]:
    shown = "\n".join(f"{t.role}: {' '.join(t.text.split())[:MAX_MESSAGE_CHARS]}" for t in said)
    return [
        {"role": "system", "content": SYSTEM.format(words=words)},
        {
            "role": "user",
            "content": f"STATE SO FAR:\n{previous or '(none)'}\n\nNEWEST MESSAGES "
            f"(said on {day}):\n{shown}",
        },
    ]


def parse(answer: str) -> State:
    """Raises ExtractionParseError for an answer that is not a state."""
    found = read_json(answer).value
    if not isinstance(found, dict):
        raise ExtractionParseError("invalid_json", "not an object")
    about = found.get("about")
    if not isinstance(about, str):
        raise ExtractionParseError("invalid_json", "no about")
    lists = []
    for key, most in MAX_ITEMS.items():
        value = found.get(key, [])
        if not isinstance(value, list):
            raise ExtractionParseError("invalid_json", f"{key} is not a list")
        items = (" ".join(str(v).split())[:MAX_ITEM_CHARS] for v in value if isinstance(v, str))
        lists.append(tuple(dict.fromkeys(i for i in items if i))[:most])
    return State(" ".join(about.split())[:300], *lists)
