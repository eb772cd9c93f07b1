"""What a learning job asks the extraction model, and how often."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import orjson
import pytest

from memory_extproc.embedding import OnnxEmbedder
from memory_extproc.embedding import model as english_model
from memory_extproc.embedding.spaces import Embeddings, english_query, is_carried, score
from memory_extproc.handoff import Batch
from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import JsonSchema, LlmError
from memory_extproc.memories.facts import Fact, FactLimits
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Memory, MemoryType
from memory_extproc.words import in_memory_voice
from memory_extproc.worker.jobs import LearningJobs
from memory_extproc.worker.pool import WorkerPool
from memory_extproc.worker.prompts import REQUESTS_SYSTEM

T0 = 1_700_000_000_000
KNOWN = ("User's budget for the Hawaii trip is $10,000",)


class CopyingModel:
    """Shown the known fact, answers ``shown`` (the known fact alone by default: a copy), else
    with what it was told to say."""

    role = "memory_extraction"

    def __init__(self, *otherwise: str, shown: tuple[str, ...] = KNOWN) -> None:
        self.otherwise = otherwise
        self.shown = shown
        self.prompts: list[str] = []

    async def complete(
        self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
    ) -> str:
        said = messages[-1]["content"]
        self.prompts.append(said)
        facts = self.shown if KNOWN[0] in said else self.otherwise
        return orjson.dumps({"facts": list(facts)}).decode()

    async def close(self) -> None:
        return None


def jobs_on(store: InMemoryStore, embeddings: Embeddings, model: object) -> LearningJobs:
    """The worker's jobs on an in-memory store; ``model`` None: notes."""
    return LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(store, embeddings, None),
        store=None,
        extractor=model,  # type: ignore[arg-type]
        limits=FactLimits(),
    )


async def learn(embeddings: Embeddings, model: CopyingModel, said: str) -> InMemoryStore:
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, model)
    turns = (Turn("user", said), Turn("assistant", "Noted."))
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle", recalled=KNOWN))
    return store


async def test_a_copied_known_fact_is_asked_again_without_the_known_facts(
    embeddings: Embeddings,
) -> None:
    model = CopyingModel("User's budget for the Hawaii trip is $15,000")
    store = await learn(embeddings, model, "Actually, my Hawaii budget is now $15,000.")
    assert len(model.prompts) == 2
    assert KNOWN[0] in model.prompts[0]
    assert KNOWN[0] not in model.prompts[1]
    assert [m.content for m in await store.list("alice")] == list(model.otherwise)


BUDGET = "User's budget for the Hawaii trip is $15,000"
GRANDMA = "User's grandma passed away last week"


async def test_a_fact_dropped_beside_a_copied_one_is_asked_for_again(
    embeddings: Embeddings,
) -> None:
    # the local model dropped "Last week, my grandma passed away" beside a copy of what it knew
    model = CopyingModel(BUDGET, GRANDMA, shown=(KNOWN[0], BUDGET))
    said = "Actually, my Hawaii budget is now $15,000. Last week my grandma passed away."
    store = await learn(embeddings, model, said)
    assert len(model.prompts) == 2
    assert KNOWN[0] in model.prompts[0]
    assert KNOWN[0] not in model.prompts[1]
    held = sorted(m.content for m in await store.list("alice"))
    assert held[0] == BUDGET
    assert held[1].startswith("User's grandma passed away")  # its date resolved: "the week before…"
    assert len(held) == 2


async def test_asked_again_a_reading_that_contradicts_the_first_is_not_kept(
    embeddings: Embeddings,
) -> None:
    """The 1.5B model copied the known nurse beside "User teaches at a primary school"; asked
    again without it, it wrote "User quit teaching at a primary school"."""
    nurse, teaches = "User works as a nurse at a hospital", "User teaches at a primary school"

    class Rereading(CopyingModel):
        async def complete(
            self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
        ) -> str:
            said = messages[-1]["content"]
            self.prompts.append(said)
            facts = (
                [nurse, teaches] if nurse in said else ["User quit teaching at a primary school"]
            )
            return orjson.dumps({"facts": facts}).decode()

    store = InMemoryStore()
    held = Fact(MemoryType.SEMANTIC, nurse)
    await MemoryWriter(store, embeddings, None).write("alice", "", held, T0 - 1, source="c")
    jobs = jobs_on(store, embeddings, model := Rereading())
    turns = (Turn("user", "I quit last month, and now I teach at a primary school."),
             Turn("assistant", "Congratulations!"))  # fmt: skip
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle"))
    assert len(model.prompts) == 2  # the copy was asked about again
    assert not [m for m in await store.list("alice") if "quit teaching" in m.content]


async def test_without_known_facts_shown_an_unusable_answer_is_not_asked_again(
    embeddings: Embeddings,
) -> None:
    model = CopyingModel("User enjoys skiing in the Alps")  # not what was said
    store = await learn(embeddings, model, "My sister Anna lives in Oslo.")
    assert len(model.prompts) == 1  # nothing was shown, so nothing was copied
    assert await store.list("alice") == []


class PreferenceModel:
    """States one preference, and lists the requests it bears on when asked."""

    role = "memory_extraction"

    def __init__(self, requests: str, facts: tuple[str, ...] = ()) -> None:
        self.requests = requests
        self.facts = facts or (HEIGHTS, "User's sister Ana lives in Denver")
        self.asked: list[str] = []

    async def complete(
        self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
    ) -> str:
        if messages[0]["content"] == REQUESTS_SYSTEM:
            self.asked.append(messages[-1]["content"])
            if isinstance(self.requests, Exception):
                raise self.requests
            return self.requests
        return orjson.dumps({"facts": list(self.facts)}).decode()

    async def close(self) -> None:
        return None


HEIGHTS = "User has a fear of heights and avoids high places"
TRIP = "What outdoor activities would you recommend for my weekend near Denver?"


async def test_a_fact_is_stored_toward_the_message_it_was_said_in(
    stored_vector: Callable[[str], np.ndarray], embeddings: Embeddings
) -> None:
    """The model's words leave out what the user's question names (a swirl of what?): the
    fact's key leans toward the message it came from, and the question finds it better."""
    said = "I made my friend some ice cream for her birthday, a chocolate and vanilla swirl."
    fact = "User made a chocolate and vanilla swirl for a friend's birthday"
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, CopyingModel(fact))
    turns = (Turn("user", said), Turn("assistant", "Love it!"))
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle"))
    (vector,) = [v for m, v in store._rows.values() if m.content == fact]
    question = await embeddings.query("What flavor of ice cream did I make?")
    assert score(question, vector) > score(question, stored_vector(fact)) + 0.05


async def test_a_fact_said_after_a_pasted_text_does_not_lean_toward_it(
    stored_vector: Callable[[str], np.ndarray], embeddings: Embeddings
) -> None:
    """A long message is mostly what was pasted into it: a fact said after a report is stored
    under its own words, not leaning toward the report."""
    fact = "User's daughter Mia turned 5 yesterday"
    said = "By the way, my daughter Mia turned 5 yesterday."
    report = " ".join(
        f"The committee reviewed the quarterly figures for region {i} and asked for a revised "
        "forecast of shipping costs."
        for i in range(30)
    )
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, CopyingModel(fact))
    turns = (Turn("user", f"Here is the report: {report} {said}"), Turn("assistant", "Noted."))
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle"))
    ((memory, vector),) = store._rows.values()
    english = english_model.DIMENSION  # what an English question reads
    assert np.allclose(vector[:english], stored_vector(memory.content)[:english], atol=1e-5)


async def test_a_preference_is_stored_under_the_requests_it_bears_on(
    embeddings: Embeddings, embedder: OnnxEmbedder
) -> None:
    kinds = ["outdoor activities", "hiking trips", "travel plans", "climbing", "sightseeing"]
    model = PreferenceModel(orjson.dumps({"requests": kinds}).decode())
    store = await learn(
        embeddings, model, "I have a fear of heights. My sister Ana lives in Denver."
    )
    assert model.asked == [HEIGHTS]  # the preference only: a fact about Ana bears on no request
    (vector,) = [v for m, v in store._rows.values() if m.content == HEIGHTS]
    trip = embedder.embed([in_memory_voice(TRIP)])[0]
    alone = float(embedder.embed([HEIGHTS])[0] @ trip)
    assert alone < 0.15  # the request names nothing of it
    assert score(english_query(trip), vector) > alone + 0.15  # its key leans toward its requests


async def test_a_preference_the_model_lists_nothing_usable_for_is_kept_as_it_is(
    stored_vector: Callable[[str], np.ndarray], embeddings: Embeddings
) -> None:
    store = await learn(embeddings, PreferenceModel("no idea"), "I have a fear of heights.")
    (vector,) = [v for m, v in store._rows.values() if m.content == HEIGHTS]
    assert np.allclose(vector, stored_vector(HEIGHTS), atol=1e-5)


async def test_a_food_constraint_is_stored_toward_what_eating_shapes_without_asking(
    embeddings: Embeddings, embedder: OnnxEmbedder
) -> None:
    """A small model's kinds for a diet ("kosher travel", "kosher clothing") drew it away from
    "top dining spots in Chicago"; the food kinds alone reach it, and cost no call."""
    kosher = "User strictly follows a Kosher diet"
    kinds = ["kosher recipes", "kosher travel", "kosher clothing", "kosher dining experiences"]
    model = PreferenceModel(orjson.dumps({"requests": kinds}).decode(), facts=(kosher,))
    store = await learn(embeddings, model, "I strictly follow a Kosher diet.")
    assert model.asked == []
    ((vector, content),) = [(v, m.content) for m, v in store._rows.values()]
    assert content == kosher
    dining = embedder.embed([in_memory_voice("What are some top dining spots in Chicago?")])[0]
    assert score(english_query(dining), vector) > float(embedder.embed([kosher])[0] @ dining) + 0.15


async def test_the_requests_call_failing_or_a_held_preference_asks_nothing_more(
    embeddings: Embeddings,
) -> None:
    down = PreferenceModel("")
    down.requests = LlmError("down", transient=True)  # type: ignore[assignment]
    store = await learn(embeddings, down, "I have a fear of heights.")
    assert HEIGHTS in [m.content for m in await store.list("alice")]  # kept without its kinds
    model = PreferenceModel('{"requests": ["hiking trips"]}')
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(store, embeddings, None),
        store=None,
        extractor=model,  # type: ignore[arg-type]
        limits=FactLimits(),
    )
    turns = (Turn("user", "As I said, I have a fear of heights."), Turn("assistant", "Noted."))
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle"))
    assert model.asked == []  # the same preference, held already: no call for its kinds


async def test_a_preference_the_model_folded_into_another_fact_is_kept_as_said(
    embeddings: Embeddings,
) -> None:
    """The user's own sentence, noted as a preference and stored under its requests."""
    folded = "User is considering upgrading their phone to eco-friendly tech"
    model = PreferenceModel('{"requests": ["phones", "headphones"]}', facts=(folded,))
    said = (
        "I'm thinking about a new phone. I usually prefer eco-friendly tech that's built with "
        "recyclable materials. Any recommendations?"
    )
    store = await learn(embeddings, model, said)
    held = {m.content: m.type for m in await store.list("alice")}
    note = (
        "On 2023-11-14 the user said: \"I usually prefer eco-friendly tech that's built with "
        'recyclable materials."'
    )
    assert held == {folded: MemoryType.SEMANTIC, note: MemoryType.PREFERENCE}
    assert model.asked == [note]
    model = PreferenceModel("{}", facts=("User prefers eco-friendly tech of recyclable materials",))
    store = await learn(embeddings, model, said)  # kept by the model: no note
    assert [m.type for m in await store.list("alice")] == [MemoryType.PREFERENCE]


async def test_a_preference_changed_later_in_the_same_batch_is_not_noted(
    embeddings: Embeddings,
) -> None:
    store = InMemoryStore()
    model = PreferenceModel("{}", facts=("User is vegan",))
    turns = (
        Turn("user", "I'm vegetarian."), Turn("assistant", "Noted."),
        Turn("user", "Actually I'm vegan now."), Turn("assistant", "Noted."),
    )  # fmt: skip
    assert await jobs_on(store, embeddings, model).run(Batch("alice", "", turns, 2, T0, "idle"))
    assert [m.content for m in await store.list("alice")] == ["User is vegan"]


async def test_what_a_pick_among_the_options_taught_is_a_preference(embeddings: Embeddings) -> None:
    """However the model words it: the pick shows what the user prefers."""
    fact = "User will go with the fresh fruit snacks"
    store = await learn(
        embeddings, CopyingModel(fact), "I'll go with the fresh fruit. The other options have nuts."
    )
    ((memory),) = await store.list("alice")
    assert (memory.content, memory.type) == (fact, MemoryType.PREFERENCE)
    said = await learn(embeddings, CopyingModel(fact), "I'll bring the fresh fruit snacks.")
    assert [m.type for m in await said.list("alice")] == [MemoryType.SEMANTIC]  # no pick


CARPENTER = "User works as a carpenter in Porto"


async def shown_for(embeddings: Embeddings, said: str) -> str:
    """The extraction prompt for ``said`` of a user who holds CARPENTER, nothing recalled."""
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    await writer.write_batch("alice", "", [Fact(MemoryType.SEMANTIC, CARPENTER)], T0, source="api")
    model = CopyingModel("User works as a baker")
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=writer,
        store=None,
        extractor=model,  # type: ignore[arg-type]
        limits=FactLimits(),
    )
    turns = (Turn("user", said), Turn("assistant", "Congratulations!"))
    assert await jobs.run(Batch("alice", "", turns, 1, T0 + 1, "idle"))
    return model.prompts[0]


async def test_a_switch_shows_the_extractor_what_it_may_replace(embeddings: Embeddings) -> None:
    """A statement recalls nothing, and "baker" shares no word with the carpenter: shown the old
    job, a small model writes the new one in its words, which the rules read as a change."""
    switched = "I switched careers this spring: I'm a baker now."
    assert CARPENTER in await shown_for(embeddings, switched)
    assert CARPENTER not in await shown_for(embeddings, "I bake bread every Sunday.")  # no switch


class ChangeOnlyModel(CopyingModel):
    """Shown a known fact, writes only its new value (the 1.5B model did), else everything."""

    async def complete(
        self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
    ) -> str:
        said = messages[-1]["content"]
        self.prompts.append(said)
        facts = ["User's budget for the Hawaii trip is $15,000"]
        if KNOWN[0] not in said:
            facts.append("User's cat is called Luna")
        return orjson.dumps({"facts": facts}).decode()


async def test_a_name_the_change_left_out_is_asked_for_again(embeddings: Embeddings) -> None:
    model = ChangeOnlyModel("")
    store = await learn(
        embeddings, model, "I got a cat, Luna, and my Hawaii budget is now $15,000."
    )
    assert len(model.prompts) == 2
    assert KNOWN[0] not in model.prompts[1]
    assert sorted(m.content for m in await store.list("alice")) == [
        "User's budget for the Hawaii trip is $15,000",
        "User's cat is called Luna",
    ]
    model = ChangeOnlyModel("")
    await learn(embeddings, model, "Actually, my Hawaii budget is now $15,000.")
    assert len(model.prompts) == 1  # nothing said was left out


async def test_a_value_given_to_someone_the_user_did_not_give_it_to_is_the_users(
    embeddings: Embeddings,
) -> None:
    # the 1.5B model's reading of "我妹妹安娜也跟我一起去，另外…预算现在是12000美元", in English
    answer = (
        "User's sister Anna is coming on the Hawaii trip",
        "User's sister Anna's budget for the Hawaii trip is $12,000",
    )
    said = "My sister Anna is coming with me, and the budget for the Hawaii trip is now $12,000."
    learned = [
        "User's budget for the Hawaii trip is $12,000",
        "User's sister Anna is coming on the Hawaii trip",
    ]
    model = CopyingModel(*answer, shown=answer)
    store = await learn(embeddings, model, said)
    assert len(model.prompts) == 1
    assert sorted(m.content for m in await store.list("alice")) == learned
    # …and when it first copied the known budget, in the answer it gave without it
    model = CopyingModel(*answer)
    store = await learn(embeddings, model, said)
    assert len(model.prompts) == 2
    assert sorted(m.content for m in await store.list("alice")) == learned


async def test_what_the_user_said_of_themselves_is_not_given_to_their_car(
    embeddings: Embeddings,
) -> None:
    # the 1.5B model's reading, through `make run`
    model = CopyingModel("用户的车是一辆红色的特斯拉", "用户的车每天早上六点去游泳")
    store = await learn(embeddings, model, "我的车是一辆红色的特斯拉，我每天早上六点去游泳。")
    assert sorted(m.content for m in await store.list("alice")) == [
        "用户每天早上六点去游泳",
        "用户的车是一辆红色的特斯拉",
    ]


async def test_a_chinese_fact_keeps_no_me_the_model_copied(embeddings: Embeddings) -> None:
    model = CopyingModel("用户的妹妹安娜也跟我一起去夏威夷旅行")
    store = await learn(embeddings, model, "我妹妹安娜也跟我一起去夏威夷。")
    assert [m.content for m in await store.list("alice")] == [
        "用户的妹妹安娜也跟用户一起去夏威夷旅行"
    ]


async def test_a_question_in_another_language_has_the_users_memories_read_by_e5(
    embeddings: Embeddings,
) -> None:
    """A question teaches nothing and no model is asked, but it says the user writes Chinese:
    their English memories, until then read by MiniLM alone, are read by e5 before the next
    question (memories/writer.py)."""
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, None)
    said = (Turn("user", "My sister Anna lives in Oslo."), Turn("assistant", "Noted."))
    assert await jobs.run(Batch("alice", "", said, 1, T0, "idle"))
    ((memory_id, (_, learned)),) = store._rows.items()
    asked = (Turn("user", "我姐姐住在哪里？"), Turn("assistant", "在奥斯陆。"))
    assert await jobs.run(Batch("alice", "", asked, 1, T0 + 1, "idle"))
    _, read = store._rows[memory_id]
    assert is_carried(learned)
    assert not is_carried(read)


async def test_a_job_first_settles_what_an_earlier_release_left_side_by_side(
    embeddings: Embeddings, stored_vector: Callable[[str], np.ndarray]
) -> None:
    store = InMemoryStore()
    for day, text in enumerate(["User lives in Denver", "User moved to Seattle"]):
        await store.store(Memory.new("alice", text, created_at=T0 + day), stored_vector(text))
    jobs = jobs_on(store, embeddings, None)
    asked = (Turn("user", "Any good hikes this weekend?"), Turn("assistant", "Try Rattlesnake."))
    assert await jobs.run(Batch("alice", "", asked, 1, T0 + 2, "idle"))
    assert [m.content for m in await store.list("alice")] == ["User moved to Seattle"]


async def test_the_other_speakers_life_is_not_learned_as_the_users(embeddings: Embeddings) -> None:
    # LoCoMo conv-41 through the 1.5B model: John's kickboxing, written as Maria's
    model = CopyingModel("User is doing kickboxing", "User volunteers at a homeless shelter")
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, model)
    turns = (
        Turn("assistant", "Woah, that sounds cool! I'm doing kickboxing and it gives me energy."),
        Turn("user", "Kickboxing is a great workout. I volunteer at a homeless shelter."),
    )
    assert await jobs.run(Batch("alice", "", turns, 1, T0, "idle"))
    assert [m.content for m in await store.list("alice")] == [
        "User volunteers at a homeless shelter"
    ]


async def test_a_note_is_read_with_the_change_its_message_said_elsewhere(
    embeddings: Embeddings,
) -> None:
    """Notes are one sentence each: "あっ、間違えました。" owns the mistake, and the next
    sentence's 41 corrects the 40 of the note before."""
    store = InMemoryStore()
    jobs = jobs_on(store, embeddings, None)
    for at, said in enumerate(
        ("夫の健太が来週40歳になります。", "あっ、間違えました。健太は41歳になるんです。")
    ):
        turns = (Turn("user", said), Turn("assistant", "了解です。"))
        assert await jobs.run(Batch("alice", "", turns, 1, T0 + at, "idle"))
    current = [m.content for m in await store.list("alice")]
    assert not [text for text in current if "40歳" in text and "41" not in text]
    assert [text for text in current if "41歳" in text]


@pytest.mark.parametrize(
    ("said", "written", "learned"),
    [
        # the 1.5B model, through `make scenarios` (ja #3) and the openai SDK
        ("すみません、変換ミスでした。娘の名前は結衣じゃなくて由衣です。",
         "ユーザーの娘の名前は結衣", "ユーザーの娘の名前は由衣"),
        ("Oops, my mistake: Lily is turning 8, not 7.",
         "User's daughter Lily is turning 7", "User's daughter Lily is turning 8"),
    ],
)  # fmt: skip
async def test_a_fact_that_kept_the_value_the_user_corrected_is_learned_as_corrected(
    embeddings: Embeddings, said: str, written: str, learned: str
) -> None:
    model = CopyingModel(written, shown=(written,))
    store = await learn(embeddings, model, said)
    assert [m.content for m in await store.list("alice")] == [learned]


async def test_a_batch_leaves_its_new_messages_read_for_compression(
    embeddings: Embeddings,
) -> None:
    """Read once, in the worker: a compressed request scores them without embedding any."""
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(InMemoryStore(), embeddings, None),
        store=None, extractor=None, limits=FactLimits(), embedder=embeddings,
    )  # fmt: skip
    turns = (
        Turn("user", "I adopted a cat."), Turn("assistant", "Lovely!"),  # context
        Turn("user", "We go hiking in the Alps every July."), Turn("assistant", "Nice."),
    )  # fmt: skip
    batch = Batch("alice", "", turns, 1, T0, "idle", conversation="c1", size=12, fresh=2, tail="t")
    learned = await jobs.run(batch)
    assert learned is not None
    assert learned.chunk is not None
    assert (learned.chunk.first, learned.chunk.end, learned.chunk.tail) == (10, 12, "t")
    hiking = await embeddings.query("Where do we hike in summer?")
    assert int(np.argmax(learned.chunk.vectors.astype(np.float32) @ hiking)) == 0
    unnamed = Batch("alice", "", turns, 1, T0, "idle")  # a batch of an older release
    assert (await jobs.run(unnamed)).chunk is None  # type: ignore[union-attr]


class StateModel:
    """Writes a conversation's running state; says nothing to an extraction prompt."""

    role = "memory_extraction"

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.states: list[str] = []

    async def complete(
        self, messages: list[dict[str, str]], *, schema: JsonSchema | None = None
    ) -> str:
        if schema is not None and schema.name == "conversation_state":
            self.states.append(messages[-1]["content"])
            return self.answer
        return orjson.dumps({"facts": []}).decode()

    async def close(self) -> None:
        return None


STATE = orjson.dumps({
    "about": "Planning a trip to Lisbon.", "decided": ["Fly on 3 June"], "open": ["Which hotel"],
    "specifics": ["Budget: 1,200 euros", "Travelling with Ana"],
}).decode()  # fmt: skip


async def test_a_conversation_that_asked_for_compression_gets_its_running_state(
    embeddings: Embeddings,
) -> None:
    """Built on the state before, from the new messages only, and shown in few lines."""
    model = StateModel(STATE)
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(InMemoryStore(), embeddings, None), store=None,
        extractor=model, limits=FactLimits(), embedder=embeddings, state_words=60,  # type: ignore[arg-type]
    )  # fmt: skip
    turns = (Turn("user", "Old context."), Turn("assistant", "Sure."),
             Turn("user", "Let's fly on 3 June."), Turn("assistant", "Booked."))  # fmt: skip
    batch = Batch("alice", "", turns, 1, T0, "idle", conversation="c1", size=4, fresh=2,
                  tail="t", summarize=True, summary="About: Planning a trip.")  # fmt: skip
    learned = await jobs.run(batch)
    assert learned is not None
    assert learned.chunk is not None
    assert learned.chunk.summary.splitlines() == [
        "About: Planning a trip to Lisbon.", "Decided: Fly on 3 June", "Open: Which hotel",
        "Known: Budget: 1,200 euros", "Known: Travelling with Ana"]  # fmt: skip
    (shown,) = model.states
    assert "About: Planning a trip." in shown  # the state before
    assert "Let's fly on 3 June." in shown
    assert "Old context." not in shown  # read before: in the state already
    quiet = Batch("alice", "", turns, 1, T0, "idle", conversation="c1", size=4, fresh=2, tail="t")
    assert (await jobs.run(quiet)).chunk.summary == ""  # type: ignore[union-attr]
    assert len(model.states) == 1  # not asked for: no model call


async def test_a_state_the_model_garbles_is_not_kept(embeddings: Embeddings) -> None:
    jobs = LearningJobs(
        pool=WorkerPool(queue_size=4, concurrency=1, job_timeout_s=30),
        writer=MemoryWriter(InMemoryStore(), embeddings, None), store=None,
        extractor=StateModel("the conversation is about travel"),  # type: ignore[arg-type]
        limits=FactLimits(), embedder=embeddings, state_words=60,
    )  # fmt: skip
    batch = Batch("alice", "", (Turn("user", "Hi there, planning a trip."),
                                Turn("assistant", "Nice.")), 1, T0, "idle", conversation="c1",
                  size=2, fresh=2, tail="t", summarize=True)  # fmt: skip
    learned = await jobs.run(batch)
    assert learned is not None  # the memories are learned all the same
    assert learned.chunk is not None
    assert learned.chunk.summary == ""
