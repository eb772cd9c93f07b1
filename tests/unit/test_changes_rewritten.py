"""Changes the product's own rewrites and the user's wording once hid (issue 67): a number
corrected after its date was resolved, a move in a later conversation, a job left without
naming it. In English, Chinese and Spanish, as facts and as notes keep the user's sentence."""

from __future__ import annotations

import pytest

from memory_extproc.memories.changes import Change, compare, corrected, ended_object
from memory_extproc.memories.judge import judge_messages
from memory_extproc.memories.relative_dates import dated, without_resolved_dates

DAY = "2026-12-06"


@pytest.mark.parametrize(
    ("new", "old_fact", "old_said"),
    [
        ("User's husband Mark is turning 41", "User's husband Mark turns 40 next week",
         "My husband Mark turns 40 next week, any party ideas?"),
        ("用户的丈夫马克即将满41岁", "用户的丈夫马克下周满40岁", "我老公马克下周就满40岁了。"),
        ("用户的丈夫马克即将满41岁", "用户的丈夫马克满40岁", "我老公马克下周就满40岁了。"),
        ("El marido del usuario, Marcos, cumple 41 años",
         "El marido del usuario, Marcos, cumple 40 años la semana que viene",
         "Mi marido Marcos cumple 40 la semana que viene."),
    ],
)  # fmt: skip
def test_a_resolved_date_does_not_hide_a_corrected_number(
    new: str, old_fact: str, old_said: str
) -> None:
    old = dated(old_fact, old_said, DAY)
    assert old != old_fact  # the date was written in
    assert compare(new, old) is Change.CHANGED


def test_what_the_product_wrote_as_a_date_is_taken_out_and_nothing_else() -> None:
    assert (
        without_resolved_dates("User moved to Seattle in November 2026") == "User moved to Seattle"
    )
    assert (
        without_resolved_dates("用户的丈夫马克满40岁（2026年12月6日后的一周）")
        == "用户的丈夫马克满40岁"
    )
    assert without_resolved_dates("El usuario se mudó el 2026-11-02") == "El usuario se mudó"
    assert without_resolved_dates("User's son is 11") == "User's son is 11"


def test_two_events_on_two_dates_are_not_one_restated_through_the_dates() -> None:
    new = "User went to a concert on 2026-11-20"
    assert compare(new, "User went to a concert on 2026-10-02") is not Change.RESTATED


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User's daughter Lily turns 7 the week after 2026-12-06", "User's daughter Lily turns 7"),
        ("用户的女儿莉莉满7岁（2026年12月6日后的一周）", "用户的女儿莉莉满7岁"),
        ("La hija del usuario, Lily, cumple 7 años la semana después del 2026-12-06",
         "La hija del usuario, Lily, cumple 7 años"),
    ],
)  # fmt: skip
def test_a_resolved_date_does_not_hide_a_restatement(new: str, old: str) -> None:
    assert compare(new, old) is Change.RESTATED


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User moved to Seattle in November 2026", "User has lived in Denver for five years"),
        ("Big news: we moved to Seattle last month.", "I've lived in Denver for five years."),
        ("I've just relocated to Lisbon.", "User lives in Porto"),
        ("用户2026年11月搬到了西雅图", "用户在丹佛住了五年"),
        ("告诉你个好消息，我们上个月搬到西雅图了。", "我在丹佛住了五年了。"),
        ("我两周前搬到芝加哥了。", "我在奥斯汀住了很多年了。"),
        ("El usuario se mudó a Seattle en noviembre de 2026",
         "El usuario vive en Denver desde hace cinco años"),
        ("¡Tengo noticias! Nos mudamos a Seattle el mes pasado.",
         "Vivo en Denver desde hace cinco años."),
    ],
)  # fmt: skip
def test_a_move_ends_where_the_user_lived(new: str, old: str) -> None:
    assert compare(new, old) is Change.ENDED


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User moved to Seattle", "User's brother lives in Austin"),  # someone else's home
        ("User's sister moved to Seattle", "User lives in Austin"),  # someone else's move
        ("我妹妹搬到了西雅图", "我住在丹佛"),
        ("Mi hermana se mudó a Madrid", "Vivo en Denver"),
        ("User moved to Seattle", "User works in Denver"),  # not where they live
    ],
)
def test_a_move_ends_nothing_but_the_users_home(new: str, old: str) -> None:
    assert compare(new, old) is not Change.ENDED


def test_a_move_within_the_city_it_names_does_not_end_it() -> None:
    assert compare("User moved to a bigger flat in Seattle", "User lives in Seattle") is not (
        Change.ENDED
    )


@pytest.mark.parametrize(
    ("said", "named"),
    [
        ("I quit last month, and now I teach at a primary school.", "job"),
        ("我上个月辞职了，现在在一所小学当老师。", "工作"),
        ("Renuncié la semana pasada.", "trabajo"),
        ("I quit.", "job"),
        # what it names, up to where a new clause starts
        ("User quit their hospital job last month and now teaches at a primary school",
         "their hospital job"),
        ("用户上个月辞去了医院的工作，现在在一所小学当老师", "医院的工作"),
        ("Dejé el trabajo el mes pasado y ahora soy maestra", "el trabajo"),
        ("I sold my car and my bike", "my car and my bike"),
    ],
)  # fmt: skip
def test_an_ending_names_what_it_ended_or_else_the_job(said: str, named: str) -> None:
    assert ended_object(said) == named


@pytest.mark.parametrize(
    ("said", "old", "mended"),
    [
        ("Oops, my mistake: Mark is turning 41, not 40.",
         "User's husband Mark turns 40 the week after 2026-12-06",
         "User's husband Mark turns 41 the week after 2026-12-06"),
        ("Sorry, it is $1,350, not $1,200.", "User pays $1,200 a month",
         "User pays $1,350 a month"),
        ("Uy, me equivoqué: Marcos cumple 41, no 40.",
         "El marido del usuario, Marcos, cumple 40 años la semana después del 2026-12-06",
         "El marido del usuario, Marcos, cumple 41 años la semana después del 2026-12-06"),
        # the verb said once, before the right value: "满" not written twice
        ("哎呀，我说错了：马克是满41岁，不是40岁。",
         "用户的丈夫马克满40岁（2026年12月6日后的一周）",
         "用户的丈夫马克满41岁（2026年12月6日后的一周）"),
    ],
)  # fmt: skip
def test_a_value_said_instead_of_another_mends_the_old_statement_with_its_date(
    said: str, old: str, mended: str
) -> None:
    assert compare(said, old) is Change.CORRECTED
    assert corrected(old, said) == mended


def test_one_thing_over_another_without_owning_a_mistake_corrects_nothing() -> None:
    assert corrected("User has two dogs", "I like cats, not dogs.") is None


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User's brother lives in Denver", "User lives in Denver"),
        ("用户的妹妹住在丹佛", "用户住在丹佛"),
        ("El hermano del usuario vive en Denver", "El usuario vive en Denver"),
    ],
)
def test_a_relatives_fact_is_not_the_users_restated(new: str, old: str) -> None:
    assert compare(new, old) is not Change.RESTATED
    assert compare(old, new) is not Change.RESTATED


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User teaches at a primary school", "User works as a nurse at a hospital"),
        ("I quit last month, and now I teach at a primary school.",
         "I work as a nurse at a hospital."),
        ("用户现在在一所小学当老师", "用户在一家医院当护士"),
        ("El usuario ahora es maestra en una escuela primaria",
         "El usuario trabaja de enfermera en un hospital"),
    ],
)  # fmt: skip
def test_work_said_to_have_changed_ends_the_old_work(new: str, old: str) -> None:
    """The 1.5B judge answered "still true" to each of these pairs."""
    assert compare(new, old, change_said=True) is Change.ENDED


@pytest.mark.parametrize(
    ("new", "old", "change_said"),
    [
        ("User also teaches yoga on weekends", "User works as a nurse at a hospital", True),
        ("用户周末也在瑜伽馆当教练", "用户在一家医院当护士", True),
        ("User's sister works as a teacher", "User works as a nurse", True),
        ("User works at Acme Corp as a designer", "User works as a nurse", False),  # not said
    ],
)
def test_a_second_job_or_someone_elses_ends_nothing(new: str, old: str, change_said: bool) -> None:
    assert compare(new, old, change_said=change_said) is not Change.ENDED


def test_the_judge_is_shown_each_fact_without_the_dates_the_product_wrote() -> None:
    messages = judge_messages("用户开的是2015年的本田思域", "用户2026年12月6日前的一周卖了车")
    assert messages[-1]["content"] == "OLD: 用户开的是2015年的本田思域\nNEW: 用户卖了车"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User was born in Austin", "User lives in Austin"),
        ("I was born in Austin, actually.", "I live in Austin."),
        ("用户出生在奥斯汀", "用户住在奥斯汀"),
        ("El usuario nació en Austin", "El usuario vive en Austin"),
    ],
)
def test_where_the_user_was_born_changes_nothing_said_of_the_present(new: str, old: str) -> None:
    """With the real model, "I was born in Austin, actually." replaced "User lives in Austin"."""
    assert compare(new, old, change_said=True) is None


def test_a_forget_leaves_nothing_read_from_a_memory_in_any_cache_of_the_truth_rules() -> None:
    from memory_extproc.memories import changes
    from memory_extproc.memories.relative_dates import without_resolved_dates

    compare("User's husband Mark turns 40 the week after 2026-12-06", "User's husband is Mark")
    compare("User moved to Seattle", "User lives in Denver")
    caches = [without_resolved_dates] + [
        f
        for f in vars(changes).values()
        if callable(getattr(f, "cache_info", None)) and f.__module__ == changes.__name__
    ]
    assert sum(c.cache_info().currsize for c in caches) > 0
    changes.clear_caches()
    assert {c.__name__: c.cache_info().currsize for c in caches} == {c.__name__: 0 for c in caches}
