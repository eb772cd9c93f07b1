from __future__ import annotations

import pytest

from memory_extproc.retrieval.query import build_search_query, is_self_contained, key_terms
from memory_extproc.words import in_memory_voice


def test_self_contained_query_is_used_as_is() -> None:
    query = "What's my budget for the Hawaii trip?"
    assert is_self_contained(query)
    assert build_search_query(query, ["Planning a vacation"]) == query


def test_vague_query_gets_key_terms_of_the_last_three_earlier_messages() -> None:
    history = ["I like skiing", "Planning a vacation", "Hawaii sounds nice", "Maybe in June"]
    query = build_search_query("How much?", history)
    assert query.startswith("How much?")
    assert "hawaii" in query
    assert "vacation" in query
    assert "june" in query
    assert "skiing" not in query  # older than the last three


def test_long_but_vague_openers_are_not_self_contained() -> None:
    assert not is_self_contained("And that one, the one from before?")


def test_without_history_the_vague_query_stays_alone() -> None:
    assert build_search_query("  How much?  ", []) == "How much?"


def test_key_terms_drop_stopwords_and_repeats_and_keep_amounts() -> None:
    assert key_terms("My budget is $10,000 and the budget is firm") == ["budget", "10,000", "firm"]


def test_huge_messages_are_cut_before_embedding() -> None:
    assert len(build_search_query("my notes: " + "x" * 5_000_000, [])) == 1000
    assert len(build_search_query("How much?", ["y" * 5_000_000])) == 1000


@pytest.mark.parametrize(
    ("said", "voiced"),
    [
        ("Where do I live?", "Where do User live?"),
        ("My budget? I'm saving, I've spent", "User's budget? User is saving, User has spent"),
        ("I\u2019ll go; remind me, it's mine", "User will go; remind User, it's User's"),
        ("Myself I am here", "User User is here"),
        ("In India, Iris and Imogen meet", "In India, Iris and Imogen meet"),  # words, not letters
        ("where do i live? i'm lost", "where do User live? User is lost"),  # chat is lower case
        ("I'M SURE MY car", "User is SURE User's car"),
        ("I/O errors in print(I)", "I/O errors in print(I)"),  # not a pronoun
        ("User lives in Berlin", "User lives in Berlin"),
        # Turkish dotless and dotted i are not "I" (Unicode case folding matched them: a
        # KeyError, a 500 from POST /v1/memory/search, found by the API fuzz test)
        ("\u0131 \u0130 \u0131l\u0131k \u0130yi", "\u0131 \u0130 \u0131l\u0131k \u0130yi"),
    ],
)
def test_the_users_words_are_read_in_the_voice_their_memories_are_written_in(
    said: str, voiced: str
) -> None:
    assert in_memory_voice(said) == voiced
