"""The LoCoMo harness's pure parts on a tiny synthetic conversation: chats, provenance, scores."""

from __future__ import annotations

from eval.locomo import Asked, Provenance, chats, questions, score

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


def test_chats_pair_each_answer_with_the_history_before_it() -> None:
    found = chats(SAMPLE)
    assert [(c.session, c.answer) for c in found] == [
        (1, "Lovely! I started learning the cello."),
        (2, "Thanks, it went well."),
    ]
    assert [m["role"] for m in found[0].messages] == ["user", "user"]
    assert found[0].date == "2023-05-08T13:56:00"
    assert found[1].messages == [
        {"role": "assistant", "content": "I played my first cello concert."},
        {"role": "user", "content": "Congratulations on the concert!"},
    ]


def test_questions_keep_categories_1_to_4_with_normalized_evidence() -> None:
    found = questions(SAMPLE)
    assert [q.category for q in found] == [4, 2]
    assert found[1].evidence == {"conv-x/D2:1", "conv-x/D2:2"}


def test_provenance_of_observations_and_quoted_turns() -> None:
    provenance = Provenance.of([SAMPLE])
    assert provenance.turns("[2023-05-08] Ann adopted a cat called Miso.") == {"conv-x/D1:2"}
    note = 'On 2023-05-08 the user said: "I adopted a cat called Miso last week." Answer: "…"'
    assert provenance.turns(f"[2023-05-08] {note}") == {"conv-x/D1:2"}
    assert provenance.turns("[2023-05-08] something else entirely") == set()


def test_scores() -> None:
    provenance = Provenance.of([SAMPLE])
    cat, concert = questions(SAMPLE)
    results = [
        Asked(
            cat,
            [
                "[2023-05-08] Bo is learning the cello.",
                "[2023-05-08] Ann adopted a cat called Miso.",
            ],
            60,
        ),
        Asked(concert, [], 0),
    ]
    report = score(results, provenance)
    assert report["category_4"]["hit_at_1"] == 0.0
    assert report["category_4"]["hit_at_3"] == 1.0
    assert report["all"] == {
        "questions": 1, "hit_at_1": 0.0, "hit_at_3": 1.0, "hit_at_5": 1.0,
        "nothing_injected": 0.0, "mean_injected_tokens": 60.0, "p95_injected_tokens": 60,
    }  # fmt: skip


def test_questions_no_observation_covers_are_left_out() -> None:
    provenance = Provenance.of([SAMPLE])
    cat, concert = questions(SAMPLE)  # no observation comes from session 2
    assert provenance.covers(cat)
    assert not provenance.covers(concert)
    report = score([Asked(cat, [], 0), Asked(concert, [], 0)], provenance)
    assert report["all"]["questions"] == 1
