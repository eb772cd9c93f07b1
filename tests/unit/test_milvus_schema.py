"""The refusal of an earlier release's collection names a command that exists."""

from __future__ import annotations

import re
import shlex

import pytest

from memory_extproc import cli
from memory_extproc.store.milvus_schema import _V1_TAG, SchemaMismatchError, check_schema


def test_a_collection_of_the_english_only_release_is_refused_with_the_command_that_moves_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A returning operator of `make run` met "memory-extproc memories migrate", which does not
    exist (it is "memory-extproc migrate")."""
    with pytest.raises(SchemaMismatchError) as refused:
        check_schema({"description": _V1_TAG, "fields": []}, "agentic_memory", 769)
    command = re.search(r"`(memory-extproc [^`]+)`", str(refused.value))
    assert command is not None
    words = shlex.split(command.group(1))
    assert words[1:] == ["migrate", "--from", "agentic_memory"]
    with pytest.raises(SystemExit) as parsed:
        cli.main([*words[1:], "--help"])
    assert parsed.value.code == 0
    assert "--from" in capsys.readouterr().out
