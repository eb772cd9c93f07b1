"""`python -m eval.learning_speed --baseline REF`'s pure part: two revisions' results as one
side-by-side table and one JSON line, and a side's repeated runs as one."""

from __future__ import annotations

import argparse

from eval.learning_speed import Row, average, compare, side_arguments, table

BEFORE = {
    "sample": "conv-26", "turns": 20, "seconds_per_10_turns": 60.0, "seconds_per_batch": 40.0,
    "model_calls": 30, "calls_per_batch": 15.0, "calls_extract": 10, "calls_judge": 20,
}  # fmt: skip
TODAY = {
    "sample": "conv-26", "turns": 20, "seconds_per_10_turns": 30.0, "seconds_per_batch": 20.0,
    "model_calls": 12, "calls_per_batch": 6.0, "calls_extract": 10, "calls_rewrite": 2,
    "hit_at_5": 0.3,
}  # fmt: skip


def test_the_json_line_holds_today_under_its_keys_and_the_baseline_prefixed() -> None:
    line = compare(BEFORE, TODAY, ref="99a7eaf", commit="99a7eaf0c").line
    assert line == {
        "sample": "conv-26", "turns": 20, "seconds_per_10_turns": 30.0, "seconds_per_batch": 20.0,
        "model_calls": 12, "calls_per_batch": 6.0,
        "calls_extract": 10, "calls_extract_per_10_turns": 5.0,
        "calls_rewrite": 2, "calls_rewrite_per_10_turns": 1.0, "hit_at_5": 0.3,
        "baseline_sample": "conv-26", "baseline_turns": 20, "baseline_seconds_per_10_turns": 60.0,
        "baseline_seconds_per_batch": 40.0, "baseline_model_calls": 30,
        "baseline_calls_per_batch": 15.0,
        "baseline_calls_extract": 10, "baseline_calls_extract_per_10_turns": 5.0,
        "baseline_calls_judge": 20, "baseline_calls_judge_per_10_turns": 10.0,
        "baseline_ref": "99a7eaf", "baseline_commit": "99a7eaf0c",
        "seconds_per_10_turns_over_baseline": 0.5, "seconds_per_batch_over_baseline": 0.5,
        "model_calls_over_baseline": 0.4,
    }  # fmt: skip


def test_the_table_has_every_number_either_side_has_today_s_order_first() -> None:
    rows = compare(BEFORE, TODAY, ref="main~1", commit="c").rows
    assert rows == [
        Row("turns", 20, 20, 1.0),
        Row("seconds_per_10_turns", 60.0, 30.0, 0.5),
        Row("seconds_per_batch", 40.0, 20.0, 0.5),
        Row("model_calls", 30, 12, 0.4),
        Row("calls_per_batch", 15.0, 6.0, 0.4),
        Row("calls_extract", 10, 10, 1.0),
        Row("calls_extract_per_10_turns", 5.0, 5.0, 1.0),
        Row("calls_rewrite", None, 2, None),  # a task only today calls
        Row("calls_rewrite_per_10_turns", None, 1.0, None),
        Row("hit_at_5", None, 0.3, None),
        Row("calls_judge", 20, None, None),  # a task only the baseline called
        Row("calls_judge_per_10_turns", 10.0, None, None),
    ]
    printed = table(rows).splitlines()
    assert printed[0].split("|")[2:5] == [" baseline ", " today ", " today/baseline "]
    assert printed[1].startswith("|---")
    assert [c.strip() for c in printed[5].split("|")[1:5]] == ["model_calls", "30", "12", "0.4"]
    assert [c.strip() for c in printed[9].split("|")[1:5]] == ["calls_rewrite", "—", "2", "—"]


def test_a_ratio_over_a_baseline_of_zero_is_null() -> None:
    line = compare({**BEFORE, "model_calls": 0}, TODAY, ref="r", commit="c").line
    assert line["model_calls_over_baseline"] is None


def test_repeated_runs_average_their_numbers_and_count_an_absent_counter_as_zero() -> None:
    runs = [
        {"sample": "conv-26", "turns": 20, "seconds_per_10_turns": 30.0, "calls_judge": 4,
         "hit_at_5": 0.3},
        {"sample": "conv-26", "turns": 20, "seconds_per_10_turns": 35.0, "model_calls": 7},
    ]  # fmt: skip
    assert average(runs) == {
        "sample": "conv-26", "turns": 20, "seconds_per_10_turns": 32.5, "calls_judge": 2,
        "hit_at_5": 0.3, "model_calls": 7,
    }  # fmt: skip
    assert average(runs[:1]) == runs[0]


def test_each_side_gets_this_run_s_options_but_not_baseline_or_repeat() -> None:
    args = argparse.Namespace(
        sample="conv-30",
        sessions=1,
        sides="a",
        dump="",
        baseline="99a7eaf",
        repeat=3,
        every=10,
        compress=False,
    )
    assert side_arguments(args, "") == ["--sample", "conv-30", "--sessions", "1", "--sides", "a"]
    assert side_arguments(args, "/tmp/b.json")[-2:] == ["--dump", "/tmp/b.json"]
    args.every = 1  # every turn at once, as `make run` learns: both sides, or the run fails
    assert side_arguments(args, "")[-2:] == ["--every", "1"]
    args.compress = True  # a running state written per batch: asked of both sides
    assert side_arguments(args, "")[-1] == "--compress"
