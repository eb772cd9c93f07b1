"""What the doctor reads from a Valkey's INFO (its live checks: tests/integration/test_cli.py)."""

from __future__ import annotations

import pytest

from memory_extproc.doctor import valkey_too_old


@pytest.mark.parametrize(
    ("info", "missing"),
    [
        ({"redis_version": "7.2.4", "valkey_version": "9.1.2"}, ""),
        ({"redis_version": "6.2.14"}, ""),
        ({"redis_version": "6.0.20"}, "below 6.2 (no XAUTOCLAIM)"),
        ({"redis_version": "5.0.7"}, "below 6.2"),
        ({}, "unknown protocol version"),
    ],
)
def test_a_valkey_is_told_too_old_by_the_protocol_it_speaks(info: dict, missing: str) -> None:
    said = valkey_too_old(info)
    assert (missing in said) if missing else said == ""
