"""What each extraction call is shown: the windows of a batch, the known facts, the schema."""

from __future__ import annotations

import orjson

from memory_extproc.llm_api.requests import Turn
from memory_extproc.memories.facts import FactLimits, parse_facts
from memory_extproc.worker.prompts import (
    extraction_messages,
    facts_schema,
    known_for,
    transcript,
    windows,
)

CHAT = (
    Turn("user", "Hi there"),  # context, not new
    Turn("assistant", "Hello! How was the week?"),
    Turn("user", "I live in Berlin, in a flat near the river."),
    Turn("assistant", "(demo LLM) I was given no memories for this request."),
    Turn("user", ""),  # a question only: nothing stated once its question is removed
    Turn("assistant", "It is sunny."),
    Turn("user", "My manager at work is Priya."),
    Turn("assistant", "Noted."),
)


def texts(window: list[Turn]) -> list[str]:
    return [f"{t.role}: {t.text}" for t in window]


def test_a_window_never_shows_the_answer_to_its_last_message() -> None:
    """What the user states must not hinge on what the assistant happened to answer."""
    first, second = windows(CHAT, new_turns=3, per_call=1)
    assert texts(first) == [
        "assistant: Hello! How was the week?",
        "user: I live in Berlin, in a flat near the river.",
    ]
    assert texts(second) == ["assistant: It is sunny.", "user: My manager at work is Priya."]


def test_several_messages_per_call_keep_the_assistants_words_between_them() -> None:
    (both,) = windows(CHAT, new_turns=3, per_call=3)
    assert texts(both)[0] == "assistant: Hello! How was the week?"
    assert texts(both)[-1] == "user: My manager at work is Priya."
    assert "assistant: Noted." not in texts(both)
    lines = transcript(both)  # the empty question-only message is not shown
    assert "user: " not in lines


def test_only_the_new_turns_are_windows() -> None:
    assert windows(CHAT, new_turns=0, per_call=1) == []
    (last,) = windows(CHAT, new_turns=1, per_call=1)
    assert texts(last)[-1] == "user: My manager at work is Priya."


def test_known_facts_shown_are_those_the_user_speaks_of() -> None:
    known = ["User's budget for the Hawaii trip is $10,000", "User has a cat named Tom",
             "User's sister Anna lives in Oslo"]  # fmt: skip
    lines = ["assistant: Anything else?", "user: Actually my Hawaii budget is now $15,000."]
    assert known_for(known, lines) == ["User's budget for the Hawaii trip is $10,000"]
    assert known_for(known, ["assistant: Your cat Tom?", "user: I like jazz."]) == []
    assert known_for(known, ["user: I said Oslo, I meant Bergen."]) == [known[2]]
    assert known_for(known, ["user: I gave up my cat Tom."]) == [known[1]]


def test_known_facts_are_not_shown_when_nothing_is_said_to_change() -> None:
    known = ["User lives in Berlin", "User's manager at work is Priya"]
    said = ["user: I'm allergic to peanuts, and my sister Anna lives in Oslo."]
    assert known_for(known, said) == []


def test_the_schema_asks_for_sentences_and_the_examples_answer_in_it() -> None:
    schema = facts_schema(20, 500).schema
    assert schema["properties"]["facts"]["items"] == {
        "type": "string", "minLength": 1, "maxLength": 500,
    }  # fmt: skip
    messages = extraction_messages([], ["user: I live in Berlin."], "2026-11-24")
    answers = [m["content"] for m in messages if m["role"] == "assistant"]
    assert answers
    for answer in answers:  # every worked example reads back cleanly, without repairs
        parsed = parse_facts(answer, FactLimits())
        assert parsed.repairs == ()
        assert len(parsed.facts) == len(orjson.loads(answer)["facts"])
    assert messages[-1]["content"].endswith("user: I live in Berlin.")


def test_only_a_conversation_in_another_language_is_asked_to_keep_it() -> None:
    """Shown to every conversation, the Spanish example made the 1.5B model write English
    users' facts in Spanish; a Chinese user's prompt ends with the Chinese example."""
    english = extraction_messages([], ["user: I live in Berlin."], "2026-11-24")
    chinese = extraction_messages([], ["user: 我对花生过敏。"], "2026-11-24")
    spanish = extraction_messages([], ["user: Vivo en Sevilla con mi esposa."], "2026-11-24")
    shown = " ".join(m["content"] for m in english)
    assert "another language" not in shown
    assert "El usuario" not in shown
    assert "用户" not in shown
    for messages, own, name in (
        (chinese, "用户的车是绿色的", "Chinese"),
        (spanish, "El usuario tiene clase de cerámica los jueves", "Spanish"),
    ):
        assert any("another language than English" in m["content"] for m in messages)
        assert messages[-2]["content"] == f'{{"facts":["{own}"]}}'  # its correction example
        # and the language named above the conversation
        assert messages[-1]["content"].startswith(f"(The facts in {name}.)\nKnown facts:")
    assert not english[-1]["content"].startswith("(")


def test_a_message_too_short_to_tell_is_read_with_the_rest_of_the_conversation() -> None:
    """ "Soy vegetariano." alone is Spanish at 0.33, taken for English: the 1.5B model then wrote
    "User is vegetarian", which the grounding check refused (not the user's words)."""
    alone = extraction_messages([], ["user: Soy vegetariano."], "2026-11-24")
    answered = extraction_messages(
        [], ["user: Soy vegetariano."], "2026-11-24",
        context="Soy vegetariano.\n¡Qué bien! Te sugiero platos vegetarianos.",
    )  # fmt: skip
    assert "another language" not in " ".join(m["content"] for m in alone)
    assert answered[-1]["content"].startswith("(The facts in Spanish.)")
    # an English message with an answer in another language stays English
    english = extraction_messages(
        [], ["user: Please translate 'good morning' into Spanish."], "2026-11-24",
        context="Buenos días.",
    )  # fmt: skip
    assert "another language" not in " ".join(m["content"] for m in english)


def test_every_language_begins_as_the_english_prompt() -> None:
    """The local model's server reuses the longest prompt prefix it last evaluated: with the
    language's instruction in the system message, a change of language evaluated the whole
    prompt again (~1,000 tokens, ~20 s on a CPU instead of ~2 s). The system message and the
    English examples come first in every prompt; the language's instruction and examples after."""
    english = extraction_messages([], ["user: I live in Berlin."], "2026-11-24")
    shared = english[:-1]  # all but the conversation
    for said in ("我对花生过敏。", "Vivo en Sevilla con mi esposa."):
        other = extraction_messages([], [f"user: {said}"], "2026-11-24")
        assert other[: len(shared)] == shared
        assert other[len(shared)]["content"].startswith("The user writes in another language")


def test_a_long_message_is_shown_by_its_start_and_its_end() -> None:
    pasted = "Lorem ipsum dolor sit amet. " * 700
    (line,) = transcript([Turn("user", f"I live in Hangzhou. {pasted}I start at Google in May.")])
    assert line.startswith("user: I live in Hangzhou. Lorem ipsum")
    assert line.endswith("sit amet. I start at Google in May.")
    assert line.count(" … ") == 1
    before, after = line.split(" … ")
    assert {before.split()[-1], after.split()[0]} <= {"Lorem", "ipsum", "dolor", "sit", "amet."}
    (line,) = transcript([Turn("user", f"{pasted}My new salary is $125,000 a year.")])
    assert "$125,000" in line
    chinese = "我住在杭州。" + "天气很好。" * 300 + "我的新工资是每年125000元。"
    (line,) = transcript([Turn("user", chinese)])
    assert line.startswith("user: 我住在杭州。")
    assert line.endswith("我的新工资是每年125000元。")
    assert len(line) == len("user: ") + 600 + len(" … ")


def test_double_quotes_reach_the_model_as_marks_it_can_copy_into_json() -> None:
    """A small model constrained to JSON ends its string at a '"' it means to copy."""
    turns = [
        Turn("user", 'My favorite book is "Dune", and my TV is 55" wide.'),
        Turn("assistant", 'Good choice: "Dune" is a classic.'),
    ]
    assert transcript(turns) == [
        "user: My favorite book is 'Dune', and my TV is 55\u2033 wide.",
        "assistant: Good choice: 'Dune' is a classic.",
    ]
    (*_, task) = extraction_messages(['User\'s band is "The Quiet Hours"'], [], "2026-11-26")
    assert "- User's band is 'The Quiet Hours'" in task["content"]
