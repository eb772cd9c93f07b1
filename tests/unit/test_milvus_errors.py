"""Which Milvus errors mean the connection is gone (memory off until it is back) and which are
one call's failure: a user's id quoted in an error must never decide it."""

from __future__ import annotations

import pytest
from pymilvus.exceptions import MilvusException

from memory_extproc.store.milvus_connection import is_connection_error


@pytest.mark.parametrize(
    ("error", "lost"),
    [
        (MilvusException(2, "Fail connecting to server on 127.0.0.1:19530"), True),
        (MilvusException(1000, "service unavailable: query node not ready"), True),
        (MilvusException(1100, "deadline exceeded"), True),
        (MilvusException(1100, 'cannot parse expression: user_id == "reconnect-bot"'), False),
        (MilvusException(1100, 'cannot parse: user_id == "a\\" unavailable deadline"'), False),
        (MilvusException(1100, "cannot parse expression"), False),
    ],
)
def test_connection_errors(error: Exception, lost: bool) -> None:
    assert is_connection_error(error) is lost
