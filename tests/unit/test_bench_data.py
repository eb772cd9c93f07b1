"""`make bench` asks its questions in English, Chinese, Spanish and German: each kind must take
the path a question in its language takes (multilingual-e5 for all but English), ask about the
same memory, and never repeat."""

import random

import pytest

from bench.dataset import Questions, facts_and_questions, in_language, said
from memory_extproc.languages import language_of


@pytest.mark.parametrize("language", ["zh", "es", "de"])
def test_every_question_has_one_in_each_language_read_as_that_language(language: str) -> None:
    questions = {question for _, question in facts_and_questions()}
    written = {in_language(question, language) for question in questions}
    assert len(written) == len(questions)
    assert {language_of(text) for text in written} == {language}


def test_questions_are_written_as_their_speakers_write_them() -> None:
    asked = "where does my best friend live?"
    assert in_language(asked, "zh") == "我的最好的朋友住在哪里？"
    assert in_language(asked, "es") == "¿Dónde vive mi mejor amigo?"
    assert in_language(asked, "de") == "Wo wohnt mein bester Freund?"
    assert in_language("what is my sister's favourite book?", "de") == (
        "Was ist das Lieblingsbuch von meiner Schwester?"
    )
    assert in_language(asked, "en") == asked


def test_a_question_is_never_asked_twice() -> None:
    asked = Questions(random.Random(0))
    texts = [asked.ask("what food am I allergic to?", language="zh") for _ in range(60)]
    assert len(set(texts)) == 60
    assert all("我对什么食物过敏？" in text for text in texts)


def test_each_owner_of_a_fact_says_it_in_its_own_words() -> None:
    """No per-text cache of the processor may answer for the work a deployment's distinct
    memories cost it."""
    fact = "My sister lives in Lisbon"
    ways = [said(fact, way) for way in range(100)]
    assert len(set(ways)) == 100
    assert ways[0] == fact
    assert all("sister lives in Lisbon" in text for text in ways)
    assert said(fact, 11) == "Just so you know, my sister lives in Lisbon these days"
    with pytest.raises(ValueError, match="only 100 ways"):
        said(fact, 100)
