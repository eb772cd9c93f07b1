"""What a new statement does to the memories a user holds: the policy (how near is related,
how many a model is asked about) and the decisions made from words and scores alone. Pure:
memories/writer.py reads the candidates, asks the model and writes.

For each new statement (an extracted fact, a note, an API add), against the user's related
memories, best first:

1. Words decide first (changes.py): a restatement adds nothing (or rewords the memory, for an
   explicit add); a changed value, a correction or an ending revises the memory it changes.
   Cosine >= ``same_memory`` with any other difference is the same memory, revised (a bar
   raised for other languages: ``other_language_lift``).
2. Where words cannot tell ("User sold their car" / "User drives a 2015 Honda Civic"):
   * with a model, it is asked one pair at a time whether the old fact is still true, for a
     close pair (``close``) or a statement that says it changes or ends something: small
     models answer "no" too readily ("likes pizza" / "likes sushi");
   * an ending ("I sold my car") also looks up what it ends by its object's embedding ("car"
     finds "User drives a 2015 Civic" at 0.28, other memories at 0.15-0.23): without a model
     that is the memory it ends, with one it is the first pair asked about.
3. Otherwise it is new.
4. Once written, it is checked against the memories near it (``checked``), as injection used to
   check the memories it showed together: of two that still conflict, the newer wins (its
   words missed above, a model's judgment, one of the same job), and of two that say the same
   thing the one that says more (``overruled``). The loser leaves every search for the winner's
   history, so a request shows what is current without deciding it again.
An ending names what it ended in the new text, in its language ("User sold their car
(previously: User drives a 2015 Honda Civic)", "用户卖掉了车（以前：用户开一辆本田思域）").
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

from memory_extproc.lang import ENGLISH, FILED, filed
from memory_extproc.languages import is_english, language_of
from memory_extproc.memories.change_words import DETERMINER
from memory_extproc.memories.changes import Change, compare, corrected, distinct, ended_object
from memory_extproc.memories.notes import statement
from memory_extproc.store.model import Memory, MemoryType, ScoredMemory, content_hash
from memory_extproc.words import terms


@dataclasses.dataclass(frozen=True, slots=True)
class ReconcilePolicy:
    """Measured values (eval/RESULTS.md, make scenarios); one home, as RankPolicy is for
    ranking."""

    same_memory: float = 0.9
    related: float = 0.4
    # A switch ("switched", "became", "no longer"…) may replace a memory it shares no words
    # with ("… is a baker now" / "User works as a carpenter in Porto": 0.30). Not any change
    # word: a small model judges a far pair "no longer true" too readily, and "User got a new
    # puppy" replaces nothing.
    related_when_switched: float = 0.25
    candidates: int = 10
    judged: int = 3  # candidates a model is asked about when the user said something changed
    # …and without a change word, only the closest: when it is still true, farther ones were
    # too (LoCoMo: ~40% fewer model calls per job)
    judged_unprompted: int = 1
    # A pair without a change word is asked about only this close: unrelated pairs of one kind
    # score high ("User likes pizza" / "… sushi" 0.63, "has a cat named Tom" / "… a dog named
    # Rex" 0.67).
    close: float = 0.7
    # What an ending names ("car" of "my car") vs the memory it ends; the best must also lead
    # the next by a margin ("car" / "User drives a 2015 Civic" 0.28, other memories 0.15-0.23).
    ended_object: float = 0.25
    ended_lead: float = 0.05
    # How near a held memory is checked against one just written (step 4): pairs a request
    # may show together ("User moved to Seattle" / "User has lived in Denver for five years")
    checked: float = 0.25
    # A place's name vs the memories that name it ("Denver" / "User goes to a climbing gym in
    # Denver"): wide, as the words decide (memories/cascades.py)
    cascade: float = 0.1
    # Scores of a statement in another language than English are e5's, on MiniLM's scale
    # (embedding/spaces.py) but running higher between memories: the share of LoCoMo's memory
    # pairs MiniLM puts at >= 0.9 (>= 0.7) e5 puts at >= 0.98 (>= 0.78). Its bars are this
    # much higher ("El usuario está reservando vuelos…" / "… presupuesto de 10,000 dólares…":
    # 0.90, not the same memory).
    other_language_lift: float = 0.08
    # A note's or a model fact's key: its words + this x its message's (Fact.context).
    context_weight: float = 0.6
    # A preference's key: its words + this x the kinds of request it bears on.
    requests_weight: float = 0.6
    # A memory in another language whose kind e5 misses (memories/topics.py): its words +
    # this x the word for its kind.
    topic_weight: float = 0.6

    def related_to(self, switched: bool) -> float:
        return self.related_when_switched if switched else self.related

    def lift(self, text: str) -> float:
        """What the bars between memories rise by for ``text`` (0 for English)."""
        return 0.0 if is_english(text) else self.other_language_lift

    def same_memory_for(self, text: str) -> float:
        return self.same_memory + self.lift(text)

    def asked_about(
        self, text: str, candidates: Sequence[ScoredMemory], changes: bool
    ) -> list[ScoredMemory]:
        """The pairs a model is asked about, in order, until one is too far to ask unprompted."""
        if changes:
            return list(candidates[: self.judged])
        first = candidates[: self.judged_unprompted]
        close = self.close + self.lift(text)
        return list(itertools.takewhile(lambda c: c.score >= close, first))


POLICY = ReconcilePolicy()


@dataclasses.dataclass(frozen=True, slots=True)
class Revision:
    target: ScoredMemory
    content: str
    reason: str


def ending(target: ScoredMemory, text: str, reason: str) -> Revision:
    """An ending keeps what it ended in its text: "User quit their job at Acme Corp" alone
    answers neither "Where do I work?" (cosine 0.14) nor which job it was. What that memory had
    ended itself is not carried on."""
    before = statement(target.memory.content)
    for language in FILED:
        before = before.split(language.previously[0], 1)[0]
    # what it ended, in the ending's language (English's words for one without a file)
    opening, closing = (filed(language_of(text)) or ENGLISH).previously
    return Revision(target, f"{text}{opening}{before.strip()}{closing}", reason)


def revised(memory: Memory, text: str, at_ms: int, kind: MemoryType | None = None) -> Memory:
    """The memory with a new text (same id and creation time), dated ``at_ms``."""
    return dataclasses.replace(
        memory,
        content=text,
        content_hash=content_hash(text),
        type=kind or memory.type,
        updated_at=at_ms,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class ByWords:
    """What words and scores alone decided: revise ``revision``, or nothing new (``noop``)."""

    revision: Revision | None
    noop: bool = False


def by_words(
    text: str,
    candidates: Sequence[ScoredMemory],
    policy: ReconcilePolicy,
    *,
    change_said: bool = False,
    reword: bool = False,
) -> ByWords | None:
    """The decision words can make (None: they cannot tell)."""
    said = statement(text)
    for candidate in candidates:
        change = compare(said, statement(candidate.memory.content), change_said=change_said)
        if change is Change.RESTATED:
            return ByWords(Revision(candidate, text, "restated")) if reword else ByWords(None, True)
        if change is Change.CORRECTED:
            fixed = corrected(candidate.memory.content, said) or text
            return ByWords(Revision(candidate, fixed, change.value))
        if change is Change.ENDED:
            return ByWords(ending(candidate, text, "ended by a newer memory"))
        if change is not None:
            return ByWords(Revision(candidate, text, f"{change.value} by a newer memory"))
    nearest = candidates[0] if candidates else None
    if (
        nearest is not None
        and nearest.score >= policy.same_memory_for(said)
        and not distinct(said, statement(nearest.memory.content))
    ):
        # of two that say the same thing, the one that says more stays, as overruled() keeps
        # it: "Der Nutzer hat eine Erdnussallergie" rewrote "… ist allergisch gegen Erdnüsse"
        if not reword and len(terms(said)) < len(terms(statement(nearest.memory.content))):
            return ByWords(None, True)
        return ByWords(Revision(nearest, text, "restated"))
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class Overruled:
    loser: Memory
    winner: Memory
    reason: str


def overruled(written: Memory, held: Sequence[Memory]) -> list[Overruled]:
    """What a memory just written and the memories near it (best first) do to each other: of
    two that conflict, the newer wins; of two that say the same thing, the one that says more,
    whichever came later ("Maria volunteers at a shelter" adds nothing to "Maria has been
    volunteering at a shelter, finding it rewarding"). Two recorded at once (one job's facts)
    are left alone: which is current cannot be told. Stops once ``written`` loses."""
    found: list[Overruled] = []
    for other in held:
        if other.recorded_at == written.recorded_at:
            continue
        newer, older = sorted((written, other), key=lambda m: m.recorded_at, reverse=True)
        said, before = statement(newer.content), statement(older.content)
        change = compare(said, before)
        if change is None and compare(before, said) is Change.RESTATED:
            change = Change.RESTATED  # said again with more: "… del Betis de toda la vida"
        if change is None:
            continue
        loser, winner = older, newer
        if change is Change.RESTATED and len(terms(said)) < len(terms(before)):
            loser, winner = newer, older
        reason = change.value
        if change in (Change.CHANGED, Change.ENDED):
            reason = f"{change.value} by a newer memory"
        found.append(Overruled(loser, winner, reason))
        if loser is written:
            break
    return found


def ended_query(said: str) -> str | None:
    """What an ending statement names, to look up what it ends: "my car" → "car"."""
    obj = ended_object(said)
    return (DETERMINER.sub("", obj) or obj) if obj else None


def ended_target(
    hits: Sequence[ScoredMemory], said: str, policy: ReconcilePolicy
) -> ScoredMemory | None:
    """Of the memories nearest what an ending names, the one it ends: not itself an ending,
    and clearly ahead of the next."""
    hits = [h for h in hits if ended_object(statement(h.memory.content)) is None]
    if not hits or (len(hits) > 1 and hits[0].score - hits[1].score < policy.ended_lead):
        return None
    return hits[0] if statement(hits[0].memory.content) != said else None
