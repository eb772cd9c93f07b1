"""The reconcile decisions alone: what words and scores decide without a store or a model."""

from __future__ import annotations

import pytest

from memory_extproc.memories.reconcile import (
    POLICY,
    ByWords,
    by_words,
    ended_query,
    ended_target,
    ending,
    overruled,
)
from memory_extproc.store.model import Memory, ScoredMemory


def held(text: str, score: float) -> ScoredMemory:
    return ScoredMemory(Memory.new("alice", text), score)


BUDGET = held("User's budget for the Hawaii trip is $10,000", 0.8)


def test_a_changed_value_revises_the_memory_it_changes() -> None:
    decided = by_words("User's budget for the Hawaii trip is now $15,000", [BUDGET], POLICY)
    assert decided is not None
    assert decided.revision is not None
    assert decided.revision.target is BUDGET
    assert decided.revision.content == "User's budget for the Hawaii trip is now $15,000"


def test_a_restatement_adds_nothing_unless_an_explicit_add_rewords_it() -> None:
    said = "User's budget for the Hawaii trip is $10,000"
    assert by_words(said, [BUDGET], POLICY) == ByWords(None, noop=True)
    reworded = by_words(said, [BUDGET], POLICY, reword=True)
    assert reworded is not None
    assert reworded.revision is not None
    assert reworded.revision.reason == "restated"


def test_an_ending_names_what_it_ended() -> None:
    job = held("User works at Google", 0.7)
    decided = by_words("User quit their job at Google", [job], POLICY)
    assert decided is not None
    assert decided.revision is not None
    assert decided.revision.content == (
        "User quit their job at Google (previously: User works at Google)"
    )


@pytest.mark.parametrize(
    ("held_text", "said", "revised"),
    [
        ("用户开一辆本田思域", "用户卖掉了车", "用户卖掉了车（以前：用户开一辆本田思域）"),
        ("El usuario vive en Sevilla", "El usuario se mudó a Madrid",
         "El usuario se mudó a Madrid (antes: El usuario vive en Sevilla)"),
        ("User quit their job at Acme (previously: User works at Acme)", "User retired",
         "User retired (previously: User quit their job at Acme)"),
        ("用户辞职了（以前：用户在Acme工作）", "用户退休了", "用户退休了（以前：用户辞职了）"),
    ],
)  # fmt: skip
def test_an_ending_names_what_it_ended_in_its_own_language(
    held_text: str, said: str, revised: str
) -> None:
    """A Chinese memory read "用户卖掉了车 (previously: …)"; what the ended memory had itself
    ended is not carried on."""
    assert ending(held(held_text, 0.5), said, "ended").content == revised


def test_words_that_cannot_tell_leave_it_to_the_model_or_to_a_new_memory() -> None:
    assert by_words("User likes sushi", [held("User likes pizza", 0.63)], POLICY) is None


def test_a_near_copy_is_the_same_memory() -> None:
    copy = held("User goes hiking in mountains at weekends", POLICY.same_memory)
    decided = by_words("User enjoys hiking in the mountains on weekends", [copy], POLICY)
    assert decided is not None
    assert decided.revision is not None
    assert decided.revision.target is copy
    below = held("User goes hiking in mountains at weekends", POLICY.same_memory - 0.01)
    assert by_words("User enjoys hiking in the mountains on weekends", [below], POLICY) is None


def test_a_near_copy_that_says_less_leaves_the_memory_as_it_is() -> None:
    """German writes the allergy as one word: the same memory by e5's score, fewer words."""
    fuller = "Der Nutzer ist allergisch gegen Erdnüsse"
    near = held(fuller, POLICY.same_memory_for(fuller))
    assert by_words("Der Nutzer hat eine Erdnussallergie", [near], POLICY) == ByWords(
        None, noop=True
    )
    reworded = by_words("Der Nutzer hat eine Erdnussallergie", [near], POLICY, reword=True)
    assert reworded is not None
    assert reworded.revision is not None


def test_in_another_language_the_same_memory_bar_is_e5s() -> None:
    """e5 scores two Spanish memories on one trip higher than MiniLM scores their English:
    booking flights is not the budget at 0.90, a restatement at 1.10 is the same memory."""
    budget = "El usuario tiene un presupuesto de 10,000 dólares para el viaje a Hawái"
    booking = "El usuario está reservando vuelos para el viaje a Hawái"
    assert by_words(booking, [held(budget, 0.904)], POLICY) is None
    decided = by_words(booking, [held(budget, POLICY.same_memory_for(booking))], POLICY)
    assert decided is not None
    assert (
        POLICY.same_memory_for(booking)
        > POLICY.same_memory
        == POLICY.same_memory_for("User is booking flights for the Hawaii trip")
    )
    near = held(budget, 0.75)  # asked about in English, not yet in Spanish
    assert POLICY.asked_about("User is booking flights", [near], changes=False) == [near]
    assert POLICY.asked_about(booking, [near], changes=False) == []


def test_an_ending_finds_what_it_ends_only_when_one_memory_is_clearly_nearest() -> None:
    assert ended_query("User sold my car") == "car"
    civic, other = held("User drives a 2015 Civic", 0.28), held("User lives in Porto", 0.2)
    assert ended_target([civic, other], "User sold their car", POLICY) is civic
    close = held("User rents a parking space", 0.27)
    assert ended_target([civic, close], "User sold their car", POLICY) is None


def test_without_a_change_word_only_a_close_pair_is_asked_about() -> None:
    far, near = held("User likes pizza", 0.63), held("User lives in Boston", 0.75)
    assert POLICY.asked_about("User likes pizza", [far], changes=False) == []
    assert POLICY.asked_about("User likes pizza", [near, far], changes=False) == [near]
    assert POLICY.asked_about("User likes pizza", [far, near], changes=True) == [far, near]


@pytest.mark.parametrize(
    ("said", "near"),
    [
        ("El usuario nació en Austin", "El usuario vive en Austin desde hace años"),
        ("User's brother lives in Denver", "User lives in Denver"),
    ],
)
def test_a_near_vector_does_not_make_a_birthplace_or_a_relatives_fact_the_same_memory(
    said: str, near: str
) -> None:
    """e5 scores such pairs over the same-memory bar; they are two memories."""
    assert by_words(said, [held(near, 0.99)], POLICY) is None
    assert by_words("User lives in Denver now", [held(near, 0.99)], POLICY) is not None


def said_on(day: int, text: str) -> Memory:
    return Memory.new("alice", text, created_at=day * 86_400_000)


def test_of_two_that_conflict_the_newer_overrules_the_older_either_way_round() -> None:
    old = said_on(1, "My Hawaii budget is $10,000")
    new = said_on(2, "Actually my Hawaii budget is now $15,000")
    other = said_on(1, "Likes window seats")
    for written, held_ in ((new, [other, old]), (old, [new, other])):  # a replayed older turn
        (verdict,) = overruled(written, held_)
        assert (verdict.loser, verdict.winner, verdict.reason) == (
            old,
            new,
            "changed by a newer memory",
        )


def test_of_two_that_say_the_same_the_one_that_says_more_stays_whichever_is_newer() -> None:
    more = said_on(1, "Maria has been volunteering at a shelter, finding it rewarding")
    less = said_on(2, "Maria volunteers at a shelter")
    (verdict,) = overruled(less, [more])
    assert (verdict.loser, verdict.winner, verdict.reason) == (less, more, "restated")


@pytest.mark.parametrize(
    ("less", "more"),
    [
        ("El usuario es del Betis", "El usuario es del Betis de toda la vida, por su abuelo"),
        ("User plays the cello", "User plays the cello in an orchestra with her cousin"),
    ],
)
def test_a_fact_said_again_later_with_more_replaces_what_it_says_more_of(
    less: str, more: str
) -> None:
    """A person named only in what the later one adds is no other person's fact."""
    older, newer = said_on(1, less), said_on(2, more)
    for written, held_ in ((newer, [older]), (older, [newer])):
        (verdict,) = overruled(written, held_)
        assert (verdict.loser, verdict.winner, verdict.reason) == (older, newer, "restated")
    # …but a relative's is theirs: "User's sister is vegan" does not say "User is vegan"
    assert overruled(said_on(2, "User's sister is vegan"), [said_on(1, "User is vegan")]) == []


def test_a_written_memory_that_loses_is_not_compared_further() -> None:
    new = said_on(3, "Actually my Hawaii budget is now $15,000")
    old = said_on(2, "My Hawaii budget is $10,000")
    older = said_on(1, "My Hawaii budget is $8,000")
    assert [(v.loser, v.winner) for v in overruled(old, [new, older])] == [(old, new)]


def test_memories_of_one_moment_and_unrelated_ones_are_left_alone() -> None:
    budget = said_on(1, "My Hawaii budget is $10,000")
    assert overruled(budget, [said_on(1, "My Hawaii budget is $15,000")]) == []
    assert overruled(budget, [said_on(2, "Likes window seats")]) == []
