"""What a memory is about, where its reader cannot tell: the rules alone."""

from __future__ import annotations

import pytest

from memory_extproc.memories.topics import topic_words


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("用户是一名软件工程师", "工作"),
        ("用户在Acme公司做设计师", "工作"),
        ("用户从Acme公司辞职了（之前：用户在Acme公司担任设计师）", "工作"),
        ("我在阿里巴巴上班", "工作"),
        ("我是一名护士", "工作"),
        ("用户去年退休了", "工作"),
        ("El usuario es ingeniero de software", "trabajo"),
        ("El usuario trabaja de enfermera en Valencia", "trabajo"),
        ("Trabajo de enfermera en Valencia desde 2019.", "trabajo"),
        ("Soy profesora de matemáticas", "trabajo"),
        ("El usuario dejó su trabajo en Acme", "trabajo"),
        ("User works as a baker", "work"),
        ("User switched careers this spring and is a baker now (previously: User works as a "
         "carpenter in Porto)", "work"),
        ("User's new job is at Google", "work"),
        ("User quit their job at Acme", "work"),
        ("User retired last year", "work"),
        # …or by where it is done ("What do I do for a living?" scored 0.40 and 0.36 unkeyed)
        ("User is a paralegal at a law firm downtown", "work"),
        ("User left the law firm and is now doing an electrician apprenticeship", "work"),
        # a note, in the user's own words, as a memory says them
        ("I'm doing a plumbing apprenticeship now and loving it.", "work"),
        ("I work as a baker in Porto.", "work"),
        ("My new job starts Monday.", "work"),
        ("I work out every morning.", ""),
        ("I hate work.", ""),
        ("I have to work late tonight.", ""),
        ("My brother works as a nurse.", ""),
        # someone else's job, a membership, a diet, anything else
        ("User's sister works as a nurse", ""),
        ("User is working on a painting", ""),
        ("User worked out at the gym", ""),
        ("User is a regular at a café downtown", ""),
        ("User is a big fan at the bakery", ""),
        ("User lives in Boston", ""),
        ("用户的妹妹是护士", ""),
        ("我妈妈是老师", ""),
        ("他告诉我他是医生", ""),
        ("用户是健身房的会员", ""),
        ("用户是素食者", ""),
        ("用户住在杭州", ""),
        ("El hermano del usuario es médico", ""),
        ("El usuario vive en Boston", ""),
    ],
)  # fmt: skip
def test_a_job_is_about_work(text: str, word: str) -> None:
    assert topic_words(text) == ((word,) if word else ())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("User moved to Porto for a new job as a nurse", ("work", "where the user lives")),
        ("User recently relocated to Berlin", ("where the user lives",)),
        ("User is moving back to Ohio next month", ("where the user lives",)),
        ("User moved house in March", ("where the user lives",)),
        ("User moved from Chicago to Denver", ("where the user lives",)),
        ("User plans to move to Japan", ("where the user lives",)),
        ("User emigrated to Canada", ("where the user lives",)),
        ("User moved in with their partner", ("where the user lives",)),
        ("用户上个月搬家到了成都", ("居住地",)),
        ("我刚搬到波尔图", ("居住地",)),
        ("用户移民到了加拿大", ("居住地",)),
        ("用户搬到了波尔图，开始了护士的新工作", ("工作", "居住地")),
        ("El usuario se mudó a Madrid el año pasado", ("vive en",)),
        ("El usuario y su pareja se mudaron a Lisboa", ("vive en",)),
        ("La usuaria se mudará a Bilbao", ("vive en",)),
        ("Me acabo de mudar a Oporto", ("vive en",)),
        # the user's own words, as a note keeps them: "we" as well as "I"
        ("Big news: we moved to Seattle last month.", ("where the user lives",)),
        ("I've just relocated to Lisbon", ("where the user lives",)),
        ("我们上个月搬到西雅图了", ("居住地",)),
        ("我们公司搬到了上海", ()),  # the company moved, not the user
        # someone else's move, a move not made, moving on, moving a thing, a team or a role
        ("User's parents moved to Spain", ()),
        ("User thinks their friend moved to Seattle", ()),
        ("User moved on from the breakup", ()),
        ("User moved the meeting to Friday", ()),
        ("User moved to the backend team", ()),
        ("User was moved to tears by the film", ()),
        ("User settled into their new role", ()),
        ("User lives in Boston", ()),
        ("用户的父母搬到了上海", ()),
        ("用户父母搬到了上海", ()),
        ("我妈妈搬家了", ()),
        ("用户帮妹妹搬家", ()),
        ("用户把沙发搬到了客厅", ()),
        ("用户公司搬到了深圳", ()),
        ("用户不想搬家", ()),
        ("Los padres del usuario se mudaron a Madrid", ()),
        ("El usuario dice que su hermana se mudó a Madrid", ()),
        ("El usuario se trasladó al equipo de ventas", ()),
        ("El usuario se instaló una aplicación", ()),
    ],
)  # fmt: skip
def test_a_move_is_about_where_the_user_lives(text: str, words: tuple[str, ...]) -> None:
    assert topic_words(text) == words
