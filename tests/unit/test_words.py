"""How messages are cut into sentences: the unit of a note and of what a message states."""

from __future__ import annotations

import pytest

from memory_extproc import words
from memory_extproc.words import sentences, terms


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("I live in Berlin. My manager is Priya!", ["I live in Berlin.", "My manager is Priya!"]),
        ("I moved to St. Louis in 2020. Dr. Smith is my GP.",
         ["I moved to St. Louis in 2020.", "Dr. Smith is my GP."]),
        ("We like e.g. Lisbon and Porto.", ["We like e.g. Lisbon and Porto."]),
        ("I said no. Then I left.", ["I said no.", "Then I left."]),
        ("我住在柏林。我的经理是Priya\uff01", ["我住在柏林。", "我的经理是Priya\uff01"]),
        ("first line\nsecond line", ["first line", "second line"]),
        # an emoji ends a chat's sentence before a capital, not a word inside one
        ("jetzt Leipzig-Plagwitz 🙌 Wie find ich hier einen Bäcker?",
         ["jetzt Leipzig-Plagwitz 🙌", "Wie find ich hier einen Bäcker?"]),
        ("搬到苏州了😅 有什么推荐？", ["搬到苏州了😅", "有什么推荐？"]),
        ("I love 🍕 and sushi", ["I love 🍕 and sushi"]),
        ("", []),
    ],
)  # fmt: skip
def test_sentences(text: str, cut: list[str]) -> None:
    assert sentences(text) == cut


def test_long_texts_are_read_but_never_kept_in_the_cache() -> None:
    answer = "The weather in Berlin is mild today. " * 100  # an LLM answer, read once
    before = words._short_terms.cache_info().currsize
    assert terms(answer) == {"weather", "berlin", "mild", "today"}
    assert words._short_terms.cache_info().currsize == before
    assert terms("I live in Berlin") == {"live", "berlin"}  # a memory: kept
    assert words._short_terms.cache_info().currsize == before + 1


def test_words_are_stemmed_by_snowball_in_c() -> None:
    # A word never stemmed before costs ~1.3 us in C and ~38 us in Snowball's pure Python, with
    # the same stems: a deployment's memories keep bringing new words to the request path.
    import snowballstemmer
    import Stemmer

    assert snowballstemmer.stemmer is Stemmer.Stemmer
    assert words.stemmer("es")("vendió") == words.stemmer("es")("vendí") == "vend"
