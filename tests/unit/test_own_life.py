"""Which requests refer to the user's own home or work, in each filed language."""

from __future__ import annotations

import pytest

from memory_extproc.retrieval.own_life import Own, asked, referred, says

REFERS = [
    ("What's the weather usually like where I live this time of year?", (Own.HOME,)),
    ("Any good restaurants near me?", (Own.HOME,)),
    ("What can we do this weekend in our neighborhood?", (Own.HOME,)),
    ("What should I eat before work?", (Own.WORK,)),
    ("Can I swap my shift on Friday?", (Own.WORK,)),
    ("Hast du Ausflugstipps in der Nähe meiner Stadt?", (Own.HOME,)),
    ("Was soll ich vor der Arbeit essen?", (Own.WORK,)),
    ("¿Qué hago este finde cerca de casa?", (Own.HOME,)),
    ("¿Qué me recomiendas comer antes de ir a trabajar?", (Own.WORK,)),
    ("我家附近有什么好玩的？", (Own.HOME,)),
    ("上班前吃什么好？", (Own.WORK,)),
    ("近所でおすすめの店はある？", (Own.HOME,)),
    ("仕事の前に何を食べたらいい？", (Own.WORK,)),
    ("うちの近くで週末行けるおすすめスポットある？", (Own.HOME,)),
    ("Any cafés near me where I could work before my shift?", (Own.HOME, Own.WORK)),
]
NEITHER = [
    "What is the capital of Peru?",
    "How do I get this script to work?",
    "How does this function work?",
    "What did Melanie do at work?",  # a third person's work: LoCoMo's questions
    "How do I run this locally?",
    "Why did Maria join a nearby church recently?",  # not the user's: LoCoMo
    "Can you review my work on this essay?",
    "Was hat Anna auf der Arbeit gemacht?",
    "What is my manager's name?",  # a person at work, asked by name: the bench's own question
    "¿Qué hizo María en el trabajo?",
    "这个函数怎么工作？",
    "如何在本地安装？",
    "¿Cuál es la capital de Perú?",
    # a review's near misses: a place that is not the user's, work that is not a job, or
    # someone else's
    "In der Nähe von Rom gibt es was?",
    "Cerca de mi universidad hay algo?",
    "当地时间和UTC差几个小时？",
    "周边设备驱动怎么装？",
    "この関数の近くでエラーが出る",
    "シフト演算子の使い方は？",
    "My husband is always late for work",
    "Meine Arbeit über Kant ist fertig.",
]


@pytest.mark.parametrize(("text", "refers"), REFERS)
def test_a_request_that_refers_to_the_users_home_or_work(text: str, refers: tuple[Own]) -> None:
    assert referred(text) == refers


@pytest.mark.parametrize("text", NEITHER)
def test_a_request_that_does_not(text: str) -> None:
    assert referred(text) == ()


def test_each_is_asked_in_the_requests_language() -> None:
    assert asked(Own.HOME, "de") == "Wo wohnt der Nutzer?"
    assert asked(Own.WORK, "zh") == "工作"
    assert asked(Own.HOME, "pt") == "Where does the user live?"  # no file: English


@pytest.mark.parametrize(
    ("own", "memory", "said"),
    [
        (Own.HOME, "User lives in Tucson", True),
        (Own.HOME, "User moved to Porto for a new job", True),
        (Own.HOME, "I live in Denver and my dentist is Dr. Okafor", True),  # a note
        (Own.HOME, "User's sister lives in Porto", False),
        (Own.HOME, "Die Schwester des Nutzers wohnt in Berlin", False),
        (Own.HOME, "用户的姐姐住在上海", False),
        (Own.WORK, "User works as a line cook at Harlow's", True),
        (Own.WORK, "El usuario trabaja como enfermero en urgencias", True),
        (Own.WORK, "User's sister works as a nurse", False),
        (Own.WORK, "User is working on a painting", False),
    ],
)
def test_only_a_memory_that_says_it(own: Own, memory: str, said: bool) -> None:
    assert says(own, memory) is said
