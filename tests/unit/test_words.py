"""How messages are cut into sentences: the unit of a note and of what a message states."""

from __future__ import annotations

import pytest

from memory_extproc.words import sentences


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("I live in Berlin. My manager is Priya!", ["I live in Berlin.", "My manager is Priya!"]),
        ("I moved to St. Louis in 2020. Dr. Smith is my GP.",
         ["I moved to St. Louis in 2020.", "Dr. Smith is my GP."]),
        ("We like e.g. Lisbon and Porto.", ["We like e.g. Lisbon and Porto."]),
        ("I said no. Then I left.", ["I said no.", "Then I left."]),
        ("我住在柏林。我的经理是Priya\uff01", ["我住在柏林。", "我的经理是Priya\uff01"]),
        ("first line\nsecond line", ["first line", "second line"]),
        ("", []),
    ],
)  # fmt: skip
def test_sentences(text: str, cut: list[str]) -> None:
    assert sentences(text) == cut
