"""`BENCH_PROFILE=1 make bench` sums py-spy's collapsed stacks into the functions that take the
processor's time: by their own samples, and with what they call (once per stack)."""

import pytest

from bench.profile import side_by_side, top

COLLAPSED = """\
<module> (server.py:1);process (service.py:80);embed (onnx.py:53) 60
<module> (server.py:1);process (service.py:81);rank (rank.py:10);terms (words.py:90) 30
<module> (server.py:1);process (service.py:82) 10
not a stack line
"""


def test_functions_are_ranked_by_their_own_and_their_callees_samples() -> None:
    own, cumulative = top(COLLAPSED, count=3)
    assert own == [
        ("embed (onnx.py)", 0.6),
        ("terms (words.py)", 0.3),
        ("process (service.py)", 0.1),
    ]
    assert cumulative[:2] == [("<module> (server.py)", 1.0), ("process (service.py)", 1.0)]
    assert ("rank (rank.py)", 0.3) in top(COLLAPSED, count=10)[1]


def test_two_sides_are_compared_in_ms_a_request_the_largest_growth_first() -> None:
    """Each side's shares spread over its own CPU ms a request: today spends 4 ms, 0.3 of it
    ranking (1.2 ms), the baseline 2 ms and no ranking at all."""
    baseline = "<module> (server.py:1);process (service.py:80);embed (onnx.py:53) 1\n"
    rows = side_by_side((COLLAPSED, 4.0), (baseline, 2.0), count=3)
    assert rows[0][0] in {"<module> (server.py)", "process (service.py)"}
    assert rows[0][1:] == (pytest.approx(4.0), pytest.approx(2.0))
    assert ("rank (rank.py)", pytest.approx(1.2), 0) in side_by_side(
        (COLLAPSED, 4.0), (baseline, 2.0)
    )
