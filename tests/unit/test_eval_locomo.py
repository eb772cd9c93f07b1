"""The LoCoMo harness's pure parts on a tiny synthetic conversation: each speaker a user, chats,
provenance, scores, answer recall."""

from __future__ import annotations

import orjson
import pytest

from eval.answer_recall import content, recalled
from eval.locomo import (
    SESSION_END_ANSWER,
    Asked,
    Provenance,
    chats,
    first_person,
    questions,
    score,
)
from eval.replay import ObservationReplay
from eval.tokens import token_counter
from memory_extproc.llm_api.requests import Turn
from memory_extproc.worker.prompts import transcript

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
            {"speaker": "Ann", "dia_id": "D1:2", "text": "I adopted a cat called Miso last week."},
            {"speaker": "Bo", "dia_id": "D1:3", "text": "Lovely! I started learning the cello."},
            {"speaker": "Ann", "dia_id": "D1:4", "text": "Cello is hard, good luck with it."},
        ],
        "session_2_date_time": "10:00 am on 9 June, 2023",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "I played my first cello concert."},
            {"speaker": "Ann", "dia_id": "D2:2", "text": "Congratulations on the concert!"},
            {"speaker": "Bo", "dia_id": "D2:3", "text": "Thanks, it went well."},
        ],
    },
    "observation": {
        "session_1_observation": {
            "Ann": [["Ann adopted a cat called Miso.", "D1:2"]],
            "Bo": [["Bo is learning the cello.", ["D1:3"]]],
        }
    },
    "qa": [
        {"question": "What is Ann's cat called?", "answer": "Miso", "evidence": ["D1:2"],
         "category": 4},
        {"question": "When did Bo play a concert?", "answer": "June 2023",
         "evidence": ["D2:1; D2:2"], "category": 2},
        {"question": "What is Bo's favourite food?", "answer": "", "evidence": [], "category": 5},
    ],
}  # fmt: skip


def test_each_speaker_replays_the_conversation_as_the_user() -> None:
    as_ann = chats(SAMPLE, "a")
    assert [(c.session, c.answer) for c in as_ann] == [
        (1, "Lovely! I started learning the cello."),
        (1, SESSION_END_ANSWER),  # Ann's last line ends the session: sent all the same
        (2, "Thanks, it went well."),
    ]
    assert as_ann[1].messages[-1] == {
        "role": "user",
        "content": "Cello is hard, good luck with it.",
    }
    assert [m["role"] for m in as_ann[0].messages] == ["user", "user"]
    assert as_ann[0].date == "2023-05-08T13:56:00"
    assert as_ann[2].messages == [
        {"role": "assistant", "content": "I played my first cello concert."},
        {"role": "user", "content": "Congratulations on the concert!"},
    ]
    as_bo = chats(SAMPLE, "b")  # Bo speaks, Ann answers
    assert [(c.session, c.messages[-1]["content"], c.answer) for c in as_bo] == [
        (1, "Lovely! I started learning the cello.", "Cello is hard, good luck with it."),
        (2, "I played my first cello concert.", "Congratulations on the concert!"),
        (2, "Thanks, it went well.", SESSION_END_ANSWER),
    ]


def test_questions_are_asked_by_the_speaker_whose_turns_hold_the_evidence() -> None:
    found = questions(SAMPLE)
    assert [(q.category, q.side, sorted(q.evidence)) for q in found] == [
        (4, "a", ["conv-x/D1:2"]),
        (2, "a", ["conv-x/D2:2"]),  # evidence from both: asked by each, on its own turns
        (2, "b", ["conv-x/D2:1"]),
    ]
    assert found[0].answer == "Miso"


def test_provenance_of_observations_and_quoted_turns() -> None:
    provenance = Provenance.of([SAMPLE])
    assert provenance.turns("[2023-05-08] User adopted a cat called Miso.") == {"conv-x/D1:2"}
    note = 'On 2023-05-08 the user said: "I adopted a cat called Miso last week." Answer: "…"'
    assert provenance.turns(f"[2023-05-08] {note}") == {"conv-x/D1:2"}
    assert provenance.turns("[2023-05-08] something else entirely") == set()
    sentence = 'On 2023-05-08 the user said: "I started learning the cello."'
    assert provenance.turns(f"[2023-05-08] {sentence}") == {"conv-x/D1:3"}
    injected = '[2023-05-08] User said: "I started learning the cello."'  # as a block shows it
    assert provenance.turns(injected) == {"conv-x/D1:3"}
    assert provenance.turns(injected.replace("]", ", latest]", 1)) == {"conv-x/D1:3"}  # updated
    assert provenance.turns("[2023-05-08, latest] User adopted a cat called Miso.") == {
        "conv-x/D1:2"
    }
    # stored with when it happened resolved (memories/relative_dates.py), it is the same one
    dated = "[2023-05-08] User adopted a cat called Miso the week before 2023-05-08"
    assert provenance.turns(dated) == {"conv-x/D1:2"}
    part = 'On 2023-06-09 the user said: "my first cello concert"'
    assert provenance.turns(part) == {"conv-x/D2:1"}
    assert provenance.turns('On 2023-05-08 the user said: "cello"') == set()  # too short


def test_a_models_fact_is_traced_to_its_own_users_turns() -> None:
    provenance = Provenance.of([SAMPLE])
    fact = "[2023-06-09] User played their first cello concert"
    assert provenance.turns(fact, attribute="locomo-conv-x-b") == {"conv-x/D2:1"}
    assert provenance.turns(fact, attribute="locomo-conv-x-a") == set()  # Ann never said it


def test_scores() -> None:
    provenance = Provenance.of([SAMPLE])
    cat, ann_concert, bo_concert = questions(SAMPLE)
    results = [
        Asked(
            cat,
            [
                "[2023-05-08] User is learning the cello.",
                "[2023-05-08] User adopted a cat called Miso.",
            ],
            60,
        ),
        Asked(ann_concert, [], 0),
        Asked(bo_concert, [], 0),
    ]
    report = score(results, provenance)
    assert report["category_4"]["hit_at_1"] == 0.0
    assert report["category_4"]["hit_at_3"] == 1.0
    assert report["all"] == {
        "questions": 1, "hit_at_1": 0.0, "hit_at_3": 1.0, "hit_at_5": 1.0,
        "answer_recall": 1.0, "nothing_injected": 0.0, "mean_injected_tokens": 60.0,
        "p95_injected_tokens": 60,
    }  # fmt: skip
    assert report["speaker_a"]["questions"] == 1
    assert report[SAMPLE["sample_id"]] == report["all"]  # per conversation: llm slices each
    assert "speaker_b" not in report  # no observation of Bo covers his concert turn


def test_questions_no_observation_of_their_speaker_covers_are_left_out() -> None:
    provenance = Provenance.of([SAMPLE])
    cat, ann_concert, bo_concert = questions(SAMPLE)  # no observation comes from session 2
    assert provenance.covers(cat)
    assert not provenance.covers(ann_concert)
    assert not provenance.covers(bo_concert)
    report = score([Asked(cat, [], 0), Asked(ann_concert, [], 0)], provenance)
    assert report["all"]["questions"] == 1


def _replayed(replay: ObservationReplay, lines: str) -> list[str]:
    payload = {"messages": [{"role": "system", "content": "x"},
                            {"role": "user", "content": lines}]}  # fmt: skip
    answer = orjson.loads(replay(payload).text)
    return [f["content"] for f in answer["facts"]]


def test_the_replayed_extractor_learns_only_about_the_user() -> None:
    replay = ObservationReplay([SAMPLE])

    def facts(lines: str) -> list[str]:
        return _replayed(replay, lines)

    cat, cello = "I adopted a cat called Miso last week.", "Lovely! I started learning the cello."
    both = f"user: {cat}\nassistant: {cello}"
    assert facts(both) == ["User adopted a cat called Miso."]  # Ann's memory, in its words
    as_bo = f"assistant: {cat}\nuser: {cello}"
    assert facts(as_bo) == ["User is learning the cello."]


def test_the_replayed_extractor_finds_a_quoted_turn_as_the_prompt_shows_it() -> None:
    quoted = 'I adopted a cat called "Miso" last week.'  # shown to the model in single quotes
    turns = [{**t, "text": quoted} if t["dia_id"] == "D1:2" else t
             for t in SAMPLE["conversation"]["session_1"]]  # fmt: skip
    sample = {**SAMPLE, "conversation": {**SAMPLE["conversation"], "session_1": turns}}
    lines = "\n".join(transcript([Turn(role="user", text=quoted)]))
    assert "'Miso'" in lines
    assert _replayed(ObservationReplay([sample]), lines) == ["User adopted a cat called Miso."]


def test_answer_content_in_one_normal_form() -> None:
    assert content("7 May 2023") == {"2023-05-07"}
    assert content("May 7, 2023") == content("2023-05-07") == {"2023-05-07"}
    assert content("Two cats") == {"2", "cat"}
    assert content("$10,000") == {"10000"}
    assert content("The sunday before 25 May 2023") == {"sunday", "2023-05-25"}


def test_answer_recall_needs_every_content_word_in_the_block() -> None:
    block = ["[2023-05-08] Caroline went to an LGBTQ support group on 2023-05-07",
             "[2023-06-01] Caroline researched adoption agencies"]  # fmt: skip
    assert recalled("7 May 2023", block)
    assert recalled("May 2023", block)  # a month: any date of it
    assert recalled("2023", block)
    assert recalled("Adoption agencies", block)
    assert not recalled("adoption agencies and lawyers", block)
    assert not recalled("8 June 2023", block)
    assert not recalled("", block)  # nothing to recall is not a recall


def test_answer_recall_reads_a_words_forms_as_one_word() -> None:
    """ "by dancing" is in "a dance class" (the product's crude stems kept them apart), but a
    word is not in a shorter one it starts with ("hate" / "hat")."""
    assert recalled("By dancing", ["[2023-03-23] User has a photo of a dance class"])
    assert recalled("Twelve lessons", ["[2023-03-23] User took 12 dance lessons"])
    assert recalled("跳舞", ["[2023-03-23] 用户喜欢跳舞"])
    assert not recalled("Hates hats", ["[2023-03-23] User wears a hat"])


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("When did Caroline go to the LGBTQ support group?",
         "When did I go to the LGBTQ support group?"),
        ("What is Caroline's identity?", "What is my identity?"),
        ("What does Caroline do to supplement her training?",
         "What do I do to supplement my training?"),
        ("Caroline is excited about what?", "I am excited about what?"),
        ("What did someone write her a letter about?", "What did someone write me a letter about?"),
        ("What did Melanie paint for Caroline?", "What did Melanie paint for me?"),  # hers stays
        ("How do Caroline and Melanie relax?", "How do I and Melanie relax?"),
    ],
)  # fmt: skip
def test_questions_are_asked_in_the_askers_own_words(question: str, asked: str) -> None:
    assert first_person(question, "Caroline", "Melanie") == asked


def test_the_sample_questions_are_asked_by_their_speaker() -> None:
    cat, *_ = questions(SAMPLE)
    assert cat.text == "What is my cat called?"


def test_injected_tokens_are_counted_without_padding_or_truncation() -> None:
    tokens_of = token_counter()
    assert tokens_of("User said: hello") == 4  # user, said, :, hello; not 128
    assert tokens_of("word " * 300) == 300
