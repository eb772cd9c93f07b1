"""What the request headers say: the turn's date a replaying client may give, within bounds."""

from __future__ import annotations

import pytest

from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.identity import read_headers


@pytest.mark.parametrize(
    ("date", "at_ms"),
    [
        ("2023-05-08", 1683504000000),
        ("2023-05-08T10:00:00+02:00", 1683532800000),
        ("1970-01-01", 0),
        ("1969-12-31", None),  # before 1970: a memory the API's pages could not reach past
        ("0001-01-01", None),
        ("9999-12-31", None),  # the newest value for ever
        ("yesterday", None),
        ("", None),
    ],
)
def test_the_turn_date_a_client_gives(date: str, at_ms: int | None) -> None:
    headers = {"x-authz-user-id": "alice", "x-memory-date": date}
    signals = read_headers(headers, "/v1/chat/completions", IdentityConfig(), SignalsConfig(),
                           "x-memory-date")  # fmt: skip
    assert signals.at_ms == at_ms
