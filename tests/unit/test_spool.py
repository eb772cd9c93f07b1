"""The spool on a real directory: kept until done, adopted from a dead owner, never from a live
one, bounded, and what it cannot read is skipped, not fatal."""

from __future__ import annotations

import os
from pathlib import Path

from memory_extproc.handoff import Batch
from memory_extproc.learning.spool import Spool, decode, encode
from memory_extproc.llm_api.requests import Turn


def batch(text: str = "I play the harp", user: str = "alice") -> Batch:
    return Batch(user, "p1", (Turn("user", text), Turn("assistant", "Nice.")), 1, 1_700_000, "idle",
                 ("recalled memory",))  # fmt: skip


def entries(root: Path, *spools: Spool) -> list[str]:
    for spool in spools:
        spool.flush()  # files are written by the spool's own thread
    return sorted(p.name for p in root.glob("*/[bp]-*.json"))


def test_an_entry_round_trips() -> None:
    original = batch('café ☕ and \\u0000 quotes "')
    assert decode(encode(original)) == original


def test_a_batch_is_kept_until_done(tmp_path: Path) -> None:
    spool = Spool(tmp_path, 1 << 20)
    assert spool.open() == []
    kept = spool.keep(batch())
    assert kept.entry.startswith("b-")
    assert entries(tmp_path, spool) == [kept.entry]
    spool.done(kept.entry)
    assert entries(tmp_path, spool) == []
    spool.close()
    assert list(tmp_path.iterdir()) == []  # an empty spool leaves nothing behind


def test_a_dead_owners_batches_and_pending_turns_are_adopted(tmp_path: Path) -> None:
    dead = Spool(tmp_path, 1 << 20)
    dead.open()
    handed = dead.keep(batch("I play the harp"))
    dead.pending("conversation1", batch("I play the cello"))
    dead.pending("conversation2", batch("I play the drums"))
    dead.pending("conversation2", None)  # in a batch now
    dead.flush()
    os.close(dead._lock_fd)  # kill -9: the lock goes with the process, the files stay

    heir = Spool(tmp_path, 1 << 20)
    recovered = heir.open()
    assert [b.said for b in recovered] == ["I play the harp", "I play the cello"]
    assert [b.reason for b in recovered] == ["idle", "recovered"]
    assert recovered[0].recalled == handed.recalled
    # Kept again under the heir's name: a crash now loses nothing either.
    assert entries(tmp_path, heir) == sorted(b.entry for b in recovered)
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 1


def test_a_live_owners_directory_is_left_alone(tmp_path: Path) -> None:
    live = Spool(tmp_path, 1 << 20)
    live.open()
    live.keep(batch())
    other = Spool(tmp_path, 1 << 20)
    assert other.open() == []
    assert len(entries(tmp_path, live)) == 1


def test_a_full_spool_keeps_nothing_more_and_says_so(tmp_path: Path) -> None:
    spool = Spool(tmp_path, len(encode(batch())) + 10)
    spool.open()
    assert spool.keep(batch()).entry
    assert spool.keep(batch("another")).entry == ""  # not kept: handed over from memory only
    assert len(entries(tmp_path, spool)) == 1


def test_an_unreadable_entry_is_skipped(tmp_path: Path) -> None:
    dead = tmp_path / "dead"
    dead.mkdir()
    (dead / "b-000000000000.json").write_bytes(b"{not json")
    (dead / "b-000000000001.json").write_bytes(encode(batch()))
    spool = Spool(tmp_path, 1 << 20)
    assert [b.said for b in spool.open()] == ["I play the harp"]
    assert not dead.exists()


def test_a_sibling_that_dies_later_is_adopted_by_a_running_spool(tmp_path: Path) -> None:
    running = Spool(tmp_path, 1 << 20)
    assert running.open() == []
    own = running.keep(batch("I play the flute"))
    sibling = Spool(tmp_path, 1 << 20)
    sibling.open()
    sibling.keep(batch("I play the harp"))
    sibling.pending("conversation1", batch("I play the cello"))
    sibling.flush()
    assert running.adopt() == []  # alive: left alone

    os.close(sibling._lock_fd)  # killed -9, and not restarted
    adopted = running.adopt()
    assert [b.said for b in adopted] == ["I play the harp", "I play the cello"]
    assert running.adopt() == []  # once
    assert entries(tmp_path, running) == sorted([own.entry, *(b.entry for b in adopted)])
    assert [p for p in tmp_path.iterdir() if p.is_dir()] == [running._dir]


def test_the_replicas_shared_conversation_state_is_not_adopted(tmp_path: Path) -> None:
    state = tmp_path / "conversations" / "0123"
    state.mkdir(parents=True)
    (state / "c-conversation.json").write_bytes(b"{}")
    assert Spool(tmp_path, 1 << 20).open() == []
    assert (state / "c-conversation.json").exists()
