"""`make bench` asks its questions in English and in Chinese: the Chinese kind must take the
path a Chinese question takes (multilingual-e5), ask about the same memory, and never repeat."""

import random

from bench.dataset import Questions, facts_and_questions, in_chinese
from memory_extproc.languages import language_of


def test_every_question_has_a_chinese_one_read_as_chinese() -> None:
    questions = {question for _, question in facts_and_questions()}
    chinese = {in_chinese(question) for question in questions}
    assert len(chinese) == len(questions)
    assert {language_of(text) for text in chinese} == {"zh"}
    assert in_chinese("where does my best friend live?") == "我的最好的朋友住在哪里？"


def test_a_chinese_question_is_never_asked_twice() -> None:
    asked = Questions(random.Random(0))
    texts = [asked.ask("what food am I allergic to?", chinese=True) for _ in range(60)]
    assert len(set(texts)) == 60
    assert all("我对什么食物过敏？" in text for text in texts)
