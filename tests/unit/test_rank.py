"""Hybrid ranking: the cosine threshold keeps its meaning; keywords rescue near misses and order;
companions fill the slots once something passes."""

from __future__ import annotations

import pytest

from memory_extproc.retrieval.amounts import asks_amount, holds_amount
from memory_extproc.retrieval.rank import (
    RankPolicy,
    preferences_held,
    rank,
    with_own_life,
    with_preferences,
)
from memory_extproc.store.model import Memory, MemoryType, ScoredMemory
from memory_extproc.words import stem, terms


def hit(text: str, score: float) -> ScoredMemory:
    return ScoredMemory(Memory.new("alice", text), score)


ON, OFF = RankPolicy(), RankPolicy(hybrid=False)


def test_terms_drop_stopwords_and_stem() -> None:
    assert terms("What did Caroline research about adoption agencies?") == terms(
        "Caroline researched adoption agency"
    )
    assert len(terms("What did Caroline research about adoption agencies?")) == 4
    assert stem("researched") == stem("research") == "research"
    assert stem("dancing") == stem("dance")  # as the yardsticks read them (eval/answer_recall)
    assert stem("bus") == "bus"


def test_off_is_plain_cosine_above_the_threshold() -> None:
    candidates = [hit("a", 0.8), hit("b", 0.61), hit("c", 0.5)]
    assert rank("anything", candidates, 0.6, 5, OFF) == candidates[:2]
    assert rank("anything", candidates, 0.6, 1, OFF) == candidates[:1]


def test_a_near_miss_with_the_questions_rare_words_is_rescued() -> None:
    above = hit("Caroline values happy moments", 0.69)
    miss = hit("Caroline created a rainbow flag mural", 0.54)
    far = hit("Caroline likes flags", 0.2)  # below the candidate floor: never rescued
    unrelated = hit("Caroline went hiking", 0.44)  # below the companions' floor
    chosen = rank("Which mural did Caroline create?", [above, unrelated, miss, far], 0.6, 5, ON)
    assert chosen == [miss, above]  # rescued, and ranked first by its keywords
    question = "Which mural did Caroline create?"
    assert rank(question, [above, unrelated, miss], 0.6, 5, ON, rescue=False) == [above]
    assert rank("Which mural did Caroline create?", [above, unrelated, miss], 0.6, 5, OFF) == [
        above
    ]


def test_keywords_reorder_but_never_admit_what_shares_nothing() -> None:
    a = hit("Melanie appreciates the power of books", 0.75)
    b = hit("Caroline's favourite book is Becoming Nicole", 0.64)
    chosen = rank("What book did Caroline recommend?", [a, b], 0.6, 5, ON)
    assert chosen == [b, a]  # "book" and "Caroline" outweigh a 0.11 cosine lead
    assert rank("zzz qqq", [hit("x", 0.59)], 0.6, 5, ON) == []


def test_questions_without_keywords_fall_back_to_cosine() -> None:
    candidates = [hit("a", 0.7), hit("b", 0.3)]
    assert rank("what is it?", candidates, 0.6, 5, ON) == candidates[:1]


def test_companions_join_only_what_passes() -> None:
    best = hit("Jon opened a dance studio", 0.66)
    companion = hit("Jon lost his job as a banker", 0.52)  # within 0.15 of the threshold
    too_far = hit("Jon likes tea", 0.44)
    question = "How long did it take for Jon to open his studio?"
    assert rank(question, [best, companion, too_far], 0.6, 5, ON) == [best, companion]
    # nothing passes: the question is not about these memories, companions or not
    assert rank(question, [companion, too_far], 0.6, 5, ON) == []
    # a request that raised the threshold gets exactly that bar
    assert rank(question, [best, companion], 0.6, 5, ON, rescue=False) == [best]
    assert rank(question, [best, companion], 0.6, 5, OFF) == [best]


def test_a_rescued_near_miss_brings_no_companions() -> None:
    rescued = hit("Caroline created a rainbow flag mural", 0.54)
    companion = hit("Caroline paints on weekends", 0.53)
    chosen = rank("Which mural did Caroline create?", [rescued, companion], 0.6, 5, ON)
    assert chosen == [rescued]


def test_a_question_naming_a_date_prefers_what_was_said_then() -> None:
    may_25 = 1_653_480_000_000  # 2022-05-25 12:00 UTC
    said_then = ScoredMemory(
        Memory.new("alice", "User bought a stuffed animal", created_at=may_25), 0.28
    )
    best = ScoredMemory(Memory.new("alice", "User made a birthday card", created_at=0), 0.46)
    other = ScoredMemory(Memory.new("alice", "User cheers friends on", created_at=0), 0.35)
    asked = "What did I do for Joanna on 25 May, 2022?"
    # recorded then: admitted below the companions' floor (0.30) beside what passes, and put
    # first (0.28 + 0.2 against 0.46)
    assert rank(asked, [best, other, said_then], 0.45, 5, ON) == [said_then, best, other]
    # the same question without its date: cosine and keywords as before
    assert rank("What did I do for Joanna?", [best, other, said_then], 0.45, 5, ON) == [best, other]
    # a date alone never opens the door
    assert rank(asked, [said_then], 0.45, 5, ON) == []


def test_a_question_asking_how_long_prefers_a_memory_holding_an_amount() -> None:
    gist = hit("User's friends have been there through everything", 0.62)
    said = hit("User has friends who have been there for 4 years", 0.57)
    asked = "How long have I had my current group of friends for?"
    assert rank(asked, [gist, said], 0.6, 5, ON) == [said, gist]
    # the same memories for a question that asks for no amount: cosine and keywords as before
    assert rank("Who supports me?", [gist, said], 0.6, 5, ON) == [gist, said]
    # an amount never opens the door
    assert rank(asked, [said], 0.6, 5, ON) == []


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How long have I had my current group of friends for?", True),
        ("For how long has Nate had his turtles?", True),
        ("How many kids do I have?", True),
        ("How often do I take my kids to the park?", True),
        ("¿Cuántos hijos tengo?", True),
        ("我养了几只猫？", True),
        ("我学钢琴多久了？", True),
        ("How did I get to work?", False),
        ("When did I move to Porto?", False),
        ("我住在哪里？", False),
    ],
)
def test_which_questions_ask_for_an_amount(question: str, asks: bool) -> None:
    assert asks_amount(question) is asks


@pytest.mark.parametrize(
    ("memory", "holds"),
    [
        ("User has known their friends for 4 years", True),
        ("User has three kids", True),
        ("User takes their kids to the park a few times a week", True),
        ("User goes to salsa lessons every Thursday", True),
        ("User's trip budget is $2,000", True),
        ("用户每周去两次健身房", True),
        ("User went to a support group on 2023-05-07", False),  # a day is not an amount
        ("User has been painting since 2016", False),
        ("User and Mel cherish each other", False),
        ("User's family has been there every step of the way", False),
        ("User loves everything about pottery", False),
    ],
)
def test_which_memories_hold_an_amount(memory: str, holds: bool) -> None:
    assert holds_amount(memory) is holds


def test_an_open_requests_preferences_lead_down_to_their_floor() -> None:
    vegetarian, heights, far = hit("vegetarian", 0.35), hit("heights", 0.25), hit("pop", 0.1)
    nuts, jazz = hit("nuts", 0.22), hit("jazz", 0.21)
    matched = [hit("lives in Porto", 0.6), vegetarian]  # a preference it matched itself too
    chosen = with_preferences(matched, [vegetarian, heights, nuts, jazz, far], 5, ON)
    assert chosen == [vegetarian, heights, nuts, matched[0]]  # each once, three preferences first
    one = RankPolicy(preference_limit=1)
    assert with_preferences([], [vegetarian, heights], 5, one) == [vegetarian]
    assert with_preferences([], [far], 5, ON) == []  # below the floor
    assert with_preferences(matched, [vegetarian, heights], 1, ON) == [vegetarian]  # k in all


def test_the_users_home_and_work_go_ahead_of_what_the_request_matched_each_once() -> None:
    moved = hit("moved to Porto for a new job as a nurse", 0.3)  # found as the home and the job
    matched = [hit("likes rainy days", 0.5), moved]
    assert with_own_life(matched, [moved, moved], 5) == [moved, matched[0]]
    assert with_own_life(matched, [], 1) == [matched[0]]
    assert with_own_life(matched, [moved], 1) == [moved]  # k in all


def test_a_requests_own_results_hold_its_preferences_when_they_cannot_have_left_one_out() -> None:
    def liked(text: str, score: float) -> ScoredMemory:
        return ScoredMemory(Memory.new("u", text, MemoryType.PREFERENCE), score)

    porto, pop = hit("lives in Porto", 0.6), liked("pop", 0.1)
    three = [porto, liked("vegetarian", 0.35), liked("heights", 0.25), liked("nuts", 0.22)]
    assert preferences_held(three, 4, 0.05, ON) == three[1:]  # full, three above the floor
    assert preferences_held([porto, three[1], three[2]], 3, 0.05, ON) is None  # one may be out
    assert preferences_held([porto, three[1], pop], 3, 0.05, ON) == [three[1]]  # the rest < 0.2
    assert preferences_held([porto, three[1], pop], 30, 0.05, ON) == [three[1]]  # all there is
    assert preferences_held([porto, three[1]], 30, 0.3, ON) is None  # a floor above theirs


def test_candidates_are_read_in_the_questions_language_which_is_told_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Telling 30 candidates' languages one by one cost ~2 ms a request where memories are not
    read twice (a cache does not help a real user's many distinct memories)."""
    from memory_extproc import words

    told: list[str] = []
    real = words.latin_language
    monkeypatch.setattr(words, "latin_language", lambda text: told.append(text) or real(text))
    words.clear_cache()
    question = "¿Dónde trabaja mi hermana ahora?"
    found = hit("La hermana del usuario trabaja en un hospital de Lima", 0.5)
    other = hit("El usuario tiene un perro llamado Toby", 0.5)
    ranked = rank(question, [other, found, *(hit(f"Nota {i} del usuario", 0.3) for i in range(28))],
                  0.6, 5, ON, language="es")  # fmt: skip
    assert ranked[0] is found  # "trabaj", "herman": Spanish stems, as the question's
    assert told == []
