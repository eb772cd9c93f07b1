"""`BENCH_PROFILE=1 make bench` sums py-spy's collapsed stacks into the functions that take the
processor's time: by their own samples, and with what they call (once per stack)."""

from bench.profile import top

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
