"""What a memory is about, where its reader cannot tell: the rule alone."""

from __future__ import annotations

import pytest

from memory_extproc.memories.topics import topic_word


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
        # someone else's job, a membership, a diet, anything else
        ("User's sister works as a nurse", ""),
        ("User is working on a painting", ""),
        ("User worked out at the gym", ""),
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
    assert topic_word(text) == word
