"""Every failure of the request-path edge ends in a named outcome and an unchanged request."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import orjson
import pytest
from prometheus_client import REGISTRY

from memory_extproc.embedding import EmbeddingBatcher
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import Api, parse_request
from memory_extproc.memories.kinds import kind_of
from memory_extproc.retrieval.decision import Skip
from memory_extproc.retrieval.plan import RetrievalPolicy
from memory_extproc.retrieval.rank import RankPolicy
from memory_extproc.retrieval.service import MemoryRetrieval, Outcome
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Memory, MemoryType, StoreUnavailableError

ASK = {"messages": [{"role": "user", "content": "What's my budget for the Hawaii trip?"}]}
ALICE = HeaderSignals("alice", path="/v1/chat/completions")


def request(extra: dict | None = None):  # type: ignore[no-untyped-def]
    return parse_request(Api.CHAT_COMPLETIONS, orjson.dumps({**ASK, **(extra or {})}))


def outcomes(name: str) -> float:
    return REGISTRY.get_sample_value("memory_retrieval_outcomes_total", {"outcome": name}) or 0.0


class BrokenEmbedder:
    dimension = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("onnx failed")


class DownStore(InMemoryStore):
    async def retrieve(self, request):  # type: ignore[no-untyped-def]
        raise StoreUnavailableError("connection refused")


class OfflineStore(InMemoryStore):
    @property
    def available(self) -> bool:
        return False


@pytest.fixture
def batcher(embeddings: Embeddings) -> EmbeddingBatcher:
    return embeddings


@pytest.mark.parametrize(
    ("store", "outcome"),
    [(DownStore(), Outcome.STORE_UNAVAILABLE), (OfflineStore(), Outcome.STORE_UNAVAILABLE)],
)
async def test_store_failures(
    batcher: EmbeddingBatcher, store: InMemoryStore, outcome: Outcome
) -> None:
    before = outcomes(outcome.value)
    result = await MemoryRetrieval(batcher, store, RetrievalPolicy(), 1.0).process(request(), ALICE)
    assert result.outcome is outcome
    assert result.body is None
    assert outcomes(outcome.value) == before + 1


async def test_embedder_failure() -> None:
    retrieval = MemoryRetrieval(
        EmbeddingBatcher(BrokenEmbedder(), name="test"), InMemoryStore(), RetrievalPolicy(), 1.0
    )
    result = await retrieval.process(request(), ALICE)
    assert result.outcome is Outcome.EMBEDDING_ERROR
    assert result.body is None


async def test_failure_still_strips_memory_fields(batcher: EmbeddingBatcher) -> None:
    result = await MemoryRetrieval(batcher, DownStore(), RetrievalPolicy(), 1.0).process(
        request({"memory_config": {"retrieval_limit": 2}}), ALICE
    )
    assert result.outcome is Outcome.STORE_UNAVAILABLE
    assert result.body is not None
    assert orjson.loads(result.body) == ASK


async def test_request_can_narrow_but_not_widen_the_operator_policy(
    batcher: EmbeddingBatcher, stored_vector: Callable[[str], np.ndarray]
) -> None:
    store = InMemoryStore()
    for text in ["My budget for the Hawaii trip is $10,000", "My Hawaii trip budget covers hotels"]:
        await store.store(Memory.new("alice", text), stored_vector(text))
    retrieval = MemoryRetrieval(batcher, store, RetrievalPolicy(limit=1, threshold=0.5), 1.0)
    widened = await retrieval.process(
        request({"memory_config": {"retrieval_limit": 10, "similarity_threshold": 0.0}}), ALICE
    )
    assert len(widened.recalled) == 1
    narrowed = await retrieval.process(
        request({"memory_config": {"similarity_threshold": 0.99}}), ALICE
    )
    assert narrowed.outcome is Outcome.NO_RESULTS
    off = await retrieval.process(request({"memory_config": {"enabled": False}}), ALICE)
    assert off.outcome is Skip.DISABLED_BY_REQUEST
    for types, outcome in ((["episodic"], Outcome.NO_RESULTS), (["bogus"], Skip.ZERO_LIMIT),
                           ([], Skip.ZERO_LIMIT)):  # fmt: skip
        typed = await retrieval.process(request({"memory_config": {"memory_types": types}}), ALICE)
        assert typed.outcome is outcome, types  # narrowed (to nothing), never widened to all


async def test_project_header_scopes_the_search(
    batcher: EmbeddingBatcher, stored_vector: Callable[[str], np.ndarray]
) -> None:
    store = InMemoryStore()
    text = "My budget for the Hawaii trip is $10,000"
    await store.store(Memory.new("alice", text, project_id="travel"), stored_vector(text))
    retrieval = MemoryRetrieval(batcher, store, RetrievalPolicy(), 1.0)
    in_project = HeaderSignals("alice", path="/v1/chat/completions", project_id="travel")
    other = HeaderSignals("alice", path="/v1/chat/completions", project_id="work")
    assert len((await retrieval.process(request(), in_project)).recalled) == 1
    assert (await retrieval.process(request(), other)).outcome is Outcome.NO_RESULTS
    assert (
        len((await retrieval.process(request(), ALICE)).recalled) == 1
    )  # no project: all of alice's


async def test_an_open_request_is_given_the_preferences_near_it(
    batcher: EmbeddingBatcher, stored_vector: Callable[[str], np.ndarray]
) -> None:
    store = InMemoryStore()
    for text, kind in (
        ("User is vegetarian", MemoryType.PREFERENCE),
        ("User has an acute fear of heights", MemoryType.PREFERENCE),
        ("User lives in Porto", MemoryType.SEMANTIC),
    ):
        await store.store(Memory.new("alice", text, kind), stored_vector(text))
    retrieval = MemoryRetrieval(batcher, store, RetrievalPolicy(), 1.0)

    def asking(text: str, **config: object):  # type: ignore[no-untyped-def]
        body = {"messages": [{"role": "user", "content": text}]}
        if config:
            body["memory_config"] = config
        return parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(body))

    dinner = "Suggest something I could cook for dinner tonight."
    given = await retrieval.process(asking(dinner), ALICE)
    assert given.recalled == ("User is vegetarian",)  # not the fear of heights: far from dinner
    # the same words, not open, or narrowed: ordinary matching only (0.37 is under the bar)
    assert (await retrieval.process(asking("I cook dinner tonight."), ALICE)).recalled == ()
    narrowed = [
        asking(dinner, memory_types=["semantic"]),
        asking(dinner, similarity_threshold=0.5),
    ]
    for narrow in narrowed:
        assert (await retrieval.process(narrow, ALICE)).recalled == ()
    off = MemoryRetrieval(batcher, store, RetrievalPolicy(preferences=False), 1.0)
    assert (await off.process(asking(dinner), ALICE)).recalled == ()
    assert (await retrieval.process(asking("What is the capital of Peru?"), ALICE)).recalled == ()
    charts = asking("Can you recommend a good Python library for making charts?")
    assert (await retrieval.process(charts, ALICE)).recalled == ()  # open, but near no preference


class NoPreferenceSearch(InMemoryStore):
    async def retrieve(self, request):  # type: ignore[no-untyped-def]
        if MemoryType.PREFERENCE in request.types:
            raise StoreUnavailableError("the second search failed")
        return await super().retrieve(request)


async def test_preferences_count_in_the_limit_and_their_search_is_best_effort(
    batcher: EmbeddingBatcher, stored_vector: Callable[[str], np.ndarray]
) -> None:
    texts = (("User is vegetarian", MemoryType.PREFERENCE),
             ("User cooks dinner for their family every night", MemoryType.SEMANTIC))  # fmt: skip
    stores = InMemoryStore(), NoPreferenceSearch()
    for store in stores:
        for text, kind in texts:
            await store.store(Memory.new("alice", text, kind), stored_vector(text))
    dinner = "Suggest something I could cook for dinner tonight."
    body = {"messages": [{"role": "user", "content": dinner}]}
    one = parse_request(
        Api.CHAT_COMPLETIONS, orjson.dumps({**body, "memory_config": {"retrieval_limit": 1}})
    )
    plain = parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(body))
    retrieval = MemoryRetrieval(batcher, stores[0], RetrievalPolicy(), 1.0)
    vegetarian, cooks = texts[0][0], texts[1][0]
    assert (await retrieval.process(plain, ALICE)).recalled == (vegetarian, cooks)
    assert (await retrieval.process(one, ALICE)).recalled == (vegetarian,)
    # a request's own search of one result, a semantic one: the preferences need theirs
    narrow = RetrievalPolicy(ranking=RankPolicy(candidates=1))
    failing = MemoryRetrieval(batcher, stores[1], narrow, 1.0)
    kept = await failing.process(one, ALICE)  # what it matched itself, still injected
    assert kept.outcome is Outcome.INJECTED
    assert kept.recalled == (cooks,)  # ranked by its own search: no preference ahead of it


class CountingStore(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.searched: list[tuple[MemoryType, ...]] = []

    async def retrieve(self, request):  # type: ignore[no-untyped-def]
        self.searched.append(tuple(request.types))
        return await super().retrieve(request)


@pytest.mark.parametrize(
    ("beside", "searches"),
    [
        # 40 memories near dinner but not as near as a preference: the request's own 30 end
        # below the preferences' floor, so every preference above it is among them
        ("User visited Lisbon in {}", [()]),
        # 40 nearer (0.33) than the third preference (0.26): it needs a search of its own
        ("User's kitchen was renovated in {}", [(), (MemoryType.PREFERENCE,)]),
    ],
)
async def test_an_open_requests_preferences_are_searched_for_only_when_its_own_search_may_miss_one(
    batcher: EmbeddingBatcher,
    stored_vector: Callable[[str], np.ndarray],
    beside: str,
    searches: list[tuple[MemoryType, ...]],
) -> None:
    store = CountingStore()
    near = ["User loves spicy food", "User is vegetarian", "User dislikes mushrooms"]
    for text in [*near, "User is allergic to peanuts"]:  # the last below the floor for dinner
        await store.store(Memory.new("alice", text, MemoryType.PREFERENCE), stored_vector(text))
    for k in range(40):  # more than the request's own search reads
        text = beside.format(1980 + k)
        await store.store(Memory.new("alice", text), stored_vector(text))
    said = {"role": "user", "content": "Suggest something I could cook for dinner tonight."}
    dinner = parse_request(Api.CHAT_COMPLETIONS, orjson.dumps({"messages": [said]}))
    given = await MemoryRetrieval(batcher, store, RetrievalPolicy(), 1.0).process(dinner, ALICE)
    assert store.searched == searches
    assert given.recalled[:3] == tuple(near)


async def test_a_preference_said_in_chinese_is_given_to_a_chinese_open_request(
    embeddings: Embeddings, stored_vector: Callable[[str], np.ndarray]
) -> None:
    """Typed as the worker types a learned fact: "用户是素食者" was an ordinary memory, and a
    Chinese request for a dinner recipe was given nothing (PrefEval in Chinese, 0.80 → 1.00)."""
    store = InMemoryStore()
    for text in ("用户是素食者", "用户对高度有强烈的恐惧", "用户住在杭州"):
        await store.store(Memory.new("alice", text, kind_of(text)), stored_vector(text))
    retrieval = MemoryRetrieval(embeddings, store, RetrievalPolicy(), 1.0)

    def asking(text: str):  # type: ignore[no-untyped-def]
        body = {"messages": [{"role": "user", "content": text}]}
        return parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(body))

    given = await retrieval.process(asking("给我推荐一道今晚的晚餐菜谱。"), ALICE)
    assert given.recalled[0] == "用户是素食者"
    assert "用户住在杭州" not in given.recalled
    assert (await retrieval.process(asking("中国的首都是哪里？"), ALICE)).recalled == ()


@pytest.mark.parametrize(
    "question",
    [
        "What's my budget for the Hawaii trip? Remind me please.",
        "¿Cuál es mi presupuesto para el viaje a Hawái?",
    ],
)
async def test_a_questions_language_is_told_once(
    embeddings: Embeddings,
    stored_vector: Callable[[str], np.ndarray],
    monkeypatch: pytest.MonkeyPatch,
    question: str,
) -> None:
    """Which model reads a question and how its words are ranked are one decision: language
    identification (~0.15 ms a text) runs once per question, not again for its words."""
    from memory_extproc import languages

    store = InMemoryStore()
    fact = "User's budget for the Hawaii trip is $10,000"
    await store.store(Memory.new("alice", fact, kind_of(fact)), stored_vector(fact))
    retrieval = MemoryRetrieval(embeddings, store, RetrievalPolicy(), 5.0)
    asked = {"messages": [{"role": "user", "content": question}]}
    first = parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(asked))
    assert (await retrieval.process(first, ALICE)).outcome is Outcome.INJECTED  # words cached
    told: list[str] = []
    real = languages._identifier()

    class Counting:
        def classify(self, text: str) -> tuple[str, float]:
            told.append(text)
            return real.classify(text)  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(languages, "_identifier", Counting)
    again = {"messages": [{"role": "user", "content": question + " Thanks!"}]}
    result = await retrieval.process(
        parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(again)), ALICE
    )
    assert result.outcome is Outcome.INJECTED
    assert len(told) == 1


OWN_LIFE = {  # a user's memories, and requests that refer to their home, their job, or neither
    "en": (
        ("User lives in Tucson in a second-floor apartment", "User works as a line cook at "
         "Harlow's", "User's sister lives in Porto", "User enjoys hiking on weekends"),
        ("What's the weather usually like where I live this time of year?",
         "What should I eat before work?", "What is the capital of Peru?"),
    ),
    "de": (
        ("Der Nutzer wohnt in Freiburg", "Der Nutzer arbeitet als Lkw-Fahrer",
         "Die Schwester des Nutzers wohnt in Berlin", "Der Nutzer spielt Cello"),
        ("Hast du Ausflugstipps in der Nähe meiner Stadt?",
         "Was soll ich vor der Arbeit essen?", "Was ist die Hauptstadt von Peru?"),
    ),
    "es": (
        ("El usuario vive en Monterrey", "El usuario trabaja como enfermero en urgencias",
         "El hermano del usuario vive en Denver", "El usuario es vegano"),
        ("¿Qué hago este finde cerca de casa?",
         "¿Qué me recomiendas comer antes de ir a trabajar?", "¿Cuál es la capital de Perú?"),
    ),
    "zh": (
        ("用户住在成都", "用户在一所小学当老师", "用户的姐姐住在上海", "用户喜欢爬山"),
        ("我家附近有什么好玩的？", "上班前吃什么好？", "秘鲁的首都是哪里？"),
    ),
    "ja": (
        ("ユーザーは札幌に住んでいる", "ユーザーは看護師として働いている",
         "ユーザーの姉は大阪に住んでいる", "ユーザーは山登りが好きだ"),
        ("近所でおすすめの店はある？", "仕事の前に何を食べたらいい？", "ペルーの首都はどこ？"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(OWN_LIFE))
async def test_a_request_that_refers_to_the_users_home_or_work_is_given_it(
    embeddings: Embeddings, stored_vector: Callable[[str], np.ndarray], language: str
) -> None:
    """ "What's the weather like where I live?" names no city, and scored 0.26 with the user's
    home: it is given the memory that says the home (not a sister's), "before work" the job."""
    (home, job, relative, other), (near_home, before_work, unrelated) = OWN_LIFE[language]
    store = InMemoryStore()
    for text in (home, job, relative, other):
        await store.store(Memory.new("alice", text, kind_of(text)), stored_vector(text))
    retrieval = MemoryRetrieval(embeddings, store, RetrievalPolicy(), 1.0)

    def asking(text: str, **config: object):  # type: ignore[no-untyped-def]
        body: dict[str, object] = {"messages": [{"role": "user", "content": text}]}
        if config:
            body["memory_config"] = config
        return parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(body))

    given = (await retrieval.process(asking(near_home), ALICE)).recalled
    assert home in given  # an open request's preference may come before it
    assert relative not in given
    assert job in (await retrieval.process(asking(before_work), ALICE)).recalled
    assert (await retrieval.process(asking(unrelated), ALICE)).recalled == ()
    narrowed = asking(near_home, memory_types=["preference"])
    assert home not in (await retrieval.process(narrowed, ALICE)).recalled


class NoSecondSearch(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.searches = 0

    async def retrieve(self, request):  # type: ignore[no-untyped-def]
        self.searches += 1
        if self.searches > 1:
            raise StoreUnavailableError("the second search failed")
        return await super().retrieve(request)


async def test_the_search_for_the_users_home_is_best_effort(
    embeddings: Embeddings,
    stored_vector: Callable[[str], np.ndarray],
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = NoSecondSearch()
    for text in ("User lives in Tucson", "User is planning a trip to Iceland in March"):
        await store.store(Memory.new("alice", text), stored_vector(text))
    body = {"messages": [{"role": "user", "content": "Any tips for my trip to Iceland? "
                                                     "Is it far from where I live?"}]}  # fmt: skip
    given = await MemoryRetrieval(embeddings, store, RetrievalPolicy(), 1.0).process(
        parse_request(Api.CHAT_COMPLETIONS, orjson.dumps(body)), ALICE
    )
    assert given.outcome is Outcome.INJECTED  # what it matched itself
    assert given.recalled[0] == "User is planning a trip to Iceland in March"
    assert "Search for the user's home failed: StoreUnavailableError" in caplog.text
