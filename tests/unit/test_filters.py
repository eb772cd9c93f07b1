from __future__ import annotations

import pytest

from memory_extproc.store import filters
from memory_extproc.store.model import InvalidScopeError, MemoryType, validate_scope_value


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("alice", '"alice"'),
        ('alice" or user_id != "', '"alice\\" or user_id != \\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("trailing\\", '"trailing\\\\"'),
        ("ünï😀", '"ünï😀"'),
    ],
)
def test_quote_escapes_backslash_and_quote(value: str, literal: str) -> None:
    assert filters.quote(value) == literal


def test_user_scope_expression() -> None:
    expr = filters.user_scope("alice", project_id="p1", types=[MemoryType.SEMANTIC])
    assert expr == (
        'user_id == "alice" and project_id == "p1" and type in ["semantic"] and superseded_by == ""'
    )
    assert filters.user_scope("bob", active_only=False) == 'user_id == "bob"'


def test_a_whole_scope_holds_history_but_never_forget_records() -> None:
    assert filters.whole_scope("bob", None) == 'user_id == "bob" and superseded_by != "forgotten"'
    assert filters.whole_scope("bob", "p1") == (
        'user_id == "bob" and project_id == "p1" and superseded_by != "forgotten"'
    )


@pytest.mark.parametrize(
    "bad", ["", "a" * 257, "tab\there", "new\nline", "nul\x00", "lone\udcff", "é" * 129]
)
def test_unusable_scope_values_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidScopeError):
        validate_scope_value(bad)
    with pytest.raises(InvalidScopeError):
        filters.user_scope(bad)


def test_one_memory_requires_a_real_memory_id() -> None:
    with pytest.raises(ValueError, match="not a memory id"):
        filters.one_memory("alice", 'mem_1" or id != "')
    with pytest.raises(ValueError, match="not a memory id"):
        filters.one_memory("alice", "mem_" + "a" * 32 + "\n")
    expr = filters.one_memory("alice", "mem_" + "a" * 32)
    assert expr.startswith('id == "mem_aaaa')
