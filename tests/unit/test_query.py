from __future__ import annotations

from memory_extproc.retrieval.query import build_search_query, is_self_contained, key_terms


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
