"""Milvus boolean expressions built from validated, escaped values only.

A user id goes into a filter as a double-quoted string literal with ``\\`` and ``"`` escaped, so
``alice" or user_id != "`` can only ever match the user of that literal name. Field names and
memory types come from our own constants, never from input.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from memory_extproc.store.model import (
    PENDING,
    MemoryType,
    is_memory_id,
    validate_scope_value,
)


def quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def user_scope(
    user_id: str,
    *,
    project_id: str | None = None,
    types: Sequence[MemoryType] = (),
    active_only: bool = True,
    pending: bool = False,
    alive_at: int | None = None,
) -> str:
    """The user's rows: active ones (``active_only``), or those held for review (``pending``),
    or every row, history included."""
    clauses = [f"user_id == {quote(validate_scope_value(user_id))}"]
    if project_id is not None:
        project = validate_scope_value(project_id, "project id") if project_id else ""
        clauses.append(f"project_id == {quote(project)}")
    if types:
        clauses.append(f"type in [{', '.join(quote(MemoryType(t).value) for t in types)}]")
    if pending:
        clauses.append(f'superseded_by == "{PENDING}"')
    elif active_only:
        clauses.append('superseded_by == ""')
    if alive_at is not None:
        clauses.append(not_expired(alive_at))
    return " and ".join(clauses)


def not_expired(at_ms: int) -> str:
    return f"(expires_at == 0 or expires_at > {int(at_ms)})"


def expired(at_ms: int) -> str:
    return f"expires_at > 0 and expires_at <= {int(at_ms)}"


def ids_in(memory_ids: Sequence[str]) -> str:
    """The rows of these memories and of their earlier versions."""
    if not all(is_memory_id(i) for i in memory_ids):
        raise ValueError("not a memory id")
    listed = ", ".join(quote(i) for i in memory_ids)
    return f"(id in [{listed}] or superseded_by in [{listed}])"


def one_memory(user_id: str, memory_id: str) -> str:
    if not is_memory_id(memory_id):
        raise ValueError("not a memory id")
    return f"id == {quote(memory_id)} and {user_scope(user_id, active_only=False)}"


def memory_with_history(user_id: str, memory_id: str) -> str:
    """A memory and the audit rows of its earlier versions."""
    if not is_memory_id(memory_id):
        raise ValueError("not a memory id")
    scope = user_scope(user_id, active_only=False)
    return f"(id == {quote(memory_id)} or superseded_by == {quote(memory_id)}) and {scope}"


def history_of(user_id: str, memory_id: str) -> str:
    """The audit rows of a memory's earlier versions."""
    if not is_memory_id(memory_id):
        raise ValueError("not a memory id")
    return f"superseded_by == {quote(memory_id)} and {user_scope(user_id, active_only=False)}"


FORGOTTEN = "forgotten"  # superseded_by of a forget record: never active


def forget_digest(value: str, what: str = "user id") -> str:
    """How a forget record names its user and project: a digest, so what is left of a user
    after a forget does not hold their ids in the clear (nor is found under them)."""
    return hashlib.sha256(validate_scope_value(value, what).encode()).hexdigest()


def whole_scope(user_id: str, project_id: str | None) -> str:
    """Every row of the user's (or one project's) memories and their history. Never a forget
    record: those are filed under a digest, which may well be someone else's user id."""
    scope = user_scope(user_id, project_id=project_id, active_only=False)
    return f'{scope} and superseded_by != "{FORGOTTEN}"'


def forget_records(user_id: str, project_id: str) -> str:
    """The forget records that cover what the user says in ``project_id``: a forget of all of
    the user's memories, or of that project's."""
    project = quote(forget_digest(project_id, "project id") if project_id else "")
    return (
        f'user_id == {quote(forget_digest(user_id))} and superseded_by == "{FORGOTTEN}" '
        f'and (meta["scope"] == "user" or project_id == {project})'
    )
