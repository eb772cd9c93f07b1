"""Write what was learned so memory stays true: no duplicates, one current value per thing.

The edges of reconciliation: read a statement's related memories, ask the model where words
cannot tell (memories/reconcile.py decides the rest, pure), and write — stored, a revision that
keeps the old text as history (an audit row, never searched), or nothing. A revision keeps the
memory's id and creation time and is dated to the statement.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from enum import StrEnum
from itertools import chain, compress

import numpy as np

from memory_extproc import metrics
from memory_extproc.clock import now_ms
from memory_extproc.embedding.spaces import (
    Embeddings,
    blend,
    is_carried,
    score,
    with_other_part,
)
from memory_extproc.languages import is_english
from memory_extproc.llm_client import ChatClient, LlmError
from memory_extproc.memories import changes, confidence, retention
from memory_extproc.memories.cascades import (
    ends_with_move,
    home_asked,
    left_place,
    said_beside,
    until_moved,
)
from memory_extproc.memories.changes import Change, same_amount, says_change, says_switch
from memory_extproc.memories.directives import is_directive
from memory_extproc.memories.facts import Fact
from memory_extproc.memories.judge import JUDGE_SCHEMA, judge_messages, parse_judgment
from memory_extproc.memories.model_json import ExtractionParseError
from memory_extproc.memories.notes import note_kind, saying, statement, unframed
from memory_extproc.memories.preferences import requests_implied
from memory_extproc.memories.reconcile import (
    POLICY,
    Overruled,
    Revision,
    by_words,
    ended_query,
    ended_target,
    ending,
    overruled,
    revised,
)
from memory_extproc.memories.topics import topic_words
from memory_extproc.store.model import (
    PENDING,
    Confidence,
    Memory,
    MemoryType,
    ScoredMemory,
    SearchRequest,
    Store,
    confidence_of,
    content_hash,
    get_live,
    is_held,
)
from memory_extproc.words import numbers

log = logging.getLogger(__name__)
# users this process remembers something of (who writes another language than English, whose
# held memories were checked against each other), the most recent kept
_USERS_REMEMBERED = 65536
_ENDED: ContextVar[list[str] | None] = ContextVar("ended", default=None)


@contextlib.contextmanager
def ended_recorded() -> Iterator[list[str]]:
    """The ids of the memories the writes inside end as current: retired by a newer one,
    ended by a move, a copy removed with what it copied. For a turn's receipt."""
    ended: list[str] = []
    token = _ENDED.set(ended)
    try:
        yield ended
    finally:
        _ENDED.reset(token)


def _record_ended(memory_id: str) -> None:
    if (ended := _ENDED.get()) is not None:
        ended.append(memory_id)


def _nearest(vectors: np.ndarray, k: int) -> np.ndarray:
    """For each row, the ``k`` other rows nearest it (inner product), nearest first; in slices,
    as a user may hold thousands."""
    rows = []
    for start in range(0, len(vectors), 512):
        scores = vectors[start : start + 512] @ vectors.T
        np.fill_diagonal(scores[:, start:], -np.inf)
        rows.append(np.argsort(-scores, axis=1)[:, :k])
    return np.concatenate(rows)


def _requests(fact: Fact) -> tuple[str, ...]:
    """The kinds of request a preference is stored toward: those its subject implies, else the
    model's."""
    if fact.type is not MemoryType.PREFERENCE:
        return ()
    return requests_implied(fact.content) or fact.requests


class Written(StrEnum):
    STORED = "stored"
    UPDATED = "updated"
    DEDUPED = "deduped"
    NOOP = "noop"  # a restatement of what is already held
    STORED_UNRECONCILED = "stored_unreconciled"  # the model's judgment was unusable: kept as new
    DIRECTIVE = "rejected_directive"  # a standing rule for the assistant, read by meaning
    PENDING = "held_for_review"  # under the confidence bar: kept for the user to confirm


class DirectiveRefused(Exception):
    """An explicit add that reads as a standing rule for the assistant (directives.py)."""


_Placed = tuple[int, np.ndarray, Revision | None, Written]  # a fact, its vector, what it does


def _revised_once(
    placed: Sequence[_Placed], facts: Sequence[Fact], changed: Sequence[bool]
) -> list[_Placed]:
    """One memory is revised by one fact of a job; the others are their own. "Seit letztem
    Monat wohnen wir in Hamburg. Der Umzug war die Hölle." gave two facts the model judged to
    end the Bremen home, and the second revision wrote over the first: Hamburg was lost. The
    one the rules relate to the memory revises it (the new home, not the remark; their scores
    come from different searches: a home found by what a home says scores 0), then the nearest,
    then the first."""

    def claim(i: int, target: ScoredMemory) -> tuple[bool, float]:
        said, held = statement(facts[i].content), statement(target.memory.content)
        return changes.compare(said, held, change_said=changed[i]) is not None, target.score

    chosen: dict[str, tuple[tuple[bool, float], int]] = {}
    for at, (i, _, revision, _) in enumerate(placed):
        if revision is not None:
            key = claim(i, revision.target)
            best = chosen.get(revision.target.memory.id)
            if best is None or key > best[0]:
                chosen[revision.target.memory.id] = (key, at)
    return [
        (i, vector, None, Written.STORED)
        if revision is not None and chosen[revision.target.memory.id][1] != at
        else (i, vector, revision, outcome)
        for at, (i, vector, revision, outcome) in enumerate(placed)
    ]


class MemoryWriter:
    def __init__(
        self,
        store: Store,
        embedder: Embeddings,
        judge: ChatClient | None,
        *,
        ttl_ms: int = 0,
        max_per_user: int = 0,
        hold_below: Confidence | None = Confidence.IMPLIED,
        pending_ms: int = 30 * 86_400_000,
    ) -> None:
        self._hold_below = hold_below
        self._pending_ms = pending_ms
        self._store = store
        self._embedder = embedder
        self._judge = judge
        self._ttl_ms = ttl_ms
        self._max_per_user = max_per_user
        self._other_languages: OrderedDict[str, None] = OrderedDict()
        self._settled: OrderedDict[str, None] = OrderedDict()  # overrule_held

    async def overrule_held(self, user_id: str) -> int:
        """The user's memories checked against each other (``_overrule``'s rules), once per
        process: what a release before that check left side by side ("User lives in Denver",
        "User moved to Seattle") is settled before this process writes for the user. Nearness
        is the stored vectors' (ten nearest). How many were retired."""
        if user_id in self._settled:
            return 0
        held = await self._store.stored_under(user_id)
        retired = 0
        for project in {m.project_id for m, _ in held}:
            mine = [m for m, _ in held if m.project_id == project]
            vectors = np.stack([v for m, v in held if m.project_id == project])
            nearest = await asyncio.to_thread(_nearest, vectors, POLICY.candidates)
            gone: set[str] = set()
            for at, (memory, near) in enumerate(zip(mine, nearest, strict=True)):
                if memory.id not in gone:
                    others = [mine[k] for k in near if k != at and mine[k].id not in gone]
                    retired += await self._retire(user_id, overruled(memory, others), gone)
                await asyncio.sleep(0)  # a user of thousands of memories: the loop goes on
        self._settled[user_id] = None
        if len(self._settled) > _USERS_REMEMBERED:
            self._settled.popitem(last=False)
        return retired

    def forget_cached_texts(self) -> None:
        """After a forget, what this process read of memory texts goes too: their vectors in
        its embedder's cache, their words and comparisons (memories/changes.py). Forget means
        forget, in memory as on disk; what is still stored is read again when it comes back."""
        self._embedder.clear_cache()
        changes.clear_caches()
        self._other_languages.clear()

    async def heard(self, user_id: str, said: Sequence[str]) -> int:
        """What the user wrote, before anything learned from it is written. A user who writes
        another language than English has every memory read by e5 (embedding/spaces.py): the
        ones held with a carried e5 part are read again now (how many is returned), and what
        they say in English from now on is read by both models. Each time, not once: a memory
        written meanwhile elsewhere (the API, another replica) may be carried."""
        if all(is_english(text) for text in said if text.strip()):
            return 0
        self._other_languages[user_id] = None
        self._other_languages.move_to_end(user_id)
        if len(self._other_languages) > _USERS_REMEMBERED:
            self._other_languages.popitem(last=False)
        held = [(m, v) for m, v in await self._store.stored_under(user_id) if is_carried(v)]
        own = await self._embedder.memories([unframed(m.content) for m, _ in held])
        read = 0
        for (memory, vector), words in zip(held, own, strict=True):
            # a carried memory is not a preference, so its e5 part is its own words' (_keys)
            read += await self._store.rekey(memory, with_other_part(vector, words))
        return read

    def _by_e5(self, user_id: str, kind: MemoryType) -> bool:
        """Whether an English memory is read by e5 too: a user's who writes another language
        (``heard``), and every preference: a standing instruction, given to the requests it
        bears on in whatever language they come (a nut allergy missed by the first request in
        Chinese is one too many), and few. What is added or edited through the API always is:
        those calls are few, and this process may not have heard the user (the API runs in the
        processor, learning in the worker)."""
        return kind is MemoryType.PREFERENCE or user_id in self._other_languages

    async def write(
        self,
        user_id: str,
        project_id: str,
        fact: Fact,
        at_ms: int,
        *,
        source: str,
        change_said: bool = False,
    ) -> Written:
        ((written, _),) = await self.write_batch(
            user_id, project_id, [fact], at_ms, source=source, changes=[change_said]
        )
        return written

    async def write_batch(
        self,
        user_id: str,
        project_id: str,
        facts: Sequence[Fact],
        at_ms: int,
        *,
        source: str,
        changes: Sequence[bool] = (),
        switches: Sequence[bool] = (),
        wait_visible: bool = True,
    ) -> list[tuple[Written, str]]:
        """One job's facts with few Milvus calls: one hash lookup, one search for all of them,
        one insert (and visibility wait) for what is new; revisions one by one. Each fact's
        outcome, with the id of the memory it stored or revised ("" when nothing was written).

        ``changes``: for each fact, whether the user's words it came from said something
        changed ("now", "I meant" …); ``switches``, whether they said one thing replaced
        another ("I quit last month, and now I teach …": the model's "User teaches at a primary
        school" shares no word with the nurse it replaces). None said: all False. Without
        ``wait_visible`` the caller waits (``settled``)."""
        facts = list(facts)  # a held fact observed again is surer (_reviewed)
        changed = list(changes) or [False] * len(facts)
        switched = list(switches) or [False] * len(facts)
        digests = [content_hash(f.content) for f in facts]
        existing = await self._store.existing_hashes(user_id, digests)
        results: list[tuple[Written, str]] = [(Written.DEDUPED, "")] * len(facts)
        for fact, digest in zip(facts, digests, strict=True):
            if digest in existing:
                existing[digest] = await self._seen_again(existing[digest], fact)
        todo = [i for i, d in enumerate(digests) if d not in existing]
        texts = [unframed(facts[i].content) for i in todo]
        if user_id not in self._other_languages:
            await self.heard(user_id, texts)  # a fact in another language: its user writes it
        vectors = await asyncio.gather(*(
            self._embedder.memory(t, by_e5=self._by_e5(user_id, facts[i].type))
            for i, t in zip(todo, texts, strict=True)
        ))  # fmt: skip
        # a command in words no rule knows reads as one by meaning, on the vector just made
        rules = [is_directive(t, v) for t, v in zip(texts, vectors, strict=True)]
        for i in compress(todo, rules):
            results[i] = (Written.DIRECTIVE, "")
        kept_ones = [not rule for rule in rules]
        todo, texts = list(compress(todo, kept_ones)), list(compress(texts, kept_ones))
        vectors = list(compress(vectors, kept_ones))
        queries = await self._embedder.statements(texts)
        keys = dict(zip(todo, await self._keys([facts[i] for i in todo], vectors), strict=True))
        kept: list[tuple[int, np.ndarray]] = []
        for i, vector, query in zip(todo, vectors, queries, strict=True):
            # the same fact twice in one job, reworded: keep the first
            same = POLICY.same_memory_for(facts[i].content)
            if not any(score(query, o) >= same for _, o in kept):
                kept.append((i, vector))
        asked = dict(zip(todo, queries, strict=True))
        kept, held = await self._reviewed(user_id, project_id, facts, kept, results, at_ms, source)
        similar = await self._store.retrieve_many(
            [
                SearchRequest(
                    user_id, asked[i], limit=POLICY.candidates, project_id=project_id,
                    threshold=POLICY.related_to(
                        switched[i] or says_switch(statement(facts[i].content))
                    ),
                )
                for i, _ in kept
            ]
        )  # fmt: skip
        similar = [
            [*candidates, *await self._homes(user_id, project_id, facts[i].content, candidates)]
            for (i, _), candidates in zip(kept, similar, strict=True)
        ]
        placed = [
            (i, vector, *await self._place(
                user_id, project_id, facts[i].content, candidates, change_said=changed[i]
            ))
            for (i, vector), candidates in zip(kept, similar, strict=True)
        ]  # fmt: skip
        placed = _revised_once(placed, facts, changed)
        near = {i: candidates for (i, _), candidates in zip(kept, similar, strict=True)}
        updates = [  # what the user said: a note's date frame is not an amount
            statement(facts[i].content) for i, _, revision, _ in placed if revision is not None
        ]
        new: list[tuple[Memory, np.ndarray]] = []
        checked: list[tuple[Memory, np.ndarray]] = []  # what was written, by its words' vector
        for i, _, revision, outcome in placed:
            written = ""
            if revision is not None:
                now = await self._revise(
                    revision, keys[i], facts[i], at_ms, wait_visible=wait_visible
                )
                outcome = Written.UPDATED if now is not None else Written.STORED_UNRECONCILED
                if now is not None:
                    written = now.id
                    checked.append((now, asked[i]))
                    await self._cascade(user_id, project_id, facts[i].content, revision, at_ms)
                    if revision.reason.startswith((Change.CORRECTED.value, Change.CHANGED.value)):
                        await self._copies_retired(revision, near[i])
            elif any(same_amount(statement(facts[i].content), u) for u in updates):
                outcome = Written.NOOP  # the job's update said twice ("went up to $1,350")
            elif outcome in (Written.STORED, Written.STORED_UNRECONCILED):
                memory = self._new(user_id, project_id, facts[i], at_ms, source)
                new.append((memory, keys[i]))
                checked.append((memory, asked[i]))
                written = memory.id
            results[i] = (outcome, written)
        await self._store.store_many([*new, *held], wait_visible=wait_visible)
        await self._overrule(user_id, project_id, checked)
        if new:
            await retention.enforce_cap(self._store, user_id, self._max_per_user)
        return results

    async def _seen_again(self, held: Memory, fact: Fact) -> Memory:
        """A current memory said again, word for word: a level surer (an implied preference,
        a pick, seen a second time is stated), or as sure as the new words if surer still."""
        surer = confidence.observed_again(confidence_of(held), fact.confidence)
        if surer is confidence_of(held):
            return held
        now = dataclasses.replace(held, meta={**held.meta, "confidence": surer.value})
        return now if await self._store.amend(now) else held

    async def _reviewed(
        self,
        user_id: str,
        project_id: str,
        facts: list[Fact],
        kept: list[tuple[int, np.ndarray]],
        results: list[tuple[Written, str]],
        at_ms: int,
        source: str,
    ) -> tuple[list[tuple[int, np.ndarray]], list[tuple[Memory, np.ndarray]]]:
        """The job's facts under the confidence bar, held for review (stored out of every
        search, changing nothing held); the rest go on to be placed. A fact that restates one
        held is its second observation: the held one goes, and the fact comes a level surer
        (``facts`` is updated in place), current if that clears the bar."""
        if self._hold_below is None or not kept:
            return kept, []
        waiting = await self._store.list(user_id, project_id=project_id, pending=True)
        placed, held = [], []
        for i, vector in kept:
            fact = facts[i]
            seen = next((p for p in waiting if confidence.restates(fact.content, p.content)), None)
            if seen is not None and await self._store.forget(user_id, seen.id):
                waiting.remove(seen)
                surer = confidence.observed_again(confidence_of(seen), fact.confidence)
                facts[i] = fact = dataclasses.replace(fact, confidence=surer)
                metrics.MEMORIES_REVIEWED.labels("observed_again").inc()
            if not confidence.held_back(fact.confidence, self._hold_below):
                placed.append((i, vector))
                continue
            memory = dataclasses.replace(
                self._new(user_id, project_id, fact, at_ms, source),
                superseded_by=PENDING,
                expires_at=now_ms() + self._pending_ms,
            )
            held.append((memory, vector))
            results[i] = (Written.PENDING, memory.id)
            metrics.MEMORIES_REVIEWED.labels("held").inc()
        return placed, held

    async def _overrule(
        self, user_id: str, project_id: str, written: Sequence[tuple[Memory, np.ndarray]]
    ) -> None:
        """Each memory just written against the memories near it (reconcile.py, step 4): the
        loser of a pair that still conflicts, or says less of the same thing, is retired into
        the winner's history. Decided once, here, rather than at every request that shows
        both. The job's own memories are read as written (a search may not see them yet)."""
        if not written:
            return
        near = await self._store.retrieve_many([
            SearchRequest(user_id, vector, limit=POLICY.candidates, threshold=POLICY.checked,
                          project_id=project_id)
            for _, vector in written
        ])  # fmt: skip
        fresh = {memory.id: memory for memory, _ in written}
        gone: set[str] = set()
        for (memory, _), hits in zip(written, near, strict=True):
            if memory.id in gone:
                continue
            held = [h.memory for h in hits if h.memory.id not in fresh]
            held += [m for m in fresh.values() if m.id != memory.id]
            await self._retire(
                user_id, overruled(memory, [m for m in held if m.id not in gone]), gone
            )

    async def _retire(self, user_id: str, verdicts: Sequence[Overruled], gone: set[str]) -> int:
        """Each loser into its winner's history, unless either has gone meanwhile."""
        retired = 0
        for verdict in verdicts:
            loser, winner = verdict.loser.id, verdict.winner.id
            if await self._store.retire(user_id, loser, winner, verdict.reason):
                gone.add(loser)
                _record_ended(loser)
                retired += 1
                metrics.MEMORIES_OVERRULED.inc()
                log.debug(
                    "Memory: an older or lesser memory retired", extra={"reason": verdict.reason}
                )
        return retired

    async def _keys(self, facts: Sequence[Fact], vectors: Sequence[np.ndarray]) -> list[np.ndarray]:
        """What each fact is stored under: its own words' vector, leaning toward the words it was
        said in (``Fact.context``), for a preference toward the kinds of request it bears on
        (``_requests``) and, for a job or a move, toward the words for work or where one lives,
        which its words alone may miss (topics.py). Decisions stay with its own words."""
        contexts = [f.context if f.context != unframed(f.content) else "" for f in facts]
        english = [is_english(unframed(f.content)) for f in facts]
        kinds = [", ".join(_requests(f)) for f in facts]
        topics = [topic_words(unframed(f.content)) for f in facts]
        said_in = list(dict.fromkeys((c, e) for c, e in zip(contexts, english, strict=True) if c))
        read = [self._embedder.context(c, of_english=e) for c, e in said_in]
        sentences = dict(zip(said_in, await asyncio.gather(*read), strict=True))
        words = list(dict.fromkeys(w for w in (*kinds, *chain.from_iterable(topics)) if w))
        read_words = dict(zip(words, await self._embedder.memories(words), strict=True))
        keys = []
        for vector, context, kind, topic, of in zip(
            vectors, contexts, kinds, topics, english, strict=True
        ):
            parts = [(vector, 1.0)]
            if context:
                parts.append((sentences[context, of], POLICY.context_weight))
            if kind:
                parts.append((read_words[kind], POLICY.requests_weight))
            parts.extend((read_words[word], POLICY.topic_weight) for word in topic)
            keys.append(blend(parts))
        return keys

    async def switched_from(self, user_id: str, project_id: str, said: str) -> list[str]:
        """What a switch the user said may end, for the extractor to see ("I switched careers:
        I'm a baker now" / "User works as a carpenter in Porto"): nothing is recalled for a
        statement and the two share no word, so the model wrote "User switched careers to
        baking", which a 1.5B judge does not read as ending the carpenter."""
        if not says_switch(said):
            return []
        vector = await self._embedder.statement(said)
        [found] = await self._store.retrieve_many(
            [SearchRequest(user_id, vector, limit=POLICY.judged,
                           threshold=POLICY.related_when_switched, project_id=project_id)]
        )  # fmt: skip
        return [c.memory.content for c in found]

    async def held(self, user_id: str, contents: Sequence[str]) -> set[str]:
        """The normalized hashes of these texts that the user's active memories already hold."""
        return set(await self._store.existing_hashes(user_id, [content_hash(c) for c in contents]))

    async def forgotten_at(self, user_id: str, project_id: str) -> int:
        """As of a moment ago (cheap): a forget of the last moment is seen by ``settled``."""
        return await self._store.forgotten_at(user_id, project_id)

    async def settled(self, user_id: str, project_id: str) -> int:
        """Once this job's writes are visible, when the user's scope was last forgotten."""
        return await self._store.settled(user_id, project_id)

    async def take_back(self, user_id: str, memory_ids: Sequence[str]) -> None:
        """Delete what a job wrote from turns that a forget, arriving meanwhile, covers."""
        for memory_id in dict.fromkeys(memory_ids):
            await self._store.forget(user_id, memory_id)

    async def add(
        self, user_id: str, project_id: str, fact: Fact, at_ms: int, *, source: str
    ) -> tuple[Written, Memory]:
        """An explicit add (API, CLI): the same text returns the memory held; a restatement,
        changed value, correction or ending revises the memory it concerns; anything else is
        stored as said. No model is asked: an API call does not wait on an LLM."""
        vector = await self._embedder.memory(unframed(fact.content))
        if is_directive(unframed(fact.content), vector):
            raise DirectiveRefused
        asked = await self._embedder.statement(unframed(fact.content))
        candidates = await self._store.retrieve(
            SearchRequest(
                user_id,
                asked,
                limit=POLICY.candidates,
                threshold=POLICY.related,
                project_id=project_id,
            )
        )
        digest = content_hash(fact.content)
        for candidate in candidates:
            if content_hash(candidate.memory.content) == digest:
                current = await self._store.get(user_id, candidate.memory.id)
                if current is not None:
                    return Written.DEDUPED, current
        revision, _ = await self._place(
            user_id, project_id, fact.content, candidates, reword=True, use_judge=False
        )
        if revision is not None:
            revised = await self._revise(revision, vector, fact, at_ms)
            if revised is not None:
                await self._overrule(user_id, project_id, [(revised, asked)])
                return Written.UPDATED, revised
        memory = self._new(user_id, project_id, fact, at_ms, source)
        await self._store.store(memory, vector)
        await self._overrule(user_id, project_id, [(memory, asked)])
        await retention.enforce_cap(self._store, user_id, self._max_per_user)
        return Written.STORED, memory

    async def confirm(self, user_id: str, memory_id: str) -> Memory | None:
        """A memory held for review, confirmed by its user: current, stated, and checked
        against what is held as a new memory is (``_overrule``). None: no such held memory."""
        held = await self._store.get(user_id, memory_id)
        if held is None or not is_held(held, now_ms()):
            return None
        current = dataclasses.replace(
            held,
            superseded_by="",
            expires_at=retention.expires_at(self._ttl_ms),
            meta={**held.meta, "confidence": Confidence.STATED.value, "confirmed_at": now_ms()},
        )
        if not await self._store.amend(current):
            return None
        asked = await self._embedder.statement(unframed(current.content))
        await self._overrule(user_id, current.project_id, [(current, asked)])
        return current

    async def edit(
        self, user_id: str, memory_id: str, content: str | None, kind: MemoryType | None
    ) -> Memory | None:
        """An explicit edit (API, CLI): the memory as told, its old text kept as history; None
        when there is no such live memory (or it was forgotten meanwhile). It touches no other
        memory: whoever edits one by id manages them one by one."""
        current = await get_live(self._store, user_id, memory_id)
        if current is None:
            return None
        text = current.content if content is None else content
        edited = revised(current, text, now_ms(), kind)
        ok = await self._store.revise(edited, await self._embedder.memory(unframed(text)), "edited")
        return edited if ok else None

    async def _place(
        self,
        user_id: str,
        project_id: str,
        text: str,
        candidates: list[ScoredMemory],
        *,
        change_said: bool = False,
        reword: bool = False,
        use_judge: bool = True,
    ) -> tuple[Revision | None, Written]:
        """What a new statement does to the memories held: revise one, nothing, or be new."""
        decided = by_words(text, candidates, POLICY, change_said=change_said, reword=reword)
        if decided is not None:
            return decided.revision, Written.NOOP if decided.noop else Written.UPDATED
        said = statement(text)
        obj = ended_query(said)
        ended = await self._ended(user_id, project_id, obj, said) if obj else None
        if self._judge is not None and use_judge:
            if ended is not None and all(c.memory.id != ended.memory.id for c in candidates):
                candidates = [ended, *candidates]  # "sold their car" / "drives a Civic": 0.38
            return await self._ask(text, said, candidates, change_said or says_change(said))
        if ended is not None:
            return ending(ended, text, "ended by a newer memory"), Written.UPDATED
        return None, Written.STORED

    async def _ask(
        self, text: str, said: str, candidates: list[ScoredMemory], changes: bool
    ) -> tuple[Revision | None, Written]:
        assert self._judge is not None
        for candidate in POLICY.asked_about(said, candidates, changes):
            try:
                answer = await self._judge.complete(
                    judge_messages(statement(candidate.memory.content), said), schema=JUDGE_SCHEMA
                )
                still_true = parse_judgment(answer)
            except (LlmError, ExtractionParseError) as exc:
                reason = exc.reason if isinstance(exc, ExtractionParseError) else "llm_error"
                metrics.LLM_ANSWERS.labels(self._judge.role, reason).inc()
                log.warning("Judgment unusable, fact stored as new: %s", exc)
                return None, Written.STORED_UNRECONCILED
            metrics.LLM_ANSWERS.labels(self._judge.role, "clean").inc()
            if not still_true:
                # what words could not tell apart, the text says: what it replaced ("User is a
                # baker now (previously: User works as a carpenter)" still answers "What do I do
                # for a living?", which the new words alone did not: cosine 0.35)
                return ending(candidate, text, "judged no longer true"), Written.UPDATED
        return None, Written.STORED

    async def _cascade(
        self, user_id: str, project_id: str, text: str, revision: Revision, at_ms: int
    ) -> None:
        """A move that ended where the user lived ends their local life there too
        (memories/cascades.py): found by the place's name, marked as true until the move."""
        move = statement(text)
        home = revision.target.memory
        place = left_place(move, statement(home.content))
        if place is None:
            return
        beside = said_beside(statement(home.content), place)
        if beside is not None and (kept := saying(home.content, beside)) is not None:
            # a note holds the whole message: what it said beside the home stays current
            fact = Fact(note_kind(beside), kept)
            words = await self._embedder.memory(
                unframed(kept), by_e5=self._by_e5(user_id, fact.type)
            )
            (key,) = await self._keys([fact], [words])
            memory = dataclasses.replace(
                self._new(user_id, project_id, fact, at_ms, home.source), created_at=home.created_at
            )
            await self._store.store_many([(memory, key)])
        vector = await self._embedder.statement(place, in_language_of=move)
        hits = await self._store.retrieve(
            SearchRequest(user_id, vector, limit=POLICY.candidates, threshold=POLICY.cascade,
                          project_id=project_id)
        )  # fmt: skip
        for hit in hits:
            if hit.memory.id == revision.target.memory.id:
                continue
            if not ends_with_move(statement(hit.memory.content), place):
                continue
            ended = Fact(hit.memory.type, until_moved(hit.memory.content, move))
            words = await self._embedder.memory(
                unframed(ended.content), by_e5=self._by_e5(user_id, ended.type)
            )
            (key,) = await self._keys([ended], [words])
            revised = await self._revise(Revision(hit, ended.content, "ended by a move"), key,
                                         ended, at_ms)  # fmt: skip
            if revised is not None:
                metrics.MEMORIES_CASCADED.inc()
                _record_ended(revised.id)

    async def _copies_retired(self, revision: Revision, candidates: Sequence[ScoredMemory]) -> None:
        """A copy of what a change or a correction revised goes with it: the 1.5B model wrote
        one birthday twice in two wordings ("Der Mann Markus wird … 40 Jahre alt", "Der Mann des
        Nutzers, Markus, wird … 40"), and "Markus wird 41, nicht 40" revised the first alone,
        leaving 40 current. A copy restates the revised memory's old text and holds a value the
        revision replaced; its words live on in that memory's history."""
        before = statement(revision.target.memory.content)
        for copy in candidates:
            memory = copy.memory
            if memory.id == revision.target.memory.id:
                continue
            text = statement(memory.content)
            if changes.compare(text, before) is not Change.RESTATED:
                continue  # not a copy: another fact that happens to hold the same words
            if not (numbers(text) & numbers(before)) - numbers(revision.content):
                continue  # it holds no value the revision replaced
            if await self._store.forget(memory.user_id, memory.id):
                _record_ended(memory.id)
            log.debug("Memory: a copy of a revised memory retired")

    async def _homes(
        self, user_id: str, project_id: str, text: str, candidates: Sequence[ScoredMemory]
    ) -> list[ScoredMemory]:
        """Where the user lived, beside a move's candidates, found by what a home says."""
        said = statement(text)
        asked = home_asked(said)
        if asked is None:
            return []
        vector = await self._embedder.statement(asked, in_language_of=said)
        hits = await self._store.retrieve(
            SearchRequest(user_id, vector, limit=POLICY.candidates,
                          threshold=POLICY.related_when_switched, project_id=project_id)
        )  # fmt: skip
        seen = {c.memory.id for c in candidates}
        # for the word rules only: not near the statement, whatever the home query scored
        return [dataclasses.replace(h, score=0.0) for h in hits if h.memory.id not in seen]

    async def _ended(
        self, user_id: str, project_id: str, obj: str, said: str
    ) -> ScoredMemory | None:
        """The memory an ending statement ends, found by what it names."""
        vector = await self._embedder.statement(obj, in_language_of=said)
        hits = await self._store.retrieve(
            SearchRequest(
                user_id, vector, limit=3, threshold=POLICY.ended_object,
                project_id=project_id,
            )
        )  # fmt: skip
        return ended_target(hits, said, POLICY)

    def _new(self, user_id: str, project_id: str, fact: Fact, at_ms: int, source: str) -> Memory:
        """Expiry counts from when it was learned, not from the (maybe replayed) turn's date."""
        return Memory.new(
            user_id, fact.content, fact.type, project_id=project_id, source=source,
            created_at=at_ms, expires_at=retention.expires_at(self._ttl_ms),
            meta={"confidence": fact.confidence.value},
        )  # fmt: skip

    async def _revise(
        self,
        revision: Revision,
        vector: np.ndarray,
        fact: Fact,
        at_ms: int,
        *,
        wait_visible: bool = True,
    ) -> Memory | None:
        """The memory as the statement revises it: its text, the statement's type ("User is
        vegan now" keeps a preference one, "User eats fish again" ends it) and the statement's
        key (a text of its own, "… (previously: …)", keyed as the statement would be)."""
        target = revision.target.memory
        current = await self._store.get(target.user_id, target.id)
        if current is None:
            return None
        if revision.content != fact.content:
            # a correction is the old memory mended ("… sister Anna …"): the message it was said
            # in ("Oops, I meant Anna, not Anne") is about the mistake, not the memory
            context = "" if revision.reason == Change.CORRECTED.value else fact.context
            kept = dataclasses.replace(fact, content=revision.content, context=context)
            by_e5 = self._by_e5(target.user_id, kept.type)
            words = await self._embedder.memory(unframed(revision.content), by_e5=by_e5)
            (vector,) = await self._keys([kept], [words])
        new = revised(current, revision.content, max(at_ms, current.updated_at), fact.type)
        ok = await self._store.revise(new, vector, revision.reason, wait_visible=wait_visible)
        return new if ok else None
