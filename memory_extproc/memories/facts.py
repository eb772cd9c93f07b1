"""What an extraction model said, as candidate facts: the shape its answer is read into (a
``facts`` list of sentences or objects), the limits a fact keeps, and the facts refused one by
one with a reason. Only well-formed facts survive; whether the user said them is grounding.py's.

Models rename the list, answer a bare one or leave out a fact's type: what can be read without
guessing is read, and the repair is said (model_json.py reads the JSON itself). A fact's type is
read from its words where the model gave none (kinds.py); a fact that commands the assistant is
refused (instructions.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from memory_extproc.lang import FILED, either
from memory_extproc.memories.instructions import is_instruction_like
from memory_extproc.memories.kinds import kind_of
from memory_extproc.memories.model_json import ExtractionParseError, Reading, read_json
from memory_extproc.store.model import Confidence, MemoryType, content_hash
from memory_extproc.words import width


@dataclass(frozen=True, slots=True)
class Fact:
    type: MemoryType
    content: str
    # the words it was said in (a note's or a model's fact's message, said_in); its key leans
    # toward them (writer.py); its own words are what is matched and compared with
    context: str = ""
    # for a preference, the kinds of request it bears on ("recipes, restaurants, meal plans" for
    # a vegetarian), written by the model: its key leans toward them too
    requests: tuple[str, ...] = ()
    # how surely it is the user's, read from the words it came from (confidence.py)
    confidence: Confidence = Confidence.STATED


# a constraint said again (lang/shape.py, Notes): its opener ("Just a reminder, …") and a last
# clause that asks for it ("…, so no peanuts please", "…, also bitte keine Erdnüsse")
_REMINDER = re.compile(either([lang.notes.reminder for lang in FILED]), re.IGNORECASE)
_REQUESTED = re.compile(either([lang.notes.requested for lang in FILED]), re.IGNORECASE)
_STATED_CHARS = 12  # what is left must still say something


def stated_once(text: str) -> str:
    """What a statement says without what a constraint said again adds: the user's note, or a
    model's fact that kept the request ("Der Nutzer hat eine Erdnussallergie, also bitte keine
    Erdnüsse" is not the same memory as "… allergisch gegen Erdnüsse" by e5's score, 0.95; its
    fact alone is, 1.00). Whole when that leaves too little ("I'm vegan, so no honey please.")."""
    said = _REQUESTED.sub("", _REMINDER.sub("", text))
    return said if width(said) >= _STATED_CHARS else text


_LEANING_CHARS = 600  # a longer message is mostly what was pasted into it


def said_in(fact: Fact, message: str) -> Fact:
    """The fact with the user's message it was learned from, to lean its key toward: the model
    words a fact, the user words the question that needs it as they worded the message ("User
    made a chocolate and vanilla swirl" does not say it was ice cream; the message does).
    LoCoMo replay hit@5 0.760 -> 0.787 (eval/RESULTS.md). Not toward a long message: a fact
    said after a pasted report would lean toward the report. A preference the model wrote
    leans toward the requests it bears on instead (writer.py)."""
    if fact.type is MemoryType.PREFERENCE or len(message) > _LEANING_CHARS:
        return fact
    return dataclasses.replace(fact, context=message)


@dataclass(frozen=True, slots=True)
class FactLimits:
    min_chars: int = 8
    max_chars: int = 500
    max_facts: int = 20


@dataclass(frozen=True, slots=True)
class Parsed:
    facts: list[Fact]
    rejected: Counter[str]  # reason → facts refused for it
    repairs: tuple[str, ...] = ()  # what reading had to mend ("fenced", "embedded", …)


_TYPES = frozenset(t.value for t in MemoryType)


def parse_facts(text: str, limits: FactLimits) -> Parsed:
    """The valid facts, how many were refused for which reason, and what reading repaired."""
    reading = read_json(text)
    items = _fact_items(reading)
    facts: list[Fact] = []
    rejected: Counter[str] = Counter()
    seen: set[str] = set()
    for item in items:
        fact, reason = _fact(item, limits, reading.repairs)
        if fact is not None and len(facts) >= limits.max_facts:
            fact, reason = None, "too_many"
        if fact is not None and content_hash(fact.content) in seen:
            fact, reason = None, "duplicate_in_batch"
        if fact is None:
            rejected[reason] += 1
            continue
        seen.add(content_hash(fact.content))
        facts.append(fact)
    return Parsed(facts, rejected, tuple(dict.fromkeys(reading.repairs)))


def _fact_items(reading: Reading) -> list[Any]:
    value = reading.value
    if isinstance(value, list):
        reading.repairs.append("bare_list")
        return value
    if not isinstance(value, dict):
        raise ExtractionParseError("wrong_shape", "not an object")
    if isinstance(value.get("facts"), list):
        return list(value["facts"])
    lists = [v for v in value.values() if isinstance(v, list)]
    if len(lists) == 1 and "facts" not in value:  # {"memories": [...]}: one list, renamed
        reading.repairs.append("renamed")
        return lists[0]
    raise ExtractionParseError("wrong_shape", 'no "facts" list')


def _fact(item: Any, limits: FactLimits, repairs: list[str]) -> tuple[Fact | None, str]:
    if isinstance(item, str):  # the asked-for shape: a sentence
        item = {"content": item, "type": kind_of(item).value}
    if not isinstance(item, dict) or not isinstance(item.get("content"), str):
        return None, "malformed"
    kind = item.get("type")
    if kind not in _TYPES:
        repairs.append("defaulted_type")
        kind = kind_of(item["content"]).value
    elif kind == MemoryType.SEMANTIC and kind_of(item["content"]) is MemoryType.PREFERENCE:
        kind = MemoryType.PREFERENCE  # a model that names types knows no preference type
    content = stated_once(" ".join(item["content"].split()))
    if width(content) < limits.min_chars:
        return None, "too_short"
    if len(content) > limits.max_chars:
        return None, "too_long"
    if is_instruction_like(content):
        return None, "instruction_like"
    return Fact(MemoryType(kind), content), ""


def parse_requests(text: str, limit: int = 8) -> tuple[str, ...]:
    """The kinds of request a model listed for a preference: short phrases, at most ``limit``;
    none when it said nothing usable (the preference is kept without them)."""
    value = read_json(text).value
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, list)), [])
    if not isinstance(value, list):
        raise ExtractionParseError("wrong_shape", "no list of requests")
    kinds = [" ".join(v.split()) for v in value if isinstance(v, str)]
    return tuple(dict.fromkeys(k for k in kinds if 2 < len(k) <= 60))[:limit]
