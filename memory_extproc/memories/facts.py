"""What an extraction model said, read leniently and checked strictly: only well-formed facts
that come from the user's own words survive.

Real models, small local ones above all, wrap JSON in code fences, put prose around it, rename
or drop fields, stop mid-answer, copy the known facts they were shown back as new ones, and
keep stale values. Reading repairs what can be repaired without guessing (a fence, prose around
one JSON value, a bare list, a missing type) and says what it repaired; what cannot be read is
an error with a reason, and the batch stores nothing.

Stored memories are injected into later prompts, so a "fact" that tries to command the assistant
is an attack path (memory injection). Those are refused here, before anything is stored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_extproc.memories.change_words import CLAUSE
from memory_extproc.memories.changes import Change, compare, says_change
from memory_extproc.memories.preferences import KIN_ZH, states_preference
from memory_extproc.store.model import MemoryType, content_hash
from memory_extproc.words import numbers, sentences, speaks_of_self, terms, width


class ExtractionParseError(ValueError):
    """The whole answer is unusable; ``reason`` says why (truncated, invalid_json, …)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


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


@dataclass(frozen=True, slots=True)
class Reading:
    value: Any
    repairs: list[str] = field(default_factory=list)


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
_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_TYPES = frozenset(t.value for t in MemoryType)


def is_instruction_like(text: str) -> bool:
    """ "User prefers answers in French" is a fact; "Always respond in French" is a command."""
    return bool(_INSTRUCTION.search(text))


def read_json(text: str) -> Reading:
    """The one JSON value (object or list) a model answered, and what was repaired to get it.
    A fenced block is the answer when it holds a readable value; else the fence is part of the
    answer (a fact quoting a code block: "User asked for ```hcl resource``` blocks")."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced is not None:
        with contextlib.suppress(ExtractionParseError):
            return _read_json(fenced.group(1).strip(), ["fenced"])
    return _read_json(stripped, [])


def _read_json(stripped: str, repairs: list[str]) -> Reading:
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    if not starts:
        raise ExtractionParseError("invalid_json", "no JSON value in the answer")
    start = min(starts)
    try:
        value, end = json.JSONDecoder().raw_decode(stripped, start)
    except json.JSONDecodeError as exc:
        cut = exc.pos >= len(stripped) - 1 or exc.msg.startswith("Unterminated string")
        salvaged = _complete_items(stripped[start:]) if cut else None
        if salvaged is None:
            raise ExtractionParseError("truncated" if cut else "invalid_json", exc.msg) from exc
        return Reading(salvaged, [*repairs, "salvaged"])
    if start > 0 or stripped[end:].strip():
        repairs.append("embedded")
    return Reading(value, repairs)


def _complete_items(cut: str) -> Any | None:
    """An answer cut off by the token limit, without its unfinished last item: the items before
    it are whole ("… {"content": "User has a cat"}, {"content": "User li" → the first)."""
    opening = cut[: cut.find("[") + 1] if "[" in cut else ""
    if not opening:
        return None
    closing = "]" + "}" * opening.count("{")
    end = len(cut)
    while (end := cut.rfind("}", len(opening), end)) > 0:
        try:
            return json.loads(cut[: end + 1] + closing)
        except json.JSONDecodeError:
            continue
    return None


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


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}\b|\b{_MONTH} \d{{1,2}}\b",
    re.IGNORECASE,
)


def kind_of(content: str) -> MemoryType:
    """A fact's type, read from the fact (the model writes plain sentences): how the user does
    something ("To release the app, user runs …") procedural, an event on a day episodic, a
    standing like, dislike or constraint a preference, anything else semantic."""
    if content.lower().startswith("to "):
        return MemoryType.PROCEDURAL
    if _DAY_DATE.search(content):  # "User chose a wedding venue on 12 May 2024": a day's event
        return MemoryType.EPISODIC
    if states_preference(content):
        return MemoryType.PREFERENCE
    return MemoryType.SEMANTIC


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
    content = " ".join(item["content"].split())
    if width(content) < limits.min_chars:
        return None, "too_short"
    if len(content) > limits.max_chars:
        return None, "too_long"
    if is_instruction_like(content):
        return None, "instruction_like"
    return Fact(MemoryType(kind), content), ""


# A fact that points at what it does not say and says little else: "User dislikes the other
# options", "User chose option 3". Injected later, it tells the assistant nothing ("User chose
# option 2, the plant-based proteins" says what it chose).
_POINTER = re.compile(
    r"(?i)\b(?:(?:the|these|those|all)\s+other\s+(?:options?|ones?|choices?|suggestions?)"
    r"|options?\s+(?:\d+|[a-e])\b"
    r"|(?:the|that|this)\s+(?:first|second|third|fourth|last|other|former|latter)\s+(?:one|option))"
)
# …or at what it leaves unnamed: "User is planning to bring this up at their next meeting" (a
# persona conversation, the 1.5B model; none of LoCoMo's 1,210 gold observations)
_DEMONSTRATIVE = re.compile(
    r"(?i)\b(?:this|these)\b(?=\s*(?:$|[.,;!]|\s(?:up|out|over|at|to|soon|later|next|again|too)\b))"
)
# …or at the conversation it came from: "User is talking to Jon", "User is telling Gina about
# their business" (the 1.5B model on LoCoMo; none of its 1,209 gold observations)
_CONVERSATION = re.compile(
    r"(?i)^\s*(?:user\s+(?:is|was|has\s+been)\s+(?:(?:talking|chatting|speaking)\s+(?:to|with)\s+\S+"
    r"|telling\s+\S+\s+about\s+(?:their|his|her|the)\s+\w+)"
    r"|用户(?:正在|在)?(?:和|跟|与)\S{1,6}?(?:聊天|说话|交谈|谈话|聊)"
    r"|el\s+usuario\s+(?:está|estaba)\s+(?:hablando|charlando|conversando)\s+con\s+\S+)"
    r"\s*[.!。]?\s*$"
)
# …or a courtesy paid in it: "User thanks Gina for her kind words", "User congratulates
# Caroline …", "User says goodbye to Jon" (25 of the 1.5B model's 676 facts on three LoCoMo
# slices, none of which answered a question; they came first for any question naming that person)
_COURTESY = re.compile(
    r"(?i)^(?!.*\b(?:but|though|although|pero|aunque)\b|.*但"  # a courtesy that says more
    r"|.*\band\s+(?:is|was|has|had|will|prefers?|likes?|loves?|wants?|chose|chooses|picked"
    r"|picks?|decided|plans?|goes|went|enjoys?)\b)"
    r"\s*(?:user\s+(?:thanks|thanked|congratulates|congratulated|compliments|complimented)\b"
    r"|el\s+usuario\s+(?:agradece|agradeció|le\s+da\s+las\s+gracias|felicita|felicitó)\b"
    r"|用户(?:感谢|谢谢|祝贺|恭喜|称赞)"
    # a goodbye to someone and nothing more, not one to "their hometown" (leaving is a fact)
    r"|user\s+(?:says|said|bids|bade)\s+(?:goodbye|bye|farewell)\s+to\s+"
    r"(?!(?:their|his|her|its|our|the|a|an)\b)[^\s,]+(?:\s+[^\s,]+){0,2}?(?:,?\s+and\s+wish.*)?$"
    r"|el\s+usuario\s+se\s+(?:despide|despidió)\s+de\s+(?!(?:su|sus|la|el|los|las)\b)"
    r"[^\s,]+(?:\s+[^\s,]+){0,2}?$"
    r"|用户(?:和|跟|与|向)\S{1,6}?(?:道别|告别|说再见)[。！!.]?$)"
)
# Whose a value is, at the head of a fact: a relative's or a named person's ("User's sister
# Anna's budget …", "用户的妹妹安娜的预算…", "El presupuesto de su hermana Ana …"), not one
# further in ("… at Trader Joe's", "用户给妹妹安娜的礼物预算")
_KIN_EN = (
    r"sister|brother|mom|mum|mother|dad|father|parents|wife|husband|partner|son|daughter"
    r"|kids?|children|friend|cousin|aunt|uncle|grand(?:ma|pa|mother|father)|niece|nephew"
    r"|colleague|coworker|boss|roommate|neighbou?r|boyfriend|girlfriend"
)
_KIN_ES = (
    r"herman[oa]s?|madre|padre|mamá|papá|padres|hij[oa]s?|espos[oa]|marido|mujer|novi[oa]"
    r"|amig[oa]s?|prim[oa]|tí[oa]|abuel[oa]|sobrin[oa]|compañer[oa]|jefe|jefa|pareja|vecin[oa]"
)
_NAME_ES = r"[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+"
_HOLDERS = (  # (the fact's head, whose it says the value is; what makes it the user's)
    (re.compile(rf"^(?:User['\u2019]s\s+)?(?P<who>(?i:{_KIN_EN})(?:\s+(?!User\b)[A-Z][a-z]+)?"
                rf"|(?!User\b)[A-Z][a-z]+)['\u2019]s\s+"), "User's "),
    (re.compile(rf"^(?:用户的?)?(?P<who>[表堂亲]?(?:{KIN_ZH})(?:(?!的)[\u4e00-\u9fff]){{0,3}})的"),
     "用户的"),
    (re.compile(rf"^(?P<head>(?i:el|la|los|las)\s+\w+)\s+(?i:de(?:l|\s+(?:su|sus|la|el))?)\s+"
                rf"(?P<who>(?i:{_KIN_ES})(?:\s+{_NAME_ES})?|{_NAME_ES})\b"),
     r"\g<head> del usuario"),
)  # fmt: skip
# …and a clause that points back at someone or something ("and her budget is $3,000", "It
# cost $450,000")
_POINTED = re.compile(
    r"(?i)\b(?:he|she|they|his|her|hers|their|him|them|it|its|there|su|sus|él|ella|ellos|ellas"
    r"|allí|ahí)\b|[他她它]"
)
_CHOICE_TALK = (
    "user option options choice choices other others one first second third fourth last former "
    "latter go goes going went chose choose chooses picked pick picks prefer prefers dislike "
    "dislikes like likes work works appeal appeals suggestion suggestions"
)


@functools.cache
def _choice_talk() -> frozenset[str]:
    """Read on first use, not at import: reading loads the language identifier (0.7 s), which
    every CLI start paid."""
    return terms(_CHOICE_TALK)


# Advice is what the assistant said the user could do, not what the user is or does: "User
# could consider adding a digital cataloging system" (a persona conversation, the 1.5B model).
_ADVICE = re.compile(
    r"(?i)^\s*user\s+(?:could|should|would\s+benefit)\b(?!\s+not)"
    r"|\b(?:is|are)\s+(?:advised|encouraged|recommended)\s+to\b"
)
# …or steps to take, as an answer lists them ("To motivate elderly patients …, consider the
# following strategies: 1. Make exercise … 2. Provide …": a persona conversation, the 1.5B
# model); none of LoCoMo dev's 16,139 turns and observations holds such a list
_STEPS = re.compile(r"(?s)(?:^|[:\n])\s*1[.)]\s.+\s2[.)]\s")
# The user picks among what the assistant offered ("I'll go with option 2, the plant-based
# proteins. The other options don't work for me."): what they chose from is theirs to name.
# A pick, and the options it was among: "I'll go with option 2", "The salad sounds perfect. The
# other options don't work for me". Either alone is not one ("I'm open to other options", "I'm
# going for a run").
_PICKS = re.compile(
    r"(?i)\b(?:go(?:ing)?\s+(?:with|for)|choos\w*|chose|pick\w*|i'?ll\s+(?:take|pass)"
    r"|opt(?:ing)?\s+for|prefer\w*|best\s+(?:choice|fit|option)|(?:ideal|right|perfect)\s+choice"
    r"|sounds?\s+(?:\w+\s+){0,3}?(?:perfect|great|best|good|ideal|interesting|appealing|fun)"
    r"|would\s+(?:be\s+(?:\w+\s+){0,2}?(?:best|better|ideal|perfect|suitable|effective)|work\s+better)"
    r"|(?:don't|doesn't|do\s+not|does\s+not)\s+(?:really\s+|quite\s+)?appeal)\b"
)
_OPTIONS = re.compile(
    r"(?i)\b(?:options?|choices?|the\s+others?|(?:first|second|third|fourth|last)\s+(?:one|option)"
    r"|none\s+of\s+(?:them|these|those)|neither\s+of)\b"
)


# The assistant telling of their own life: LoCoMo's other speaker does, in most turns ("I'm
# doing kickboxing and it's giving me so much energy."), and the 1.5B model wrote 18 of 230
# facts it kept from such windows as the user's ("User is doing kickboxing", after "Kickboxing
# is a perfect way to stay in shape"). An assistant's "we" plans with the user ("We could
# start in Kyoto"); what it says of itself while it answers is not its life ("I'd suggest …",
# "As I recall …", "I love spicy food too!"), nor what it says to the user ("I love your
# idea"), nor a draft it writes in the user's voice ("Dear Hiring Manager, I am …").
_WE = re.compile(r"(?i)\b(?:we|we're|we've|we'd|we'll|us|our|ours)\b|(?<![自忘])我")
_ADDRESSING = re.compile(
    r"(?i)\b(?:you|your|yours|you're|you've|you'd|you'll|te|tu|tus|usted|ustedes)\b|[你您]"
)
_ANSWERING = re.compile(
    r"(?i)\b(?:i(?:'d|\s+would)?\s+(?:suggest|recommend|advise|start|go\s+with|pick|choose)"
    r"|i\s+(?:think|can(?!'t)|could|will|hope|understand|see|know|mean|believe|remember|recall"
    r"|noticed)|as\s+i\s+(?:recall|remember|understand)|i'll|let\s+me|i'm\s+(?:happy|glad|sorry"
    r"|here|not\s+sure|going\s+to|impressed)|i(?:'ve|\s+have)\s+(?:put|included|added|listed|made"
    r"|created|prepared|written|compiled|outlined|noted|found|gathered|kept|adjusted)"
    r"|my\s+(?:top\s+)?(?:recommendation|suggestion|advice|pick)|too|as\s+well)\b"
    r"|我(?:觉得|认为|建议|推荐|记得|会|可以|想推荐)|我[^，,。！？]{0,3}也"
    # …and its tastes, which a user who agrees makes theirs ("I love Kyoto in autumn" /
    # "Kyoto in autumn sounds magical")
    r"|\bi(?:'ve|'d)?\s+(?:\w+\s+){0,2}?(?:love|like|enjoy|adore|prefer)|\bmy\s+(?:\w+\s+)?"
    r"favou?rite|\bme\s+(?:encanta|gusta)n?\b|我[^，,。！？]{0,3}(?:喜欢|爱|最爱)"
)
_QUOTED = re.compile(r"[\"“”「」『』]")
# a draft begins: "Here's a draft:", "Dear Hiring Manager,"
_DRAFT = re.compile(r"(?i)(?:[:：]|^(?:dear|hi|hello|hey)\b[^.!?]*,)\s*$")


def _told_of_self(others: str) -> list[str]:
    """The assistant's sentences of their own life, up to a draft it writes for the user."""
    told = []
    for line in others.replace("\u2019", "'").splitlines():
        if _DRAFT.search(line.strip()):
            break
        told += [
            s
            for s in sentences(line)
            if (speaks_of_self(s) or _I_ZH.search(s))
            and not _ADDRESSING.search(s)
            and not _ANSWERING.search(s)
            and not _QUOTED.search(s)
        ]
    return told


def _their_life(words: frozenset[str], said: str, others: str) -> bool:
    """Half of the fact's words are in a sentence the assistant said of their own life, and the
    user said none of them of their own (to the other: "I'm so impressed by your kickboxing!"
    is not)."""
    if not any(2 * len(words & terms(s)) >= len(words) for s in _told_of_self(others)):
        return False
    return not any(
        (speaks_of_self(s) or _WE.search(s)) and not _ADDRESSING.search(s) and words & terms(s)
        for s in sentences(said.replace("\u2019", "'"))
    )


def chooses(said: str) -> bool:
    """Does the user pick among options the assistant offered?"""
    said = said.replace("\u2019", "'")
    return bool(_PICKS.search(said) and _OPTIONS.search(said))


def picked(fact: Fact) -> Fact:
    """A fact of a pick among the assistant's options shows what the user prefers, however the
    model worded it ("User will go with the fresh fruit option", "User will enroll in an
    in-person course"): kept as a preference (a dated event stays one)."""
    if fact.type is not MemoryType.SEMANTIC:
        return fact
    return dataclasses.replace(fact, type=MemoryType.PREFERENCE)


def ungrounded(fact: str, said: str, known: Sequence[str], others: str = "") -> str | None:
    """Why a fact was not said by the user (None: it was). ``said``: the user's words, without
    their questions; ``known``: the known facts the model was shown; ``others``: the
    assistant's words shown around them, without what they echoed from memory. A model that
    copies a known fact back, keeps its old value, writes what the assistant said as the
    user's (a 1.5B model did: LoCoMo's other speaker's camping trip), is not heard. A fact may
    say more than the words it came from (LoCoMo's gold observations do: "found the stories
    inspiring"); requiring half of its words to be the user's refused 21% of them.

    * ``ungrounded``: none of its words were said;
    * ``assistant_said``: more than twice as many of its words were said by the assistant alone
      as by the user (3% of LoCoMo's gold observations, against the turns they cite), or, for
      a fact that does not name the user, as many ("Civics are reliable cars" after "I drive a
      Civic" is the assistant's remark, and a second car memory that kept "I sold my car" from
      ending the first);
    * ``assistant_life``: half of its words are in what the assistant told of their own life,
      and the user said none of them of their own ("User is doing kickboxing" after "I'm doing
      kickboxing" / "Kickboxing is a perfect way to stay in shape");
    * ``stale_value``: it holds a number of a known fact that was not said;
    * ``echo``: of what the user said, it holds nothing a known fact did not already say;
    * ``dangling``: it points at what it does not say ("the other options", "option 3", "bring
      this up"), or only at the conversation ("User is talking to Jon", "User thanks Gina for
      her help");
    * ``advice``: what the user could or should do ("User could consider …"), or a list of
      steps ("1. … 2. …"): an answer, not a fact;
    * ``misattributed``: it gives a name to a relative the user did not give it to
      (``misnamed``).

    A user who picks among the assistant's options ("I'll go with option 2") makes them theirs:
    "User prefers cycling over the bus or a scooter" names what they chose from.
    """
    if (
        (_POINTER.search(fact) and len(terms(fact) - _choice_talk()) < 2)
        or _DEMONSTRATIVE.search(fact)
        or _CONVERSATION.search(fact)
        or _COURTESY.search(fact)
    ):
        return "dangling"
    if _ADVICE.search(fact) or _STEPS.search(fact):
        return "advice"
    words = terms(fact) - {"user"}
    own = terms(said)
    if words and not words & own:  # a pick too is said in the user's own words
        return "assistant_said" if words & terms(others) else "ungrounded"
    heard = own | (terms(others) if chooses(said) else frozenset())
    theirs = terms(others) - heard
    mine, its = len(words & heard), len(words & theirs)
    if its > 2 * mine or (its and its >= mine and "user" not in terms(fact)):
        return "assistant_said"
    if others and not chooses(said) and _their_life(words, said, others):
        return "assistant_life"
    if misnamed(fact, said):
        return "misattributed"
    stale = numbers(fact) - numbers(said)
    if stale and any(stale & numbers(k) for k in known):
        return "stale_value"
    told = set().union(*(terms(k) for k in known)) - {"user"}
    if known and not words & (heard - told):
        return "echo"
    return None


def given_back(fact: str, said: str, known: Sequence[str]) -> str | None:
    """The fact with a value it gave someone else given back to the user, where the user gave
    it to no one and already holds that thing (None: it stays as written). "My sister Anna is
    coming too, and the budget for the trip is now $12,000", with the user's budget known: the
    1.5B model wrote "用户的妹妹安娜的旅行预算现在是12000美元" for its Chinese, in every run, and
    the sister's budget took the place of the user's; now "用户的旅行预算现在是12000美元".

    Every number the fact shares with the user's words is in a clause that says a value changed
    ("now", "现在", "ahora") and names no one of the holder's nor points at anyone ("and her
    budget is now $3,000", "It now costs $450,000" stay as they are); the holder is named in
    another clause; and the value given back changes a known fact of the user's, as the truth
    rules read it (``changes.compare``). "My daughter Emma started school. Tuition is $15,000."
    leaves Emma's tuition hers."""
    held = numbers(fact) & numbers(said)
    found = next(((m, u) for p, u in _HOLDERS if (m := p.match(fact))), None)
    if not held or found is None:
        return None
    head, user = found
    who = terms(head["who"])
    clauses = CLAUSE.split(said)
    near = [c for c in clauses if numbers(c) & held]
    elsewhere = set().union(*(terms(c) for c in clauses if not numbers(c) & held))
    if not who & elsewhere or any(
        who & terms(c) or _POINTED.search(c) or not says_change(c) for c in near
    ):
        return None
    mended = head.expand(user) + fact[head.end() :]
    if not any(compare(mended, k) in (Change.CHANGED, Change.CORRECTED) for k in known):
        return None
    return mended


# "我" (I, me) in a Chinese fact about the user, not "我们" (we) nor inside a word ("自我", "忘我")
_I_ZH = re.compile(r"(?<![自忘])我(?!们)")


def in_third_person(fact: str) -> str:
    """A Chinese fact about the user with the user's "我" made "用户": the 1.5B model copies it
    from the user's words ("用户的妹妹安娜也跟我一起去夏威夷旅行"), and injected into a prompt, "me"
    reads as whoever wrote the context. English facts come in the third person already."""
    return _I_ZH.sub("用户", fact) if "用户" in fact else fact


# A capitalised word inside a sentence: a name ("Luna", "Porto"), not a sentence's first word
_INNER_NAME = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][a-z]+\b")
# Chinese has no capitals: a name is what "named" introduces ("一只猫，叫露娜" → 露娜), not a
# pronoun ("叫他明天来": "told him to come tomorrow"), a question ("叫什么名字") or 叫 as a verb
# ("叫了外卖", "叫个不停")
_NAMED_ZH = re.compile(
    r"(?:名叫|叫做|取名|叫)(?![他她它我你了得着过个什啥])([\u4e00-\u9fff]{2,4}?)(?=[\s，。、；！？,.;!?的]|$)"
)


_SENTENCE_ZH = re.compile(r"[。！？!?；;\n]")
_KIN_OF_USER_ZH = re.compile(rf"(?:用户|我)的?({KIN_ZH})")  # not 哥 in "哥伦比亚"


def misnamed(fact: str, said: str) -> bool:
    """A Chinese fact naming a relative by a name the user gave to something else: "我家有一只
    猫，叫小白。我女儿今年五岁了。" was learned as "用户的女儿叫小白" (and no cat) through
    `make run`. Every sentence of the user's that says the name names none of the fact's
    relatives and points at no one ("我有个女儿。她叫小白。" is hers)."""
    kin = set(_KIN_OF_USER_ZH.findall(fact))
    if not kin:
        return False
    for name in _NAMED_ZH.findall(fact):
        where = [s for s in _SENTENCE_ZH.split(said) if name in s]
        if where and not any(k in s or _POINTED.search(s) for s in where for k in kin):
            return True
    return False


# The user speaking of themselves in a clause ("我每天早上六点去游泳"), not of what is theirs
# ("我的车…", "我司…"; "我妈妈…" leaves no rest to find after the possession), nor "我们"
_I_SAID_ZH = re.compile(r"(?<![自忘])我(?![的们司校家方])(?P<rest>[^，,。；;！!？?\n]{3,})")
_CLAUSE_ZH = re.compile(r"[，,。；;！!？?\n]")
_POSSESSION_ZH = "用户的"
# a possession is a thing or a person, not what someone said of the user ("医生建议", "妈妈说")
_REPORTED_ZH = re.compile(r"说|讲|建议|认为|觉得|让|叫|要求|希望|劝|告诉|提醒")


def own_clause(fact: str, said: str) -> str | None:
    """A Chinese fact that gives what the user said of themselves to something of theirs named
    in another clause, as the user's (None: it stays as written): for "我的车是一辆红色的特斯拉，
    我每天早上六点去游泳。", "用户的车每天早上六点去游泳" is "用户每天早上六点去游泳". All that
    follows the possession is what follows "我" in one clause, and the possession (a thing, a
    person: "我的车", not "我的医生建议") is said in other clauses only."""
    if not fact.startswith(_POSSESSION_ZH):
        return None
    clauses = _CLAUSE_ZH.split(said)
    act = fact.rstrip("。.")
    for match in _I_SAID_ZH.finditer(said):
        rest = match["rest"]
        at = act.find(rest[:4], len(_POSSESSION_ZH) + 1)
        if at < 0 or act[at:] not in rest:
            continue
        possession = act[len(_POSSESSION_ZH) : at]
        named = [c for c in clauses if f"我的{possession}" in c or f"我{possession}" in c]
        if named and not _REPORTED_ZH.search(possession) and not any(act[at:] in c for c in named):
            return "用户" + act[at:]
    return None


def names_dropped(said: str, facts: Sequence[Fact], known: Sequence[str]) -> set[str]:
    """The names the user said that no fact holds, nor a known fact (an old value said again:
    "I said Boston, I meant Austin"). Shown a known fact it may change, the 1.5B model wrote
    only the change: "I got a cat named Luna, and my rent is now $1,400" gave two rent facts
    and no Luna (in Chinese too: "我新养了一只猫，叫露娜，另外房租现在是每月5000元")."""
    held = set().union(*(terms(t) for t in (*(f.content for f in facts), *known)))
    names = (*_INNER_NAME.findall(said), *_NAMED_ZH.findall(said))
    return {n for n in names if terms(n) and not terms(n) & held}


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
