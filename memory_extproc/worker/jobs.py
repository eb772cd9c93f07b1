"""The worker's jobs: batches become memories, used memories are renewed, expired ones pruned.

Runs in the worker process (main.py) with its own Milvus client, embedder and LLM client.
Failures (LLM down, slow, garbage; Milvus down) end one job, are logged and counted, and store
nothing half-made: the processor offers the batch again later.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import compress

from memory_extproc import metrics, tracing
from memory_extproc.clock import day, now_ms
from memory_extproc.compression.state import Chunk, chunk, word_ids
from memory_extproc.config import RetentionConfig
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.handoff import Batch
from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import ChatClient, LlmError
from memory_extproc.memories import retention
from memory_extproc.memories.attribution import given_back, in_third_person, own_clause
from memory_extproc.memories.changes import (
    given_away,
    kept_wrong,
    read_before,
    says_change,
    says_switch,
)
from memory_extproc.memories.confidence import of_fact
from memory_extproc.memories.facts import Fact, FactLimits, parse_facts, parse_requests, said_in
from memory_extproc.memories.grounding import chooses, picked, ungrounded
from memory_extproc.memories.model_json import ExtractionParseError
from memory_extproc.memories.names import names_dropped
from memory_extproc.memories.preferences import requests_implied
from memory_extproc.memories.redaction import RedactionPolicy, for_memory, redact
from memory_extproc.memories.relative_dates import dated
from memory_extproc.memories.retention import UsageBatch
from memory_extproc.memories.writer import MemoryWriter, Written, ended_recorded
from memory_extproc.receipts import Learned
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import MemoryType, StoreUnavailableError, content_hash
from memory_extproc.tracing import linked, traced
from memory_extproc.words import terms
from memory_extproc.worker import conversation_state
from memory_extproc.worker.echo import statements, strip_echoes
from memory_extproc.worker.pool import WorkerPool
from memory_extproc.worker.prompts import (
    MESSAGES_PER_CALL,
    extraction_messages,
    facts_schema,
    known_for,
    requests_messages,
    requests_schema,
    transcript,
    windows,
)
from memory_extproc.worker.turn_notes import preferences_missed, turn_notes

log = logging.getLogger(__name__)
_COPIED = ("rejected_stale_value", "rejected_echo", "rejected_ungrounded")  # of known facts


class LearningJobs:
    """The pool and everything it runs."""

    def __init__(
        self,
        *,
        pool: WorkerPool,
        writer: MemoryWriter,
        store: MilvusStore | None,  # started and closed here; None in tests that bring their own
        extractor: ChatClient | None,
        limits: FactLimits,
        retention: RetentionConfig | None = None,
        redaction: RedactionPolicy | None = None,
        embedder: Embeddings | None = None,  # the new messages' vectors, for compression
        state_words: int = 0,  # a conversation's running state, for compression (0: none)
    ) -> None:
        self._embedder = embedder
        self._state_words = state_words
        self._pool = pool
        self._writer = writer
        self._store = store
        self._extractor = extractor
        self._limits = limits
        self._retention = retention or RetentionConfig()
        self._redaction = redaction or RedactionPolicy()
        self._pruner: asyncio.Task[None] | None = None

    @property
    def mode(self) -> str:
        return "llm" if self._extractor is not None else "notes"

    async def start(self) -> None:
        if self._store is not None:
            await self._store.start()
            if self._retention.ttl_ms:
                self._pruner = asyncio.get_running_loop().create_task(
                    retention.prune(self._store, self._retention.prune_interval_seconds)
                )
        self._pool.start()

    def forget_cached_texts(self) -> None:
        self._writer.forget_cached_texts()

    def submit(self, batch: Batch, done: Callable[[str, Learned | None], None]) -> bool:
        """False when the pool is full: the batch waits (it is kept in the processor).
        ``done(entry, learned)`` when it ran; None: it failed, and is offered again later."""
        learned: list[Learned] = []

        async def job() -> bool:
            result = await self.run(batch)
            learned.extend([result] if result is not None else [])
            return result is not None

        return self._pool.submit(
            batch.user_id, job, name=f"{self.mode}:{batch.reason}",
            on_done=lambda failed: done(batch.entry, None if failed else learned[0]),
        )  # fmt: skip

    async def room(self, timeout_s: float) -> None:
        await self._pool.room(timeout_s)

    def record_use(self, batch: UsageBatch) -> None:
        self._pool.submit("usage", lambda: self._renew(batch), name="usage")

    async def _renew(self, batch: UsageBatch) -> None:
        if self._store is not None:
            await retention.renew(self._store, batch, self._retention.ttl_ms)

    async def stop(self, grace_s: float) -> None:
        if self._pruner is not None:
            self._pruner.cancel()
        await self._pool.drain(grace_s)
        if self._extractor is not None:
            await self._extractor.close()
        if self._store is not None:
            await self._store.close()

    async def run(self, batch: Batch) -> Learned | None:
        """What was learned; None when it failed (the model or Milvus down, slow or talking
        garbage), to be tried again later: nothing half-made is stored either way."""
        with traced("memory.learning", links=linked(batch.traceparent)) as span:
            span.set_attribute("memory.learning.reason", batch.reason)
            span.set_attribute("memory.learning.turns", batch.new_turns)
            learned = await self._run(batch)
            span.set_attribute("memory.learning.ok", learned is not None)
        return learned

    async def _run(self, batch: Batch) -> Learned | None:
        try:
            learned = await self._learn(batch)
        except LlmError as exc:
            metrics.EXTRACTION_JOBS.labels("llm_error").inc()
            log.warning("Extraction failed: %s", exc)
            return None
        except ExtractionParseError as exc:
            metrics.EXTRACTION_JOBS.labels("parse_error").inc()
            log.warning("Extraction answer unusable: %s", exc)
            return None
        except StoreUnavailableError as exc:
            metrics.EXTRACTION_JOBS.labels("store_error").inc()
            log.warning("Memory store failed during extraction: %s", type(exc.__cause__).__name__)
            return None
        metrics.EXTRACTION_JOBS.labels("ok").inc()
        outcomes = dict(learned.outcomes)
        for outcome, count in outcomes.items():
            metrics.EXTRACTION_FACTS.labels(outcome).inc(count)
        log.info(
            "Memory: extraction done",
            extra={"mode": self.mode, "reason": batch.reason, "turns": batch.new_turns, **outcomes},
        )
        return learned

    async def _learn(self, batch: Batch) -> Learned:
        """What the user asked to forget is not learned: turns said before a forget of their
        scope are dropped before the model sees them (a cheap read: a forget of the last
        moment is caught after writing), and what was written from turns a forget covers is
        taken back. The forget is recorded before it deletes, so a fresh read after the
        writes sees it, or its delete comes after them."""
        user, project = batch.user_id, batch.project_id
        live = batch.after(await self._writer.forgotten_at(user, project))
        if live is None:
            metrics.TURNS_FORGOTTEN.labels("job").inc(batch.new_turns)
            return Learned(outcomes=(("skipped_forgotten", batch.new_turns),))
        if live.new_turns < batch.new_turns:
            metrics.TURNS_FORGOTTEN.labels("job").inc(batch.new_turns - live.new_turns)
        whole = live == batch  # no turn of it forgotten: its messages line up for compression
        live = self._redacted(live)
        said = [t.text for t in live.messages if t.role == "user"]
        if read := await self._writer.heard(user, said):
            log.info("Memory: memories read again by e5", extra={"memories": read})
        if retired := await self._writer.overrule_held(user):
            log.info("Memory: held memories overruled by newer ones", extra={"memories": retired})
        with ended_recorded() as ended:
            if self._extractor is None:
                outcomes, written = await self._notes(live)
            else:
                outcomes, written = await self._extract(live, self._extractor)
        ids = [memory_id for _, memory_id in written if memory_id]
        # one Strong round: what was written visible to every reader, and the forget records as
        # of now (written before a forget deletes anything)
        forgotten_at = await self._writer.settled(user, project) if ids else 0
        if ids and live.after(forgotten_at) != live:
            await self._writer.take_back(user, ids)
            metrics.TURNS_FORGOTTEN.labels("written").inc(live.new_turns)
            return Learned(outcomes=(("taken_back_forgotten", len(ids)),))
        outcomes.update(w.value for w, _ in written)
        learned_ms = now_ms()
        for received in live.received:
            if received:
                metrics.LEARNING_LAG.observe(max(0, learned_ms - received) / 1000)
        return Learned(
            chunk=await self._chunk(live, await self._summary(live)) if whole else None,
            added=tuple(i for w, i in written if i and w not in (Written.UPDATED, Written.PENDING)),
            held=tuple(i for w, i in written if i and w is Written.PENDING),
            updated=tuple(dict.fromkeys(i for w, i in written if i and w is Written.UPDATED)),
            ended=tuple(dict.fromkeys(ended)),
            outcomes=tuple(sorted(outcomes.items())),
        )

    async def _summary(self, batch: Batch) -> str:
        """The conversation's running state after these turns, for one that asked for
        compression: "" when none is kept, or the model failed (the next batch tries again from
        the state before)."""
        model = self._extractor
        if not (batch.summarize and self._state_words and model and batch.conversation):
            return ""
        fresh = [t for t in batch.messages if t.text.strip()][-batch.fresh :]
        prompt = conversation_state.messages(batch.summary, fresh, day(batch.at_ms),
                                             self._state_words)  # fmt: skip
        try:
            answer = await model.complete(prompt, schema=conversation_state.schema())
            state = conversation_state.parse(answer)
        except (LlmError, ExtractionParseError) as exc:
            metrics.CONVERSATION_STATES.labels("failed").inc()
            log.warning("Conversation state not updated: %s", type(exc).__name__)
            return ""
        metrics.CONVERSATION_STATES.labels("written").inc()
        return state.text(self._state_words)

    async def _chunk(self, batch: Batch, summary: str = "") -> Chunk | None:
        """The new messages' vectors (compression/state.py): each read once, here, so a
        compressed request scores them without embedding any. As memories are read, but for
        English, by MiniLM alone (what an English question reads)."""
        if self._embedder is None or not batch.conversation or not batch.fresh:
            return None
        texts = [t.text for t in batch.messages if t.text.strip()][-batch.fresh :]
        first = batch.size - len(texts)
        if first < 0:
            return None  # counted differently
        embedder = self._embedder
        vectors = await asyncio.gather(*(embedder.memory(t, by_e5=False) for t in texts))
        words = [word_ids(terms(t)) for t in texts]
        return chunk(first, batch.at_ms, list(vectors), words, batch.tail, summary)

    def _redacted(self, batch: Batch) -> Batch:
        """The batch as the model, the notes and the store may see it: every message, the
        user's and the assistant's (an answer may repeat a secret), with its secrets and
        personal data masked or dropped (memories/redaction.py). Counted for the new turns and
        the answers after them only: the context was counted when it was new."""
        users = [at for at, t in enumerate(batch.messages) if t.role == "user"]
        first_new = (
            users[max(0, len(users) - batch.new_turns)]
            if users and batch.new_turns
            else len(batch.messages)
        )
        messages, found = [], Counter[str]()
        for at, turn in enumerate(batch.messages):
            redaction = redact(turn.text, self._redaction)
            messages.append(Turn(turn.role, redaction.text))
            if at >= first_new:
                found += redaction.found
        for kind, count in found.items():
            metrics.REDACTIONS.labels(kind, "turn").inc(count)
        return dataclasses.replace(batch, messages=tuple(messages)) if found else batch

    def _screened(self, facts: list[Fact], outcomes: Counter[str]) -> list[Fact | None]:
        """Each fact as it may be stored, or None: one holding a secret or a secret's marker
        (the model wrote "User's card number is [redacted card]") is refused."""
        screened: list[Fact | None] = []
        for fact in facts:
            memory = for_memory(fact.content, self._redaction)
            for kind, count in memory.found.items():
                metrics.REDACTIONS.labels(kind, "fact").inc(count)
            if memory.refused:
                outcomes["rejected_secret"] += 1
                screened.append(None)
            else:
                screened.append(dataclasses.replace(fact, content=memory.text))
        return screened

    async def _extract(
        self, batch: Batch, extractor: ChatClient
    ) -> tuple[Counter[str], list[tuple[Written, str]]]:
        """Facts from the new user messages, a few per call (prompts.windows), with the
        assistant's words before and between them as context: messages without their
        questions, answers without what they echoed from memory. Told what memory already
        holds; checked against the words it was shown before anything is written
        (grounding.ungrounded). Whether a fact says something changed is read from its own
        window's words, not the whole batch's."""
        turns = [
            Turn(t.role, strip_echoes(t.text, batch.recalled))
            if t.role == "assistant"
            else Turn(t.role, statements(t.text))
            for t in batch.messages
        ]
        new = [t for t in turns if t.role == "user"][-batch.new_turns :] if batch.new_turns else []
        outcomes: Counter[str] = Counter()
        outcomes["skipped_request_only"] += sum(1 for t in new if not t.text)  # no call for them
        facts: list[Fact] = []
        changes: list[bool] = []
        switches: list[bool] = []
        failed: ExtractionParseError | None = None
        asked = failures = 0
        for window in windows(turns, batch.new_turns, MESSAGES_PER_CALL):
            asked += 1
            stated = " ".join(t.text for t in window if t.role == "user")
            try:
                switched = await self._writer.switched_from(batch.user_id, batch.project_id, stated)
                shown = list(dict.fromkeys((*known_for(batch.recalled, transcript(window)),
                                            *switched)))  # fmt: skip
                found, said = await self._facts(extractor, batch, window, shown, shown)
                if shown and (
                    any(r in said for r in _COPIED) or names_dropped(stated, found, shown)
                ):
                    # A small model told what is known tends to copy it in place of what was
                    # said ("User's aunt helped their family" for "my grandma passed away"),
                    # or to write only what changed a known fact and drop the rest: asked once
                    # more without them, it has nothing to copy. What it kept the first time
                    # stays (the writer keeps one of a fact said twice).
                    said["retried_without_known"] += 1
                    more, again = await self._facts(extractor, batch, window, (), shown)
                    first = [f.content for f in found]
                    kept = [f for f in more if not read_before(f.content, first)]
                    again["rejected_read_before"] += len(more) - len(kept)
                    found += kept
                    said.update(again)
            except ExtractionParseError as exc:
                failed, failures = exc, failures + 1
                outcomes[f"answer_{exc.reason}"] += 1
                continue
            outcomes.update(said)
            facts.extend(found)
            changes += [says_change(stated)] * len(found)
            switches += [says_switch(stated)] * len(found)
        if failed is not None and failures == asked:
            raise failed  # not one usable answer: the job failed
        said_on = day(batch.at_ms)
        for at, turn in enumerate(new):
            if any(says_change(later.text) for later in new[at + 1 :]):
                continue  # "I'm vegetarian." then "Actually I'm vegan now.": the model's to tell
            missed = preferences_missed(turn.text, facts, said_on)
            outcomes["noted_missed_preference"] += len(missed)
            facts.extend(missed)
            changes += [says_change(turn.text)] * len(missed)
            switches += [says_switch(turn.text)] * len(missed)
        screened = self._screened(facts, outcomes)
        passed = [fact is not None for fact in screened]
        facts = [fact for fact in screened if fact is not None]
        changes, switches = list(compress(changes, passed)), list(compress(switches, passed))
        held = await self._writer.held(batch.user_id, [f.content for f in facts])
        facts = list(
            await asyncio.gather(
                *(self._with_requests(extractor, f, outcomes, held) for f in facts)
            )
        )
        # reconcile, then store: each fact added, merged into what it updates, or dropped
        with traced(tracing.UPSERT_MEMORY) as span:
            written = await self._writer.write_batch(
                batch.user_id, batch.project_id, facts, batch.at_ms, source="conversation",
                changes=changes, switches=switches, wait_visible=False,
            )  # fmt: skip
            span.set_attribute(tracing.OPERATION, tracing.UPSERT_MEMORY)
            span.set_attribute(tracing.RECORD_COUNT, len(facts))
        outcomes -= Counter()  # drop zero counts
        return outcomes, written

    async def _with_requests(
        self, extractor: ChatClient, fact: Fact, outcomes: Counter[str], held: set[str]
    ) -> Fact:
        """A new preference with the kinds of request it bears on, written by the model (a short
        call): "Plan my weekend near Denver" never names a fear of heights (cosine 0.11), but
        "outdoor activities, hiking, travel plans" do. One already held is not asked about; one
        the model cannot list for (garbage, or down) is kept as it is, and one whose subject
        implies its kinds (a diet, a food allergy) needs no call."""
        if (
            fact.type is not MemoryType.PREFERENCE
            or content_hash(fact.content) in held
            or requests_implied(fact.content)
        ):
            return fact
        try:
            with traced("memory.requests"):
                answer = await extractor.complete(
                    requests_messages(fact.content), schema=requests_schema()
                )
            kinds = parse_requests(answer)
        except (LlmError, ExtractionParseError) as exc:
            reason = exc.reason if isinstance(exc, ExtractionParseError) else "llm_error"
            metrics.LLM_ANSWERS.labels(extractor.role, reason).inc()
            outcomes["requests_unusable"] += 1
            return fact
        metrics.LLM_ANSWERS.labels(extractor.role, "clean").inc()
        return dataclasses.replace(fact, requests=kinds)

    async def _facts(
        self,
        extractor: ChatClient,
        batch: Batch,
        turns: Sequence[Turn],
        shown: Sequence[str],
        known: Sequence[str],
    ) -> tuple[list[Fact], Counter[str]]:
        """The model's facts that come from the words it was shown (``shown``: the known facts
        it may change; ``known``: those of the window, shown or not), and what was refused."""
        heard = "\n".join(t.text for t in turns if t.role == "user")
        others = "\n".join(t.text for t in turns if t.role != "user")
        earlier = "\n".join(t.text for t in batch.messages if t.role == "user")
        lines = transcript(turns)
        conversation = "\n".join(t.text for t in batch.messages)
        with traced("memory.extraction"):
            answer = await extractor.complete(
                extraction_messages(shown, lines, day(batch.at_ms), context=conversation),
                schema=facts_schema(self._limits.max_facts, self._limits.max_chars),
            )
        try:
            parsed = parse_facts(answer, self._limits)
        except ExtractionParseError as exc:
            metrics.LLM_ANSWERS.labels(extractor.role, exc.reason).inc()
            raise
        for repair in parsed.repairs or ("clean",):
            metrics.LLM_ANSWERS.labels(extractor.role, repair).inc()
        outcomes: Counter[str] = Counter({f"rejected_{r}": n for r, n in parsed.rejected.items()})
        facts = []
        said_on = day(batch.at_ms)
        for fact in parsed.facts:
            right = kept_wrong(fact.content, heard)  # "not 結衣: 由衣"
            right = right or given_away(fact.content, heard, known)  # Markus's 41 as the user's
            if right is not None:
                fact = dataclasses.replace(fact, content=right)
                outcomes["corrected_as_said"] += 1
            mended = given_back(fact.content, heard, known)
            if mended is not None:  # "用户的妹妹安娜的预算" for the user's own, known budget
                fact = dataclasses.replace(fact, content=mended)
                outcomes["given_back_to_user"] += 1
            elif (own := own_clause(fact.content, heard)) is not None:  # "用户的车每天…游泳"
                fact = dataclasses.replace(fact, content=own)
                outcomes["given_back_to_user"] += 1
            reason = ungrounded(fact.content, heard, shown, others)
            if reason is None:
                content = in_third_person(dated(fact.content, heard, said_on))
                fact = picked(fact) if chooses(heard) else fact
                sure = of_fact(content, fact.type, heard, others, earlier=earlier)
                fact = dataclasses.replace(fact, content=content, confidence=sure)
                facts.append(said_in(fact, heard))
            else:
                outcomes[f"rejected_{reason}"] += 1
        return facts, outcomes

    async def _notes(self, batch: Batch) -> tuple[Counter[str], list[tuple[Written, str]]]:
        question, answer = batch.last_exchange
        notes = turn_notes(question, answer, day(batch.at_ms), batch.recalled)
        if not notes:
            return Counter({"skipped_not_substantive": 1}), []
        outcomes: Counter[str] = Counter()
        notes = [note for note in self._screened(notes, outcomes) if note is not None]
        if not notes:
            return outcomes, []
        # a note is one sentence: the change may be said in another ("あっ、間違えました。健太は
        # 41歳になるんです。"), as the model path reads the whole message
        written = await self._writer.write_batch(
            batch.user_id,
            batch.project_id,
            notes,
            batch.at_ms,
            source="conversation",
            changes=[says_change(question)] * len(notes),
            wait_visible=False,
        )
        return outcomes, written
