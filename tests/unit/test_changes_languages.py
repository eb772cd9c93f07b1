"""The truth rules (restated, changed, corrected, ended) in Chinese and Spanish: pure.

Pairs as the scripted model writes facts and as notes keep the user's own sentence; each names
the behaviour of the English rule it mirrors (tests/unit/test_changes.py).
"""

from __future__ import annotations

import pytest

from memory_extproc.memories.changes import (
    Change,
    compare,
    corrected,
    ended_object,
    says_change,
    says_switch,
)
from memory_extproc.memories.reconcile import ended_query
from memory_extproc.worker.echo import statements


@pytest.mark.parametrize(
    ("new", "old", "said", "expected"),
    [
        # a new value in the same frame, said to have changed
        ("用户是纯素食者", "用户是蛋奶素食者", "我现在已经完全改吃纯素了。", Change.CHANGED),
        ("用户夏威夷旅行的预算现在是15000美元", "用户夏威夷旅行的预算是10000美元", "",
         Change.CHANGED),
        ("用户坐飞机喜欢靠过道座位", "用户坐飞机喜欢靠窗座位", "最近坐飞机我更喜欢靠过道的座位。",
         Change.CHANGED),
        ("El usuario es vegano", "El usuario es vegetariano", "Ahora ya soy completamente vegano.",
         Change.CHANGED),
        ("El usuario paga 13,500 pesos de renta al mes",
         "El usuario paga 12,000 pesos de renta al mes", "", Change.CHANGED),
        # the user's own sentences (notes): the pronoun Spanish drops, the "改" Chinese adds
        ("我现在已经完全改吃纯素了。", "我是吃蛋奶素的。", "", Change.CHANGED),
        ("Ahora ya soy completamente vegano.", "Soy vegetariano.", "", Change.CHANGED),
        # "更喜欢" (prefer) in the frame of "喜欢": a new value, not a restatement
        ("最近坐飞机我更喜欢靠过道的座位。", "坐飞机我喜欢靠窗的座位。", "", Change.CHANGED),
        # a restatement in other words adds nothing
        ("用户为夏威夷旅行留出了10000美元", "用户夏威夷旅行的预算是10000美元", "",
         Change.RESTATED),
        ("跟你说一声，我给夏威夷之行专门留了10000美元。",
         "我这次去夏威夷旅行的预算是10000美元。", "", Change.RESTATED),
        ("El usuario tiene 10,000 dólares apartados para el viaje a Hawái",
         "El usuario tiene un presupuesto de 10,000 dólares para el viaje a Hawái", "",
         Change.RESTATED),
        # two things that can both be true: no change word, a word slot
        ("用户喜欢吃苹果", "用户喜欢吃香蕉", "我喜欢吃苹果。", None),
        ("我更喜欢喝茶。", "我喜欢喝茶。", "", Change.RESTATED),
        ("El usuario vive en Sevilla", "El usuario vive en Madrid", "Vivo en Sevilla.", None),
        # unrelated
        ("用户最喜欢的乐队是五月天", "用户每月房租4500元", "", None),
        # an ending that names what it ends
        ("用户从Acme公司辞职了", "用户在Acme公司担任设计师", "我上个月从Acme公司辞职了。",
         Change.ENDED),
        # a correction of the user's own sentence
        ("我之前说波士顿是口误，我想说的是奥斯汀。", "我住在波士顿。", "", Change.CORRECTED),
        ("Dije Boston, pero quise decir Austin.", "Vivo en Boston.", "", Change.CORRECTED),
    ],
)  # fmt: skip
def test_truth_rules_read_chinese_and_spanish(
    new: str, old: str, said: str, expected: Change | None
) -> None:
    assert compare(new, old, change_said=says_change(said)) is expected


@pytest.mark.parametrize(
    ("said", "old", "fixed"),
    [
        ("我之前说波士顿是口误，我想说的是奥斯汀。", "我住在波士顿。", "我住在奥斯汀。"),
        ("不好意思，之前打错字了，我女儿叫欣怡，不是心怡。", "我女儿叫心怡。", "我女儿叫欣怡。"),
        ("不是波士顿，是奥斯汀。", "用户住在波士顿", "用户住在奥斯汀"),
        ("Perdón, dije Valeria, pero quise decir Valentina.", "Mi hija se llama Valeria.",
         "Mi hija se llama Valentina."),
        ("No Boston, sino Austin.", "Vivo en Boston.", "Vivo en Austin."),
        # an amount said with its unit is the amount, not the unit
        ("Wait, sorry, it's 54 people, not 45.", "User's party will have 45 people coming",
         "User's party will have 54 people coming"),
        ("Perdón, son 150 invitados, no 120.", "La boda tiene 120 invitados",
         "La boda tiene 150 invitados"),
        ("Sorry, es sind 54 Leute, nicht 45.", "Zur Feier kommen 45 Leute",
         "Zur Feier kommen 54 Leute"),
        ("Oops, I mean Austin, not Boston.", "I live in Boston.", "I live in Austin."),
        # an amount beside a Chinese character is a word of its own (not "1700")
        ("啊不对，是900，不是700。", "份子钱我打算包700。", "份子钱我打算包900。"),
    ],
)  # fmt: skip
def test_a_correction_is_applied_to_the_statement_it_corrects(
    said: str, old: str, fixed: str
) -> None:
    assert corrected(old, said) == fixed


@pytest.mark.parametrize(
    ("said", "named"),
    [
        ("我上周把车卖了。", "车"),
        ("用户从Acme公司辞职了", "Acme公司"),
        ("我和男朋友分手了", "男朋友"),
        ("Vendí mi carro la semana pasada.", "carro"),
        ("El usuario renunció a su trabajo en Acme Corp", "trabajo en Acme Corp"),
        ("I sold my car last week.", "car"),
        # said colloquially
        ("I kicked the soda habit a few weeks back.", "soda habit"),
        ("I finally walked away from the agency.", "agency"),
        ("Mit Handball ist Schluss, mein Rücken macht nicht mehr mit.", "Handball"),
        ("Ich hab das Rauchen an den Nagel gehängt.", "Rauchen"),
        ("膝盖伤了，网球是打不了了。", "网球"),
    ],
)
def test_an_ending_names_what_it_ends(said: str, named: str) -> None:
    assert ended_query(said) == named


@pytest.mark.parametrize(
    "text",
    [
        "我上个月开始学大提琴了。",
        "Empecé a tomar clases de violonchelo.",
        "我喜欢吃苹果。",
        "我不打算去了。",
    ],
)
def test_a_new_fact_says_no_change(text: str) -> None:
    assert not says_change(text)
    assert ended_object(text) is None


@pytest.mark.parametrize(
    ("text", "switch"),
    [
        ("我今年春天转行了，现在是面包师。", True),
        ("Este año me hice panadero.", True),
        ("我新养了一只猫。", False),  # something new replaces nothing
        ("Tengo un perro nuevo.", False),
    ],
)
def test_a_switch_is_read_in_chinese_and_spanish(text: str, switch: bool) -> None:
    assert says_switch(text) is switch


# Latin-script statements with what could tempt a pattern: commas and numbers, "not X, but Y",
# full-width punctuation and digits, accents, quotes
_LATIN = [
    "I said Boston, I meant Austin.",
    "Not 7, but 8: Lily turns 8 next week!",
    "User moved to Seattle，now lives near the lake。",
    "El usuario se mudó a Madrid, ya no vive en Sevilla; dije 40, quise decir 41.",
    "Ich meinte 8, nicht 7. Der Nutzer ist nach München gezogen, nicht nach Köln.",
    "My rent went up: it's $1,350 a month now, not $1,200 (sorry!)",
    "User's sister works as a nurse; she quit last month and now teaches \uff12nd grade.",
    "« Je l'ai dit », 'so' — \uff21\uff22\uff23\uff11\uff12 full-width, and ASCII text",
]


@pytest.mark.parametrize("text", _LATIN)
def test_without_chinese_or_japanese_the_unspaced_languages_patterns_find_nothing(
    text: str,
) -> None:
    """Text without their script is searched with the spaced languages' patterns alone
    (change_words.Merged, InTurn): each of the others must find nothing in it."""
    from memory_extproc.memories import change_words

    merged = {n: p for n, p in vars(change_words).items() if isinstance(p, change_words.Merged)}
    in_turn = [p for p in vars(change_words).values() if isinstance(p, change_words.InTurn)]
    assert len(merged) >= 8
    assert len(in_turn) == 2
    for name, pattern in merged.items():
        every, spaced = pattern.every.search(text), pattern.spaced.search(text)
        assert (every and every.span()) == (spaced and spaced.span()), name
    for patterns in in_turn:
        unspaced = [p for p in patterns.every if p not in patterns.spaced]
        assert unspaced
        assert not [p.pattern for p in unspaced if p.search(text)]


def test_chinese_and_japanese_are_searched_with_their_own_patterns() -> None:
    assert says_change("用户现在住在上海")
    assert says_change("ユーザーは車を売りました")
    assert ended_object("我上个月把车卖了") is not None
    assert corrected("用户的女儿今年7岁", "不是7岁，是8岁") == "用户的女儿今年8岁"


def test_the_users_relative_said_in_the_german_genitive_is_the_same_frame() -> None:
    """ "Der Mann des Nutzers, Markus" is the user's husband as "Der Mann Markus" is: a new age
    for him changes the old one (the resolved date aside), as "User's husband Mark" does."""
    old = "Der Mann Markus wird in der Woche nach dem 2026-12-06 40 Jahre alt"
    assert compare("Der Mann des Nutzers, Markus, wird 41", old) is Change.CHANGED
    assert compare("Der Bruder des Nutzers, Tobias, wohnt in Hamburg", old) is None
    # "Mann" is a person of the user's, not a stopword: the fact said again with when is one
    said_again = "Der Mann des Nutzers, Markus, wird im Dezember 41"
    assert compare(said_again, "Der Mann des Nutzers, Markus, wird 41") is Change.RESTATED


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # a stay, or "since" said of something else, is no move
        ("I'm living in Paris for a few weeks for work.", "User lives in New York"),
        ("I live in a small flat and have been sick since last week.", "User lives in Denver"),
        ("We've been living in chaos since last week.", "User lives in Denver"),
        ("Seit letztem Monat leben wir in ständiger Angst.", "Der Nutzer wohnt in Bremen"),
        ("Wir wohnen in einem Altbau. Seit letzter Woche renovieren wir.",
         "Der Nutzer wohnt in Bremen"),
        ("Wir wohnen seit Anfang 2010 in Hamburg.", "Der Nutzer wohnt in Bremen"),
        ("Vivimos en una pesadilla desde hace dos semanas", "El usuario vive en Sevilla"),
        ("我们从上个月开始住在一起。", "用户住在上海"),
        # a start, a clipping, one day's game, a mother's habit: no ending
        ("I kicked off my new job at Google last week.", "User works at Google"),
        ("I cut out a recipe for lasagna.", "User loves lasagna"),
        ("今天下雨，我们不踢球了。", "用户每周踢球"),
        ("今天太累了，钢琴弹不动了。", "用户每天弹钢琴"),
        ("我妈妈不喝咖啡了", "用户每天喝咖啡"),
        # a relative's fact, whatever the order of its words, is not the user's
        ("In Berlin wohnt die Schwester des Nutzers", "Der Nutzer wohnt in Berlin"),
        ("Der Nutzer wohnt in Berlin", "In Berlin wohnt die Schwester des Nutzers"),
        ("Le gusta el jazz a la hermana del usuario", "Al usuario le gusta el jazz"),
        ("Al usuario le gusta el jazz", "Le gusta el jazz a la hermana del usuario"),
    ],
)  # fmt: skip
def test_ordinary_sentences_end_restate_or_move_nothing(new: str, old: str) -> None:
    assert compare(new, old) is None


@pytest.mark.parametrize(
    "said",
    ["もし大阪に引っ越すとしたら、どの区がいい？", "それで、どうする？"],  # a condition, a filler
)
def test_a_japanese_question_that_states_nothing_is_dropped(said: str) -> None:
    assert statements(said) == ""


@pytest.mark.parametrize(
    ("new", "old", "change"),
    [
        # a routine on the same weekday, said to have changed, replaces the old one
        ("Saturday mornings are yoga now, my knees gave up on football.",
         "I play five-a-side football every Saturday morning with the Rovers.", Change.ENDED),
        ("Das Knie macht nicht mehr mit, freitags geh ich jetzt schwimmen.",
         "Freitags spiel ich Volleyball im Verein.", Change.ENDED),
        ("Ahora los sábados hago yoga", "Los sábados juego al fútbol en el parque",
         Change.ENDED),
        ("现在每周六改去练瑜伽了", "我每周六都去踢足球", Change.ENDED),
        ("今は毎週土曜にヨガをしています", "毎週土曜にサッカーをしています", Change.ENDED),
        # …not a second routine, another day, someone else's, or said without a change
        ("I now also do yoga on Saturdays", "I play football every Saturday", None),
        ("Sundays are yoga now", "I play football every Saturday", None),
        ("My son now has swimming on Saturdays", "I play football every Saturday", None),
        ("I do yoga on Saturdays", "I play football every Saturday", None),
    ],
)  # fmt: skip
def test_a_new_routine_on_a_weekday_replaces_the_old_one(
    new: str, old: str, change: Change | None
) -> None:
    assert compare(new, old) is change
