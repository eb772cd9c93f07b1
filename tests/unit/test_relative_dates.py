"""Relative dates a user said ("yesterday", "last week"), resolved against the day said."""

from __future__ import annotations

import pytest

from memory_extproc.memories.relative_dates import dated, without_resolved_dates

MONDAY = "2023-05-08"


@pytest.mark.parametrize(
    ("fact", "said", "kept"),
    [
        # the date added where the fact dropped it
        ("User went to a support group", "I went to a support group yesterday.",
         "User went to a support group on 2023-05-07"),
        ("User ran a charity race", "I ran a charity race last Saturday!",
         "User ran a charity race on 2023-05-06"),
        ("User moved from Sweden", "I moved from Sweden 4 years ago.",
         "User moved from Sweden in 2019"),
        ("User started painting", "I started painting two months ago.",
         "User started painting in March 2023"),
        ("User went to Paris", "I went to Paris last year.", "User went to Paris in 2022"),
        ("User has a job interview", "I have a job interview this afternoon.",
         "User has a job interview on 2023-05-08"),
        ("User sold their car", "Last week, I sold my car.",
         "User sold their car the week before 2023-05-08"),
        # the phrase replaced where the fact kept it: it would be wrong next month
        ("User sold their car last week", "I sold my car last week.",
         "User sold their car the week before 2023-05-08"),
        # the conversation's own day, written for "last week" by a 1.5B model, replaced
        ("User sold their car in 2023-05-08", "I sold my car last week.",
         "User sold their car the week before 2023-05-08"),
        # a date the model resolved is kept
        ("User went to a support group on 2023-05-07", "I went to a support group yesterday.",
         "User went to a support group on 2023-05-07"),
        # the date belongs to another clause or sentence, or none was said
        ("User's sister lives in Oslo",
         "I started painting two months ago, and my sister lives in Oslo.",
         "User's sister lives in Oslo"),
        ("User's sister lives in Oslo", "I went to Paris yesterday. My sister lives in Oslo.",
         "User's sister lives in Oslo"),
        ("User is vegetarian", "I am vegetarian.", "User is vegetarian"),
        # a fact that says how long keeps its own time
        ("User has been painting for two years", "I started painting two years ago.",
         "User has been painting for two years"),
    ],
)  # fmt: skip
def test_a_fact_keeps_when_it_happened(fact: str, said: str, kept: str) -> None:
    assert dated(fact, said, MONDAY) == kept


@pytest.mark.parametrize(
    ("fact", "said", "kept"),
    [
        # "next month" said in January is February: "When is my group performing?" (LoCoMo)
        ("User is choreographing for a festival next month",
         "I'm choreographing for a festival next month.",
         "User is choreographing for a festival in June 2023"),
        # the phrase kept, its clause reworded (the 1.5B model on the same turn, another run)
        ("User practices hip-hop and choreographs for a festival next month",
         "We do all kinds of dances. Finishing up choreography to perform at a nearby festival "
         "next month. Can't wait!",
         "User practices hip-hop and choreographs for a festival in June 2023"),
        ("User has a job interview", "I have a job interview tomorrow.",
         "User has a job interview on 2023-05-09"),
        # "next Friday" is that of the week after the day said's, as 下周五 is: said on a
        # Thursday it is not the next day
        ("User flies to Rome", "I fly to Rome next Friday.", "User flies to Rome on 2023-05-19"),
        ("User flies to Rome", "I fly to Rome next Monday.", "User flies to Rome on 2023-05-15"),
        ("User flies to Denver", "I fly to Denver the day after tomorrow.",
         "User flies to Denver on 2023-05-10"),
        # the phrase of the fact's own clause, not the sentence's first
        ("User starts work", "I graduated last year and I start work next month.",
         "User starts work in June 2023"),
        ("User starts a new job", "Next week I start a new job.",
         "User starts a new job the week after 2023-05-08"),
        ("User is moving to Lisbon next year", "We're moving to Lisbon next year.",
         "User is moving to Lisbon in 2024"),
        # not a date: "the next day", "next time"
        ("User felt better", "I was sick, but I felt better the next day.", "User felt better"),
        ("User moved to Oslo", "I lost my job, and the next month I moved to Oslo.",
         "User moved to Oslo"),
        ("User will bring snacks", "Next time I will bring snacks.", "User will bring snacks"),
        ("User mentors tomorrow's leaders", "I mentor tomorrow's leaders.",
         "User mentors tomorrow's leaders"),
        ("User is planning next year's vacation", "I'm planning next year's vacation.",
         "User is planning next year's vacation"),
        ("User parties like there's no tomorrow", "I party like there's no tomorrow.",
         "User parties like there's no tomorrow"),
    ],
)  # fmt: skip
def test_a_fact_keeps_when_it_will_happen(fact: str, said: str, kept: str) -> None:
    assert dated(fact, said, MONDAY) == kept


def test_across_a_year_and_a_month_end() -> None:
    assert dated("User quit their job", "I quit my job last month.", "2024-01-15") == (
        "User quit their job in December 2023"
    )
    assert dated("User got a cat", "I got a cat yesterday.", "2024-03-01") == (
        "User got a cat on 2024-02-29"
    )


THURSDAY = "2026-11-26"


@pytest.mark.parametrize(
    ("fact", "said", "kept"),
    [
        # the phrase the model kept, replaced: "el mes pasado" is wrong next month
        ("El usuario empezó a tomar clases de violonchelo el mes pasado",
         "Empecé a tomar clases de violonchelo el mes pasado.",
         "El usuario empezó a tomar clases de violonchelo en octubre de 2026"),
        ("El usuario vendió su coche", "La semana pasada vendí mi coche.",
         "El usuario vendió su coche la semana antes del 2026-11-26"),
        ("El usuario corrió una media maratón", "Ayer corrí mi primera media maratón.",
         "El usuario corrió una media maratón el 2026-11-25"),
        ("El usuario fue al médico", "El martes pasado fui al médico.",
         "El usuario fue al médico el 2026-11-24"),
        ("El usuario se mudó a Lisboa",
         "Me mudé a Lisboa hace dos años, y mi hermana vive en Oslo.",
         "El usuario se mudó a Lisboa en 2024"),
        ("La hermana del usuario vive en Oslo",
         "Me mudé a Lisboa hace dos años, y mi hermana vive en Oslo.",
         "La hermana del usuario vive en Oslo"),
        ("El usuario lleva dos años pintando", "Empecé a pintar hace dos años.",
         "El usuario lleva dos años pintando"),
        ("用户上个月开始上大提琴课", "我上个月开始上大提琴课了。", "用户2026年10月开始上大提琴课"),
        ("用户开始上大提琴课", "我上个月开始上大提琴课了。", "用户开始上大提琴课（2026年10月）"),
        ("用户去年去了日本", "我去年去了日本。", "用户2025年去了日本"),
        ("用户三天前去了北京", "我三天前去了北京。", "用户2026年11月23日去了北京"),
        ("用户去了医院", "我上周三去了医院。", "用户去了医院（2026年11月18日）"),
        ("用户今天有面试", "我今天下午有个面试。", "用户2026年11月26日有面试"),
        ("用户搬到了杭州", "我两年前搬到了杭州，我妹妹住在上海。", "用户搬到了杭州（2024年）"),
        ("用户的妹妹住在上海", "我两年前搬到了杭州，我妹妹住在上海。", "用户的妹妹住在上海"),
        ("用户学了两年钢琴", "我两年前开始学钢琴。", "用户学了两年钢琴"),
        ("用户二十年前去过巴黎", "我二十年前去过巴黎。", "用户二十年前去过巴黎"),
        # ahead: tomorrow, next week, next month, next year
        ("El usuario se muda a Madrid", "Me mudo a Madrid el mes que viene.",
         "El usuario se muda a Madrid en diciembre de 2026"),
        ("El usuario tiene un examen mañana", "Tengo un examen mañana.",
         "El usuario tiene un examen el 2026-11-27"),
        ("El usuario tiene un examen", "Mañana tengo un examen.",
         "El usuario tiene un examen el 2026-11-27"),
        ("El usuario va a Sevilla en Semana Santa", "La próxima Semana Santa voy a Sevilla.",
         "El usuario va a Sevilla en Semana Santa"),
        ("El usuario viaja a Roma", "Viajo a Roma el próximo lunes.",
         "El usuario viaja a Roma el 2026-11-30"),
        ("El usuario corre por la mañana", "Corro todos los días por la mañana.",
         "El usuario corre por la mañana"),
        ("用户明年要换工作", "我明年要换工作。", "用户2027年要换工作"),
        ("用户要去北京出差", "我下周三要去北京出差。", "用户要去北京出差（2026年12月2日）"),
        ("用户下个月搬家", "我下个月搬家。", "用户2026年12月搬家"),
        ("用户明天有面试", "我明天有个面试。", "用户2026年11月27日有面试"),
        # 下周一起: next week, together (一起), not next Monday (周一)
        ("用户下周一起去看电影", "我们下周一起去看电影。",
         "用户2026年11月26日后的一周一起去看电影"),
        ("用户下下周去日本", "我下下周去日本。", "用户下下周去日本"),
        # …and the same of the past: 上周一起 is last week, 上上周 not last week
        ("用户和朋友去爬山了", "我上周一起和朋友去爬山了。",
         "用户和朋友去爬山了（2026年11月26日前的一周）"),
        ("用户上上周去了日本", "我上上周去了日本。", "用户上上周去了日本"),
        ("用户想给孩子们更好的明天", "我想给孩子们更好的明天。", "用户想给孩子们更好的明天"),
    ],
)  # fmt: skip
def test_a_fact_in_spanish_or_chinese_keeps_when_it_happened(
    fact: str, said: str, kept: str
) -> None:
    assert dated(fact, said, THURSDAY) == kept


@pytest.mark.parametrize(
    ("fact", "said", "kept"),
    [
        # the model kept the phrase with the preposition (and article) the wording starts with
        ("Der Nutzer hat sich im letzten Monat nach Hamburg umgezogen",
         "Wir sind letzten Monat nach Hamburg umgezogen.",
         "Der Nutzer hat sich im April 2023 nach Hamburg umgezogen"),
        ("Der Nutzer hat sich nach Hamburg umgezogen im letzten Monat",
         "Wir sind letzten Monat nach Hamburg umgezogen.",
         "Der Nutzer hat sich nach Hamburg umgezogen im April 2023"),
        ("User moved to Seattle in the last month", "We moved to Seattle last month.",
         "User moved to Seattle in April 2023"),
        ("Im letzten Monat ist der Nutzer nach Hamburg umgezogen",
         "Wir sind letzten Monat nach Hamburg umgezogen.",
         "Im April 2023 ist der Nutzer nach Hamburg umgezogen"),
        ("El usuario se mudó a Madrid en el mes pasado", "Nos mudamos a Madrid el mes pasado.",
         "El usuario se mudó a Madrid en abril de 2023"),
        # …and not a word of the fact that is no part of it: a place, a particle
        ("User lived in Seattle last month", "I lived in Seattle last month.",
         "User lived in Seattle in April 2023"),
        ("User's sister will move in next month", "My sister will move in next month.",
         "User's sister will move in in June 2023"),
        # a point a span starts or ends at: "since in April" says nothing
        ("User has lived in Tucson since last month", "We've lived in Tucson since last month.",
         "User has lived in Tucson since April 2023"),
        ("User has been sober since yesterday", "I've been sober since yesterday.",
         "User has been sober since 2023-05-07"),
        ("Der Nutzer wohnt seit letztem Monat in Hamburg",
         "Seit letztem Monat wohnen wir in Hamburg.",
         "Der Nutzer wohnt seit April 2023 in Hamburg"),
        ("El usuario vive en Monterrey desde el mes pasado",
         "Vivimos en Monterrey desde el mes pasado.",
         "El usuario vive en Monterrey desde abril de 2023"),
    ],
)  # fmt: skip
def test_a_kept_phrase_is_replaced_without_saying_its_preposition_twice(
    fact: str, said: str, kept: str
) -> None:
    assert dated(fact, said, MONDAY) == kept


@pytest.mark.parametrize(
    ("fact", "said"),
    [
        ("User has lived in Tucson since November 2026", "User has lived in Tucson"),
        ("El usuario es vegetariano desde noviembre de 2026", "El usuario es vegetariano"),
        ("Der Nutzer wohnt seit November 2026 in Hamburg", "Der Nutzer wohnt in Hamburg"),
        ("User has lived in Austin since 2026-11-30", "User has lived in Austin"),
        ("User has been painting since 2016", "User has been painting since 2016"),  # the user's
    ],
)
def test_a_date_worded_as_a_point_is_read_through(fact: str, said: str) -> None:
    """ "since November 2026", as ``dated`` words a point, hid the fact as the user said it: a
    preference the model kept was noted again beside it."""
    assert without_resolved_dates(fact) == said
