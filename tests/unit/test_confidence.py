"""Confidence and review: how surely a learned memory is the user's, read from the words it came
from (pure); the writer holding what is under the bar, a second observation raising it; the
memory API listing, confirming and rejecting what is held."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from memory_extproc.api.routes import ApiError, ListMemories, Review, parse_call
from memory_extproc.api.service import MemoryApi
from memory_extproc.clock import now_ms
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.memories.confidence import (
    LEVELS,
    WEIGHTS,
    held_back,
    observed_again,
    of_fact,
    of_words,
    raised,
    restates,
)
from memory_extproc.memories.facts import Fact
from memory_extproc.memories.writer import MemoryWriter, Written
from memory_extproc.store import filters
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import Confidence, MemoryType, SearchRequest, confidence_of
from tests.openapi_contract import check_response

T0 = 1_700_000_000_000
PREF, FACT = MemoryType.PREFERENCE, MemoryType.SEMANTIC
STATED, IMPLIED, UNCERTAIN = Confidence.STATED, Confidence.IMPLIED, Confidence.UNCERTAIN


@pytest.mark.parametrize(
    ("fact", "kind", "said", "others", "expected"),
    [
        # said, of themselves: stated, in passing or not
        ("User works as a nurse", FACT, "I work as a nurse.", "", STATED),
        ("User usually prefers in-person learning over online courses", PREF,
         "Woodworking sounds fun. I usually prefer in-person learning over online stuff - can't "
         "stand those digital courses.", "Have you considered woodworking?", STATED),
        # a pick among the assistant's options: implied, however politely hedged
        ("User prefers growing basil over tomatoes or strawberries", PREF,
         "I think I'll go with the basil. The other options need too much sun.",
         "You could grow cherry tomatoes, basil or strawberries.", IMPLIED),
        # a preference the model read into what the user did, not said
        ("User prefers quiet restaurants", PREF, "We ended up at a small quiet bistro downtown.",
         "", IMPLIED),
        # hedged by the user
        ("User is allergic to shellfish", FACT,
         "I had a rash after dinner. Maybe I'm allergic to shellfish, not sure.", "", UNCERTAIN),
        ("El usuario es alérgico al marisco", FACT, "Quizás soy alérgico al marisco.", "",
         UNCERTAIN),
        ("用户对海鲜过敏", FACT, "我可能对海鲜过敏。", "", UNCERTAIN),
        ("Der Nutzer zieht nach Hamburg", FACT, "Vielleicht ziehe ich nach Hamburg.", "",
         UNCERTAIN),
        ("ユーザーは来年東京に引っ越す", FACT, "たぶん来年東京に引っ越します。", "", UNCERTAIN),
        ("用户每天跑步", FACT, "我尽可能每天跑步。", "", STATED),  # 尽可能: "as much as possible"
        # the hedge kept: what was said
        ("User might move to Berlin next year", FACT, "I might move to Berlin next year.", "",
         STATED),
        # the assistant's words as the user's (PrefEval persona talks, the 1.5B model)
        ("User's best way to promote the event is to approach businesses with a brief proposal "
         "outlining the event's goals", FACT, "How should I promote the event to businesses?",
         "The best way is to approach them with a brief proposal outlining the event's goals "
         "and potential benefits.", UNCERTAIN),
        # a possibility the user did not voice: the assistant's suggestion
        ("User's fundraiser could involve a bake sale or a raffle", FACT,
         "I'm organizing a fundraiser for new equipment.",
         "A fundraiser could involve a bake sale or a raffle.", UNCERTAIN),
        ("User should stretch before climbing", FACT, "I climb twice a week.",
         "You should stretch before climbing.", UNCERTAIN),
        ("User should stretch more", FACT, "I know I should stretch more.", "", STATED),
        # an answer to what the assistant asked, in its words
        ("User has not attended any local food truck events yet", FACT, "Not yet, sadly.",
         "Great menu! Have you attended any local food truck events yet?", IMPLIED),
        # the user's, in the genitive ("des Nutzers", as "del usuario")
        ("Die Hausärztin des Nutzers ist Dr. Schneider in Leipzig", FACT,
         "Ich wohne in Leipzig, meine Hausärztin ist Dr. Schneider, auch in Leipzig.", "",
         STATED),
        # of someone the user named in their life, the user left out: theirs
        ("Der Mann Markus wird in der Woche nach dem 2026-12-07 40 Jahre alt", FACT,
         "Mein Mann Markus wird nächste Woche 40, hast du Ideen für die Party?", "", STATED),
        ("Sister Anna lives in Porto", FACT, "My sister Anna lives in Porto.", "", STATED),
        # the user's own words copied without "Nutzer": theirs
        ("Der Budget für die Hawaii-Reise liegt jetzt bei 9.000 Euro", FACT,
         "Meine Schwester Julia kommt mit, und unser Budget für die Hawaii-Reise liegt jetzt "
         "bei 9.000 Euro.", "Wie schön! Mit 9.000 Euro könnt ihr sogar etwas länger bleiben.",
         STATED),
        ("Wir sind letztes Monat nach Stuttgart gezogen", FACT,
         "Wir sind letzten Monat nach Stuttgart gezogen.", "Glückwunsch zum Umzug!", STATED),
        # not of the user at all
        ("Der Mann Markus wird 40 Jahre alt", FACT, "Wie feiert man einen 40. Geburtstag?",
         "", UNCERTAIN),
        ("Libraries often handle book donations with a donation box", FACT,
         "I'm organizing a book drive for my local library.",
         "Libraries often handle book donations with a donation box.", UNCERTAIN),
    ],
)  # fmt: skip
def test_a_facts_confidence_is_read_from_the_words_it_came_from(
    fact: str, kind: MemoryType, said: str, others: str, expected: Confidence
) -> None:
    assert of_fact(fact, kind, said, others) is expected


def test_the_users_earlier_words_are_theirs_when_the_assistant_repeats_them() -> None:
    fact, said = "User is using Bootstrap for responsive design", "Any tips on breakpoints?"
    others = "Since you're using Bootstrap for responsive design, start with its grid."
    assert of_fact(fact, FACT, said, others) is Confidence.UNCERTAIN
    earlier = "I'm using Bootstrap for responsive design."
    assert of_fact(fact, FACT, said, others, earlier=earlier) is Confidence.STATED


def test_someone_the_user_named_earlier_in_the_conversation_is_of_the_users_life() -> None:
    fact = "Der Mann Markus wird in der Woche nach dem 2026-12-07 41 Jahre alt"
    said = "Ups, mein Fehler: Markus wird 41, nicht 40."
    assert of_fact(fact, FACT, said, "") is Confidence.UNCERTAIN
    earlier = "Mein Mann Markus wird nächste Woche 40, hast du Ideen für die Party?"
    assert of_fact(fact, FACT, said, "", earlier=earlier) is Confidence.STATED


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I live in Porto.", STATED),
        ("I might move to Berlin next year.", STATED),  # a note quotes the hedge with the rest
        ("I'll go with option 2. The other options are too pricey.", IMPLIED),
    ],
)
def test_a_notes_confidence_is_read_from_the_users_sentence(
    said: str, expected: Confidence
) -> None:
    assert of_words(said) is expected


def test_levels_weights_and_the_bar() -> None:
    assert LEVELS == (UNCERTAIN, IMPLIED, STATED)
    assert [WEIGHTS[c] for c in LEVELS] == [0.5, 0.7, 1.0]  # the design's Phase-3 engine
    assert (raised(UNCERTAIN), raised(IMPLIED), raised(STATED)) == (IMPLIED, STATED, STATED)
    assert observed_again(UNCERTAIN, STATED) is STATED  # as sure as the new words
    assert observed_again(UNCERTAIN, UNCERTAIN) is IMPLIED
    assert held_back(UNCERTAIN, IMPLIED)
    assert not held_back(IMPLIED, IMPLIED)
    assert held_back(IMPLIED, STATED)
    assert not held_back(UNCERTAIN, None)


def test_a_restatement_is_the_same_fact_observed_again() -> None:
    assert restates("User is allergic to shellfish", "user is allergic to SHELLFISH")
    assert restates("User is allergic to shellfish", "User is allergic to shellfish, it seems")
    assert not restates("User is allergic to shellfish", "User lives in Porto")


def test_a_memory_without_a_recorded_confidence_is_stated() -> None:
    from memory_extproc.store.model import Memory

    assert confidence_of(Memory.new("a", "User likes jazz")) is STATED
    held = Memory.new("a", "User likes jazz", meta={"confidence": "uncertain"})
    assert confidence_of(held) is UNCERTAIN


def test_the_filter_of_held_memories_is_their_own() -> None:
    assert filters.user_scope("a", pending=True).endswith('superseded_by == "pending"')
    assert 'superseded_by == ""' in filters.user_scope("a")


def sure(text: str, confidence: Confidence, kind: MemoryType = FACT) -> Fact:
    return Fact(kind, text, confidence=confidence)


async def searched(store: InMemoryStore, embeddings: Embeddings, text: str) -> list[str]:
    vector = await embeddings.query(text)
    hits = await store.retrieve(SearchRequest("alice", vector, limit=10, threshold=0.0))
    return [h.memory.content for h in hits]


async def test_an_uncertain_fact_is_held_out_of_every_search_and_changes_nothing(
    embeddings: Embeddings,
) -> None:
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    await writer.write("alice", "", sure("User lives in Lisbon", STATED), T0, source="c")
    [(outcome, held_id)] = await writer.write_batch(
        "alice", "", [sure("User lives in Porto", UNCERTAIN)], T0, source="c", changes=[True]
    )
    assert outcome is Written.PENDING
    assert await searched(store, embeddings, "Where do I live?") == ["User lives in Lisbon"]
    [held] = await store.list("alice", pending=True)
    assert (held.id, held.content, held.pending) == (held_id, "User lives in Porto", True)
    assert confidence_of(held) is UNCERTAIN
    assert T0 < held.expires_at <= now_ms() + 30 * 86_400_000  # gone unless confirmed
    [current] = await store.list("alice")
    assert (current.content, confidence_of(current)) == ("User lives in Lisbon", STATED)


async def test_observed_again_a_held_fact_comes_a_level_surer(embeddings: Embeddings) -> None:
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    said = "User is allergic to shellfish"
    first = await writer.write_batch("alice", "", [sure(said, UNCERTAIN)], T0, source="c")
    assert first[0][0] is Written.PENDING
    second = await writer.write_batch("alice", "", [sure(said, UNCERTAIN)], T0, source="c")
    assert second[0][0] is Written.STORED
    [memory] = await store.list("alice")
    assert (memory.content, confidence_of(memory)) == (said, IMPLIED)
    assert await store.list("alice", pending=True) == []  # the held one went


async def test_a_current_implied_memory_said_again_is_stated(embeddings: Embeddings) -> None:
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    pick = sure("User prefers basil over tomatoes", IMPLIED, PREF)
    assert (await writer.write_batch("alice", "", [pick], T0, source="c"))[0][0] is Written.STORED
    [memory] = await store.list("alice")
    assert confidence_of(memory) is IMPLIED
    again = await writer.write_batch("alice", "", [pick], T0, source="c")
    assert again[0][0] is Written.DEDUPED
    [memory] = await store.list("alice")
    assert confidence_of(memory) is STATED


async def test_a_stricter_bar_holds_implied_facts_and_none_holds_nothing(
    embeddings: Embeddings,
) -> None:
    strict, open_ = InMemoryStore(), InMemoryStore()
    pick = sure("User prefers basil over tomatoes", IMPLIED, PREF)
    doubt = sure("User is allergic to shellfish", UNCERTAIN)
    held = await MemoryWriter(strict, embeddings, None, hold_below=STATED).write_batch(
        "alice", "", [pick, doubt], T0, source="c"
    )
    assert [w for w, _ in held] == [Written.PENDING, Written.PENDING]
    kept = await MemoryWriter(open_, embeddings, None, hold_below=None).write_batch(
        "alice", "", [pick, doubt], T0, source="c"
    )
    assert [w for w, _ in kept] == [Written.STORED, Written.STORED]
    assert {confidence_of(m) for m in await open_.list("alice")} == {IMPLIED, UNCERTAIN}


@pytest.fixture
def reviewed(embeddings: Embeddings) -> tuple[InMemoryStore, MemoryWriter, MemoryApi]:
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    return store, writer, MemoryApi(store, embeddings, writer, default_threshold=0.0)


async def call(api: MemoryApi, method: str, path: str, *, query: str = "",
               user: str = "alice") -> tuple[int, object]:  # fmt: skip
    reply = await api.respond(method, path, query, b"", user, "")
    parsed = orjson.loads(reply.body) if reply.body else None
    check_response(method, path, reply.status, parsed)
    return reply.status, parsed


async def held_one(writer: MemoryWriter, text: str) -> str:
    [(outcome, memory_id)] = await writer.write_batch(
        "alice", "", [sure(text, UNCERTAIN)], T0, source="conversation"
    )
    assert outcome is Written.PENDING
    return memory_id


async def test_the_api_lists_held_memories_apart_and_confirms_one(
    reviewed: tuple[InMemoryStore, MemoryWriter, MemoryApi], embeddings: Embeddings
) -> None:
    store, writer, api = reviewed
    memory_id = await held_one(writer, "User is allergic to shellfish")
    assert (await call(api, "GET", "/v1/memory"))[1] == {"data": [], "next_cursor": None}
    status, page = await call(api, "GET", "/v1/memory", query="status=pending")
    assert status == 200
    assert isinstance(page, dict)
    [shown] = page["data"]
    assert (shown["id"], shown["status"], shown["confidence"]) == (memory_id, "pending",
                                                                    "uncertain")  # fmt: skip
    assert (await call(api, "GET", f"/v1/memory/{memory_id}"))[1]["status"] == "pending"  # type: ignore[index]
    assert (await call(api, "PATCH", f"/v1/memory/{memory_id}"))[0] == 400  # no body
    assert (await call(api, "GET", f"/v1/memory/{memory_id}/history"))[0] == 409
    # another user can neither see nor confirm it
    assert (await call(api, "POST", f"/v1/memory/{memory_id}/confirm", user="bob"))[0] == 404
    status, confirmed = await call(api, "POST", f"/v1/memory/{memory_id}/confirm")
    assert status == 200
    assert isinstance(confirmed, dict)
    assert (confirmed["status"], confirmed["confidence"]) == ("active", "stated")
    assert await searched(store, embeddings, "Am I allergic to anything?") == [
        "User is allergic to shellfish"
    ]
    assert (await call(api, "POST", f"/v1/memory/{memory_id}/confirm"))[0] == 404  # not held now
    assert (await call(api, "POST", f"/v1/memory/{memory_id}/reject"))[0] == 404


async def test_the_api_rejects_a_held_memory_for_good(
    reviewed: tuple[InMemoryStore, MemoryWriter, MemoryApi],
) -> None:
    store, writer, api = reviewed
    memory_id = await held_one(writer, "User is allergic to shellfish")
    assert (await call(api, "POST", f"/v1/memory/{memory_id}/reject", user="bob"))[0] == 404
    assert (await call(api, "POST", f"/v1/memory/{memory_id}/reject"))[0] == 204
    assert await store.get("alice", memory_id) is None
    assert (await call(api, "GET", f"/v1/memory/{memory_id}"))[0] == 404


def test_review_routes_and_the_status_parameter_parse() -> None:
    mid = "mem_" + "0" * 32
    assert parse_call("POST", f"/v1/memory/{mid}/confirm", "", b"") == Review(mid, True)
    assert parse_call("POST", f"/v1/memory/{mid}/reject", "", b"") == Review(mid, False)
    assert parse_call("GET", "/v1/memory", "status=pending", b"") == ListMemories(pending=True)
    assert parse_call("GET", "/v1/memory", "status=active", b"") == ListMemories()
    with pytest.raises(ApiError) as bad:
        parse_call("GET", "/v1/memory", "status=gone", b"")
    assert bad.value.status == 400
    with pytest.raises(ApiError) as wrong:
        parse_call("GET", f"/v1/memory/{mid}/confirm", "", b"")
    assert wrong.value.status == 405


async def test_a_held_memory_past_its_review_time_can_no_longer_be_confirmed(
    reviewed: tuple[InMemoryStore, MemoryWriter, MemoryApi],
) -> None:
    import dataclasses

    store, writer, api = reviewed
    memory_id = await held_one(writer, "User is allergic to shellfish")
    held = await store.get("alice", memory_id)
    assert held is not None
    await store.store(dataclasses.replace(held, expires_at=now_ms() - 1), np.zeros(1))
    assert (await call(api, "POST", f"/v1/memory/{memory_id}/confirm"))[0] == 404
    assert (await call(api, "GET", f"/v1/memory/{memory_id}"))[0] == 404
