"""Which of the vector search's candidates to inject, and in what order: cosine plus keywords.

MiniLM's cosine misses memories that share the question's rare words but not its phrasing
("What did Caroline research?" vs "Caroline looked into adoption agencies"). Hybrid ranking
takes more candidates from the vector search (down to ``threshold - floor_margin``), scores
each by how much of the question's keyword weight it contains (BM25-style IDF computed over
the candidates, so a word every candidate shares counts for little), and

* keeps a candidate if its cosine passes the threshold, as before, or if it is a near miss that
  covers at least ``rescue_coverage`` of the question's keyword weight;
* once a candidate passes by cosine, lets companions within ``companion_margin`` below the
  threshold join it: the threshold decides *whether* the question is about the user's
  memories, the slots are then filled with the next best (an adaptive threshold: +0.03 hit@5
  on LoCoMo, where the right memory often scores 0.5-0.6 next to a better-scoring neighbour);
* orders the kept ones by cosine + ``keyword_weight`` x coverage;
* when the question names a day or month ("on 25 May, 2022", "in July 2023"), counts a
  candidate recorded then as a companion, ahead by ``date_weight``: memories are dated by when
  they were said (LoCoMo, 81 of 798 questions name a date: hit@1 +0.017, hit@5 +0.005).
* when the question asks how long, how many or how often, orders a candidate that holds an
  amount ahead by ``amount_weight`` (amounts.py).

The cosine threshold keeps deciding whether anything is injected, and no mixed score is ever
compared with it (rank-fusion scores live on another scale: held against a cosine threshold they
pass nothing, or everything). Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from memory_extproc.languages import language_of
from memory_extproc.retrieval.amounts import asks_amount, holds_amount
from memory_extproc.retrieval.dates import named_spans
from memory_extproc.store.model import MemoryType, ScoredMemory
from memory_extproc.words import terms


@dataclass(frozen=True, slots=True)
class RankPolicy:
    hybrid: bool = True
    # Each value chosen on the development data (eval/RESULTS.md, "Ranking values"); hit@5 is
    # flat around them.
    candidates: int = 30  # vector hits considered when hybrid
    floor_margin: float = 0.4  # near misses: cosine down to threshold - margin
    rescue_coverage: float = 0.3  # share of the question's keyword weight a near miss needs
    keyword_weight: float = 0.6
    companion_margin: float = 0.15  # once one passes, companions down to threshold - margin
    date_weight: float = 0.2  # a memory recorded on the day the question names
    amount_weight: float = 0.1  # one holding an amount, for "how long / many / often" (amounts.py)
    # An open request's standing preferences (plan.py): the nearest few, down to this cosine,
    # far below the threshold because a request for a choice rarely names the preference it
    # bears on ("Recommend some cafes in San Francisco" / "User follows a strict gluten-free
    # diet": 0.33).
    preference_floor: float = 0.2
    # Three: a preference said in passing is learned as several ("User is a big fan of yoga",
    # "User usually prefers low-impact exercises"), so a user holds many, and a request's own
    # was third behind two of another conversation's in 3 of PrefEval's 15 persona requests
    # (items 6-8; eval/RESULTS.md, "A third preference slot").
    preference_limit: int = 3

    def candidate_floor(self, threshold: float) -> float:
        return threshold - self.floor_margin if self.hybrid else threshold

    def candidate_limit(self, limit: int) -> int:
        return max(limit, self.candidates) if self.hybrid else limit


def coverage(
    query: str, candidates: list[ScoredMemory], pool: int = 0, language: str = ""
) -> list[float]:
    """The share of the query's keyword weight each candidate contains (BM25-style IDF over the
    candidates, so a word every candidate shares counts for little). ``pool``: the number of
    candidates a search usually brings; a user with only a few memories must not make every
    word they contain look common ("What car do I drive?" vs the one memory about a car).
    ``language``: the query's, when already told.

    Each candidate is read in the query's language, its words dropped and stemmed as the
    query's are: only the query's words are looked for, and telling each candidate's own
    language cost ~2 ms a request (langid on 30 texts) wherever memories are not read twice."""
    language = language or language_of(query)
    wanted = terms(query, language)
    documents = [terms(c.memory.content, language) for c in candidates]
    count = len(documents)
    size = max(count, pool)
    idf = {
        t: math.log(1 + (size - n + 0.5) / (n + 0.5))
        for t in wanted
        for n in [sum(t in d for d in documents)]
    }
    total = sum(idf.values())
    if not total:
        return [0.0] * count
    return [sum(idf[t] for t in wanted if t in document) / total for document in documents]


def rank(
    query: str,
    candidates: list[ScoredMemory],
    threshold: float,
    limit: int,
    policy: RankPolicy,
    *,
    rescue: bool = True,
    language: str = "",
) -> list[ScoredMemory]:
    """The memories to inject, best first (``candidates`` come best-cosine first). Without
    ``rescue`` (a request that raised the threshold) nothing below the threshold is kept."""
    if not policy.hybrid:
        return [c for c in candidates if c.score >= threshold][:limit]
    shares = coverage(query, candidates, policy.candidates, language)

    # A rescued near miss is itself the exception: only a memory that passes by cosine brings
    # companions (episodic notes: rescue-opened companions cost +50 tokens for +0.006 hit@5).
    passes = rescue and any(c.score >= threshold for c in candidates)
    floor = threshold - policy.companion_margin if passes else threshold
    spans = named_spans(query)
    amount = policy.amount_weight if asks_amount(query) else 0.0
    scored = [
        (
            candidate.score
            + policy.keyword_weight * share
            + policy.date_weight * dated
            + (amount and amount * holds_amount(candidate.memory.content)),
            candidate,
        )
        for candidate, share in zip(candidates, shares, strict=True)
        for dated in [any(a <= candidate.memory.recorded_at < b for a, b in spans)]
        if candidate.score >= floor
        or (rescue and share >= policy.rescue_coverage)
        or (passes and dated)
    ]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [candidate for _, candidate in scored[:limit]]


def preferences_held(
    found: list[ScoredMemory], limit: int, floor: float, policy: RankPolicy
) -> list[ScoredMemory] | None:
    """An open request's preferences, best first, when its own search (``limit`` results at
    most, down to ``floor``) already holds them; None when a search of their own is needed.
    What it left out scores below all it holds, so it holds them when it holds
    ``preference_limit`` above their floor, or when what it left out is below that floor: its
    last result is, or it found fewer than ``limit`` with a floor no higher."""
    held = [
        m
        for m in found
        if m.memory.type is MemoryType.PREFERENCE and m.score >= policy.preference_floor
    ]
    if len(found) < limit:
        everything = floor <= policy.preference_floor
    else:
        everything = min(m.score for m in found) < policy.preference_floor
    return held if everything or len(held) >= policy.preference_limit else None


def with_preferences(
    ranked: list[ScoredMemory], preferences: list[ScoredMemory], limit: int, policy: RankPolicy
) -> list[ScoredMemory]:
    """An open request's memories: its standing preferences (best first, down to the floor, at
    most ``preference_limit``) ahead of what it matched itself, each memory once, ``limit`` in
    all (a request's ``retrieval_limit`` holds for preferences too)."""
    chosen = [p for p in preferences if p.score >= policy.preference_floor]
    return _ahead(chosen[: policy.preference_limit], ranked, limit)


def with_own_life(
    ranked: list[ScoredMemory], own: list[ScoredMemory], limit: int
) -> list[ScoredMemory]:
    """What the request refers to of the user's life (its home, its job: retrieval/own_life.py)
    ahead of what it matched itself (an open request's preferences go ahead of both), each
    memory once, ``limit`` in all."""
    return _ahead(own, ranked, limit)  # a move for a job is both: once


def _ahead(first: list[ScoredMemory], rest: list[ScoredMemory], limit: int) -> list[ScoredMemory]:
    """``first`` ahead of ``rest``, each memory once, ``limit`` in all."""
    once: dict[str, ScoredMemory] = {}
    for memory in [*first, *rest]:
        once.setdefault(memory.memory.id, memory)  # where it comes first, as it scored there
    return list(once.values())[:limit]
