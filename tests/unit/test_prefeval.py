"""make prefeval's pure parts: users built from the data, how a question's lines score, and the
Chinese run's translation (prompt, cleaning, cache; a stand-in model, not the local one)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from devstack.mock_llm import MockLLM, Reply
from prefeval import score, translate
from prefeval.data import ACKNOWLEDGED, User, chats_between, exchanges, topic_sets, users
from prefeval.generic import GENERIC_REQUESTS

RECORD: dict[str, Any] = {
    "preference": "I am vegetarian.",
    "question": "Suggest a dinner recipe.",
    "conversation": {
        "query": "Lunch ideas?",
        "assistant_options": "A salad, a burger.",
        "user_selection": "The salad.",
        "assistant_acknowledgment": "Good choice.",
    },
}
PERSONA = {
    "conversation": {"1": {"user": "b", "assistant": "B"}, "0": {"user": "a", "assistant": "A"}}
}


def chat(*said: str) -> dict[str, Any]:
    messages = []
    for text in said:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
    return {"conversation": messages}


def test_each_form_reveals_the_preference_in_its_own_conversation() -> None:
    assert exchanges("explicit", RECORD) == (("I am vegetarian.", ACKNOWLEDGED),)
    assert exchanges("choice", RECORD) == (
        ("Lunch ideas?", "A salad, a burger."),
        ("The salad.", "Good choice."),
    )
    assert exchanges("persona", PERSONA) == (("a", "A"), ("b", "B"))  # in turn order
    with pytest.raises(ValueError, match="unknown form"):
        exchanges("implicit", RECORD)


def test_unrelated_chats_stop_at_the_asked_number_of_turns() -> None:
    records = [chat("1", "2", "3"), chat("4"), chat("5", "6")]
    found = chats_between(records, 1, 4)
    assert [[said for said, _ in c] for c in found] == [["4"], ["5", "6"], ["1"]]
    assert chats_between(records, 0, 0) == []


def test_users_rotate_the_topic_sets_and_take_their_own_item() -> None:
    topics = [f"t{k:02}" for k in range(15)]
    records = {t: [{**RECORD, "preference": f"{t} item {i}"} for i in range(10)] for t in topics}
    made = users("explicit", records, [chat("x", "y")], 4, first=2, inter_turns=2)
    assert [u.name for u in made] == ["explicit-2", "explicit-3", "explicit-4", "explicit-5"]
    assert [u.items[0].topic for u in made] == ["t00", "t05", "t10", "t00"]
    assert made[1].items[4].preference == "t09 item 3"
    assert all(len(u.items) == 5 and sum(len(c) for c in u.between) == 2 for u in made)
    assert topic_sets(topics[:7]) == [tuple(topics[:5])]  # a set is always five topics


def asked(item: str, *owners: frozenset[str]) -> score.Asked:
    lines = tuple(f"[2026-01-01] line {k}" for k in range(len(owners)))
    return score.Asked("explicit", 0, "u", item, lines, owners, 10 * len(owners))


def test_a_question_is_scored_by_whose_memories_it_got() -> None:
    mine, other, none = frozenset({"a:0"}), frozenset({"b:0"}), frozenset()
    assert score.outcome(asked("a:0", other, mine)) == "injected"
    assert score.outcome(asked("a:0", other)) == "wrong"
    assert score.outcome(asked("a:0", none)) == "unrelated"
    assert score.outcome(asked("a:0")) == "nothing"
    row = score.summary([asked("a:0", mine), asked("a:0", other, mine), asked("a:0")])
    assert row["injected"] == pytest.approx(0.667, abs=1e-3)
    assert row["hit_at_1"] == pytest.approx(0.333, abs=1e-3)
    assert row["nothing"] == pytest.approx(0.333, abs=1e-3)
    assert row["mean_tokens"] == 15.0  # over the questions given something


def test_an_injected_line_is_traced_to_the_memory_it_shows() -> None:
    memories = {
        "m1": "User follows a strict vegan diet",
        "m2": 'On 2026-01-01 the user said: "I avoid hiking because of my knees."',
    }
    assert (
        score.memory_of("[2026-01-01, latest] User follows a strict vegan diet", memories) == "m1"
    )
    assert (
        score.memory_of('[2026-01-01] User said: "I avoid hiking because of my knees."', memories)
        == "m2"
    )
    assert score.memory_of("[2026-01-01] User likes jazz", memories) is None


def test_learned_and_dangling() -> None:
    assert score.learned(["a:0", "b:0"], {"m1": frozenset({"a:0"})}) == 0.5
    assert score.dangling("User dislikes the other options")
    assert score.dangling('On 2026-01-01 the user said: "I\'ll go with the first option."')
    assert not score.dangling("User chose option 2, the plant-based proteins")  # says what
    assert not score.dangling("User follows a strict vegan diet")


def test_generic_requests_are_a_hundred_distinct_ones() -> None:
    assert len(set(GENERIC_REQUESTS)) == len(GENERIC_REQUESTS) == 100


ENGLISH = "I avoid spicy food because of acid reflux."
CHINESE = "因为胃酸反流，我不吃辣的东西。"


def test_the_translation_prompt_ends_with_the_text_alone() -> None:
    sent = translate.messages(ENGLISH)
    assert sent[0] == {"role": "system", "content": translate.SYSTEM}
    assert "Simplified Chinese" in sent[0]["content"]
    assert "only the translation" in sent[0]["content"]
    examples = ["user", "assistant"] * len(translate.EXAMPLES)
    assert [m["role"] for m in sent[1:]] == [*examples, "user"]
    assert sent[-1]["content"] == ENGLISH  # verbatim: nothing around it for the model to answer
    assert all(translate.has_cjk(chinese) for _, chinese in translate.EXAMPLES)


def test_the_cache_key_is_the_english_texts_sha256() -> None:
    assert translate.key("I am vegetarian.") == hashlib.sha256(b"I am vegetarian.").hexdigest()
    assert translate.key("I am vegetarian.") != translate.key("I am vegetarian")
    assert len(translate.key("")) == 64


@pytest.mark.parametrize(
    "answer",
    [
        CHINESE,
        f"  {CHINESE}\n",
        f'"{CHINESE}"',
        f"“{CHINESE}”",
        f"「{CHINESE}」",
        f"**{CHINESE}**",
        f"翻译：{CHINESE}",
        f"Translation: {CHINESE}",
        f"以下是翻译：\n{CHINESE}",  # a lead-in line
        f"```\n{CHINESE}\n```",
        f"```text\n“{CHINESE}”\n```",
        f"{CHINESE}\n\nNote: a literal translation.",  # a note in English after it
        f"{ENGLISH}\n{CHINESE}",  # the English echoed first
    ],
)
def test_a_models_answer_is_cleaned_to_the_translation(answer: str) -> None:
    assert translate.cleaned(answer, ENGLISH) == CHINESE


def test_quotes_inside_a_translation_are_kept() -> None:
    said = "“星际穿越”和“盗梦空间”我都很喜欢。"
    assert translate.cleaned(said, "I love both Interstellar and Inception.") == said
    titled = "《三体》是我最喜欢的书。"
    assert translate.cleaned(titled, "The Three-Body Problem is my favourite book.") == titled


@pytest.mark.parametrize(
    "answer",
    [
        ENGLISH,  # echoed, untranslated
        "I'm sorry, I can't help with that.",
        "```\n\n```",
        "",
        # answered instead of translated: far longer than the English
        "当然！以下是一些适合胃酸反流的人的建议：少吃辛辣食物，避免咖啡和酒精，晚餐不要吃得太晚，"
        "睡前三小时内不要进食，饭后散步，保持健康体重。",
    ],
)
def test_an_answer_without_a_translation_is_rejected(answer: str) -> None:
    assert translate.cleaned(answer, ENGLISH) is None


def test_the_cache_is_kept_for_its_model_and_prompt(tmp_path: Path) -> None:
    path = tmp_path / "results" / "translations-zh.json"
    assert translate.load(path, "m") == {}  # no file yet
    table = {translate.key(ENGLISH): CHINESE, translate.key("x"): None}
    translate.save(path, "m", table)
    assert translate.load(path, "m") == table
    assert CHINESE in path.read_text(encoding="utf-8")  # readable, not \u-escaped
    assert translate.load(path, "another model") == {}
    held = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**held, "prompt": "older"}), encoding="utf-8")
    assert translate.load(path, "m") == {}  # the prompt changed: translate again
    path.write_text("{not json", encoding="utf-8")
    assert translate.load(path, "m") == {}


def explicit_users() -> list[User]:
    topics = [f"t{k:02}" for k in range(5)]
    records = {
        t: [
            {"preference": f"{t} preference {i}", "question": f"{t} question {i}"} for i in range(3)
        ]
        for t in topics
    }
    return users("explicit", records, [], 2)


def test_users_are_put_in_chinese_where_the_table_has_a_translation() -> None:
    held = explicit_users()
    texts = translate.texts(held)
    assert len(texts) == 20
    assert texts[:2] == ["t00 preference 0", "t00 question 0"]
    table: dict[str, str | None] = {
        translate.key("t00 preference 0"): "偏好零",
        translate.key("t00 question 0"): "问题零",
        translate.key("t01 preference 0"): None,  # the model's answer was no translation
        translate.key("t01 question 0"): "问题一",
    }
    chinese = translate.in_chinese(held, table)
    first, second = chinese[0].items[:2]
    assert (first.preference, first.question) == ("偏好零", "问题零")
    assert first.conversation == (("偏好零", translate.ACKNOWLEDGED_ZH),)
    assert first.key == held[0].items[0].key  # scored as the same item
    assert (second.preference, second.question) == ("t01 preference 0", "问题一")
    assert second.conversation == (("t01 preference 0", ACKNOWLEDGED),)  # all English
    assert chinese[1] == held[1]  # nothing translated: as it was
    assert translate.untranslated(held, table) == 17


def test_a_preference_is_said_in_one_language_and_asked_in_the_other() -> None:
    held = explicit_users()[:1]
    table = {translate.key(t): f"{t[:3]}的中文" for t in translate.texts(held)}
    assert translate.texts(held, "en-zh") == [i.question for i in held[0].items]
    assert translate.texts(held, "zh-en") == [i.preference for i in held[0].items]
    (asked,) = translate.in_chinese(held, table, "en-zh")
    first = asked.items[0]
    assert (first.preference, first.question) == ("t00 preference 0", "t00的中文")
    assert first.conversation == held[0].items[0].conversation  # acknowledged in English
    (said,) = translate.in_chinese(held, table, "zh-en")
    first = said.items[0]
    assert (first.preference, first.question) == ("t00的中文", "t00 question 0")
    assert first.conversation == (("t00的中文", translate.ACKNOWLEDGED_ZH),)
    assert translate.untranslated(held, {}, "en-zh") == 5  # the questions only


async def test_a_second_run_does_not_translate_again(tmp_path: Path) -> None:
    held = explicit_users()[:1]
    path = tmp_path / "translations-zh.json"
    model = MockLLM()
    answers = {t: f"“{t[:3]}的中文”" for t in translate.texts(held)}
    answers[held[0].items[4].question] = "Sure! Here are some ideas."  # no translation

    def translator(payload: dict[str, Any]) -> Reply:
        assert payload["temperature"] == 0
        return Reply(text=answers[payload["messages"][-1]["content"]])

    model.on_model("local", translator)
    await model.start()
    try:
        base_url = f"http://127.0.0.1:{model.port}"
        chinese, left = await translate.to_chinese(held, base_url, "local", path)
        assert len(model.recorded) == 10
        assert left == 1
        assert chinese[0].items[0].preference == "t00的中文"
        assert chinese[0].items[4].question == "t04 question 0"  # kept in English
        again, left_again = await translate.to_chinese(held, base_url, "local", path)
        assert len(model.recorded) == 10  # all from the cache, the miss too
        assert (again, left_again) == (chinese, 1)
    finally:
        await model.stop()


def test_a_chinese_memory_is_traced_to_the_line_that_shows_it() -> None:
    # the words of a Chinese text are its clauses: enough for a line that shows a memory as is
    memories = {"m1": "用户对花生过敏，饮食中避免花生。", "m2": "用户喜欢植物性饮食。"}
    assert (
        score.memory_of("[2026-01-01, latest] 用户对花生过敏，饮食中避免花生。", memories) == "m1"
    )
    assert score.memory_of("[2026-01-01] 用户喜欢植物性饮食", memories) == "m2"
    assert score.memory_of("[2026-01-01] 用户住在杭州。", memories) is None
