"""Without an extraction model the service still learns: dated notes of what the user said.

A message that states something becomes one note per stated sentence: a short note matches the
one question it answers where a whole message's note matched none (both-sides LoCoMo, offline:
hit@5 0.555 → 0.68 at fewer tokens, eval/RESULTS.md), and a stated fact does not hinge on what
the assistant answered (a refusal, a stand-in). A message that only asks keeps the answer with
it, since the answer is what the user learned; what the answer only echoed from injected
memories is left out, and a question answered from memory alone leaves no note (echo.py).
With a model, the preferences it did not keep are noted the same way (preferences_missed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.lang import FILED, either
from memory_extproc.memories.confidence import of_words
from memory_extproc.memories.facts import Fact, stated_once
from memory_extproc.memories.instructions import is_instruction_like
from memory_extproc.memories.notes import note, note_kind, statement
from memory_extproc.memories.preferences import states_aversion, states_preference
from memory_extproc.memories.relative_dates import without_resolved_dates
from memory_extproc.retrieval.decision import is_greeting
from memory_extproc.store.model import MemoryType
from memory_extproc.words import CJK, function_char, sentences, terms, width
from memory_extproc.worker.echo import adds_information, own_words, statements, strip_echoes

_MIN_CHARS = 12
_MOST_NOTES = 6  # per turn: LoCoMo turns state up to 7 sentences; a pasted text is no 100 facts
_CONTEXT_CHARS = 2_000  # of the message a note carries: MiniLM reads its first 256 tokens anyway
_PARTS = tuple(language.notes for language in FILED)
# an assistant's answer that refuses: nothing of the user's to note from it
_REFUSAL = re.compile(rf"^\s*(?:{either([part.refusal for part in _PARTS])})", re.IGNORECASE)
# Small talk: a sentence of nothing but these words (and a name it is said to) leaves no note.
# "Thanks, Melanie!", "Wow, that's great!", "Yep, Joanna." were 1 in 12 of LoCoMo's sentence
# notes, and a question naming that person found them before what the user had said about it.
# (each language's words read as that language's: "gracias" is stemmed as Spanish is)
_SMALL_TALK = frozenset().union(*(terms(lang.notes.small_talk, lang.code) for lang in FILED))
# the name it is said to: "…, Melanie!", "Hey Melanie!"
_VOCATIVE = re.compile(
    rf"(?:,\s*|^(?i:{either([part.vocative for part in _PARTS])})\s+)[A-Z][\w'-]*"
    r"(?:\s+[A-Z][\w'-]*)?(?=[\s!.?]*$)"
)


def _small_talk(text: str) -> bool:
    return not terms(_VOCATIVE.sub("", text)) - _SMALL_TALK


def turn_notes(message: str, answer: str, date: str, recalled: Sequence[str] = ()) -> list[Fact]:
    """The notes a turn leaves: one per sentence the user stated, else (a question) one of the
    question and its answer; none for greetings, small talk, refusals and questions answered from
    memory (``recalled``: the memories injected into the request). Pasted code states nothing
    about the user: its lines are no notes. A stated sentence carries the message it was said in:
    "I whipped up some chocolate and vanilla swirl." alone does not say it was ice cream."""
    message, answer = own_words(message).strip(), answer.strip()
    if width(message) < _MIN_CHARS or is_greeting(message) or _small_talk(message):
        return []
    if stated := _stated(message):
        return [
            Fact(
                note_kind(s),
                note(s, "", date),
                context=message[:_CONTEXT_CHARS],
                confidence=of_words(s),
            )
            for s in stated[:_MOST_NOTES]
        ]
    if not answer or _REFUSAL.match(answer):
        return []
    answer = strip_echoes(answer, recalled)
    if not adds_information(answer, message, recalled):
        return []
    return [Fact(MemoryType.EPISODIC, note(message, answer, date))]


def _stated(message: str) -> list[str]:
    return [
        said
        for s in sentences(message)
        if width(said := stated_once(statements(s))) >= _MIN_CHARS
        and not _small_talk(said)
        and not said.endswith(":")  # "Here is my script:" — what it announces is not there
    ]


def preferences_missed(message: str, learned: Sequence[Fact], date: str) -> list[Fact]:
    """With a model, the notes of the user's sentences that state a standing preference the
    model kept as none. A 1.5B model writes some as something else ("I usually prefer eco-friendly
    tech that's built with recyclable materials" became "User is considering upgrading their
    phone to eco-friendly tech"), or folds them into another fact, and the request they bear on
    ("the best wireless headphones for me") was given none (PrefEval persona talks, 2 of 8
    preferences in a probe, eval/RESULTS.md). The model kept one when it wrote a preference that
    shares half the words of the shorter of the two or more, the words of holding a taste
    aside: "Keep it meat-free, I'm vegetarian." is "User is vegetarian", "Soy vegetariano." is
    "El usuario es vegetariano"."""
    message = own_words(message)
    kept = [f for f in learned if f.type is MemoryType.PREFERENCE]
    return [
        Fact(
            MemoryType.PREFERENCE,
            note(s, "", date),
            context=message[:_CONTEXT_CHARS],
            confidence=of_words(s),
        )
        for s in _stated(message)
        if states_preference(s)
        and not is_instruction_like(s)
        and not _MEMORY_COMMAND.search(s)
        and not _kept_in(s, kept)
    ][:_MOST_NOTES]


# what the user asked memory not to keep: "Don't remember that I love cats."
_MEMORY_COMMAND = re.compile(either([part.memory_command for part in _PARTS]), re.IGNORECASE)
# how a taste is held, not what it is of: words, and patterns of languages without spaces
_HOLDING = frozenset().union(
    *(terms(lang.notes.holding, lang.code) for lang in FILED if lang.spaced)
)
_HOLDING_UNSPACED = re.compile("|".join(lang.notes.holding for lang in FILED if not lang.spaced))
# a taste held the other way round where words do not say it ("不爱吃", "没兴趣")
_NOT_HELD = re.compile(either([part.not_held for part in _PARTS]))


def _held_against(text: str) -> bool:
    """Chinese: the taste is one the user avoids, dislikes or fears, or does not like."""
    return states_aversion(text) or bool(_NOT_HELD.search(text))


def _characters(text: str) -> frozenset[str]:
    """A Chinese text's content characters: its words, where character pairs cut one word into
    pieces another wording does not share ("纯素食者", "改吃纯素" share one pair of three)."""
    runs = CJK.findall(text.replace("用户", " "))
    return frozenset(c for run in runs for c in run if not function_char(c))


def _shares(said: frozenset[str], kept: frozenset[str], share: float) -> bool:
    return bool(kept) and len(said & kept) >= share * min(len(said), len(kept))


def _kept_in(sentence: str, preferences: Sequence[Fact]) -> bool:
    """Kept: a preference shares half the words of the shorter of the two and keeps what the
    sentence holds against. In Chinese a word is read as character pairs, which cut it into
    pieces another wording does not share, so two thirds of the characters of the shorter do
    too, with a pair: "我现在已经完全改吃纯素了。" is "用户是纯素食者"; a taste held the other
    way round on one side only keeps nothing ("我不爱吃甜食。" / "用户喜欢甜食"). "I hate
    hiking." is not kept by "User loves hiking", nor "I prefer milder flavors since I dislike
    spicy food" by "User prefers milder flavors" (PrefEval persona talks: 9 of 112 preference
    sentences kept by a preference that dropped their aversion)."""
    averse, against = states_aversion(sentence), _held_against(sentence)
    sentence = _HOLDING_UNSPACED.sub(" ", sentence)
    said, characters = terms(sentence) - _HOLDING, _characters(sentence)
    for preference in preferences:
        # the date the product wrote is not the user's words ("… es vegetariano desde
        # noviembre de 2026" for "me hice vegetariano hace un mes")
        content = without_resolved_dates(statement(preference.content))
        if characters and against != _held_against(content):
            continue
        keeps_aversion = states_aversion(content) or not averse
        content = _HOLDING_UNSPACED.sub(" ", content)
        kept = terms(content) - _HOLDING
        if keeps_aversion and (
            _shares(said, kept, 1 / 2)
            or (said & kept and _shares(characters, _characters(content), 2 / 3))
        ):
            return True
    return not said
