"""eval/crosslang.py: the pairs are what they say they are, and recall is scored as documented."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from eval.crosslang import DISTRACTORS, EN_ES, EN_ZH, ES_EN, PAIRS, ZH_EN, Pair, has_cjk, recalled

# words that are Spanish and not English (no "me", "a", "no", "son": both)
_SPANISH = frozenset(
    "el la los las del al que qué y mi mis un una por para con es está estoy soy tengo vivo "
    "cómo cuál cuánto dónde cuándo se suelo debería algo en de usuario ponme puedo porque".split()
)
_ENGLISH = frozenset("i i'm my me the is a an what which where how am do to for".split())
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
USER_WORD = {"zh": "用户", "en": "User", "es": "El usuario"}


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("\u2019", "'")))


def language(text: str) -> str:
    """zh by script; es by Spanish-only function words; en otherwise."""
    if has_cjk(text):
        return "zh"
    return "es" if len(words(text) & _SPANISH) >= 2 else "en"


def pair(answer: str, said_in: str = "en") -> Pair:
    return Pair("t", said_in, "zh", "", "", "", answer)


def test_the_set_has_its_directions_and_a_quarter_open_requests() -> None:
    assert (len(ZH_EN), len(EN_ZH), len(ES_EN), len(EN_ES)) == (12, 12, 6, 6)
    assert Counter((p.said_in, p.asked_in) for p in PAIRS) == {
        ("zh", "en"): 12, ("en", "zh"): 12, ("es", "en"): 6, ("en", "es"): 6,
    }  # fmt: skip
    assert len({p.key for p in PAIRS}) == len(PAIRS)
    assert 0.2 <= sum(p.open for p in PAIRS) / len(PAIRS) <= 0.3
    assert all(8 <= len(DISTRACTORS[lang]) <= 10 for lang in ("zh", "en", "es"))


@pytest.mark.parametrize("item", PAIRS, ids=lambda p: p.key)
def test_each_pair_is_said_and_asked_in_its_own_languages(item: Pair) -> None:
    assert item.said_in != item.asked_in
    assert language(item.said) == item.said_in
    assert language(item.fact) == item.said_in
    assert language(item.question) == item.asked_in
    assert item.fact.startswith(USER_WORD[item.said_in])
    if item.asked_in == "en":  # plainly English, not merely "not Spanish"
        assert words(item.question) & _ENGLISH
        assert not words(item.question) & _SPANISH


@pytest.mark.parametrize("item", PAIRS, ids=lambda p: p.key)
def test_each_fact_holds_its_answer_and_no_other_memory_does(item: Pair) -> None:
    assert recalled([item.fact], item)
    assert has_cjk(item.answer) == (item.said_in == "zh")  # the answer is in the fact's language
    others = [p.fact for p in PAIRS if p is not item] + [
        d for ds in DISTRACTORS.values() for d in ds
    ]
    assert not recalled(others, item)


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_distractors_are_in_their_language_and_about_the_user(lang: str) -> None:
    for text in DISTRACTORS[lang]:
        assert language(text) == lang, text
        assert text.startswith((USER_WORD[lang], "User's")), text


def test_a_cjk_answer_is_matched_inside_a_run_of_characters() -> None:
    assert recalled(["[2026-01-01] 用户对花生过敏", "用户住在杭州"], pair("花生", "zh"))
    assert recalled(["用户预算在6000元以内"], pair("6000元", "zh"))
    assert recalled(["用户预算是６,０００元"], pair("6000元", "zh"))  # full-width, grouped
    assert not recalled(["用户预算是16000元"], pair("6000元", "zh"))  # not a longer number
    assert not recalled(["用户对芝麻过敏"], pair("花生", "zh"))
    assert not recalled([], pair("花生", "zh"))


def test_a_latin_answer_is_a_whole_word_in_any_case() -> None:
    assert recalled(["User prefers AISLE seats."], pair("aisle"))
    assert not recalled(["User walks the aisles of the market."], pair("aisle"))
    assert recalled(["El usuario es profesor de Matemáticas."], pair("matemáticas", "es"))
    assert not recalled(["El usuario es profesor de matematicas."], pair("matemáticas", "es"))
    assert recalled(["User's older brother TOMÁS is getting married."], pair("Tomás"))
    assert not recalled(["User's brother Tomássimo"], pair("Tomás"))
    assert recalled(["用户的哥哥叫Tomás。"], pair("Tomás"))  # a CJK neighbour is a boundary
    assert recalled(["User loves 80s Synth-Pop."], pair("synth-pop"))
    assert recalled(["User's wedding budget is $25000."], pair("25,000"))
    assert recalled(["Presupuesto: 3.000 euros"], pair("3000", "es"))
    assert not recalled(["Presupuesto: 13000 euros"], pair("3000", "es"))
    assert not recalled(["User picks up their son at 13:30."], pair("3:30"))
    assert recalled(["User has physical\u00a0therapy on Mondays."], pair("physical therapy"))
