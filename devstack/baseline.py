"""Another revision of this project beside today's, for measurements that compare the two in one
run (`BENCH_BASELINE=<ref> make bench`, `python -m eval.learning_speed --baseline <ref>`).

The revision is checked out as a git worktree under `.run/baseline/<commit>` (kept between runs)
with its gRPC stubs generated, and runs on today's virtualenv: its code, today's packages. A
revision that needs a package today's environment lacks fails at its first import, with its log.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commit_of(ref: str) -> str:
    """The full commit a ref names (``99a7eaf``, ``main~3``, a tag); ValueError if none."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:
        raise ValueError(f"no commit named {ref!r} in {ROOT}")
    return found.stdout.strip()


def checkout(ref: str) -> Path:
    """The worktree of ``ref``, made once: its files and its generated stubs."""
    commit = commit_of(ref)
    tree = ROOT / ".run" / "baseline" / commit
    stubs = tree / "memory_extproc" / "_proto" / ".generated"
    if stubs.exists():
        return tree
    if not tree.exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], check=True)
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(tree), commit],
            check=True,
            stdout=subprocess.DEVNULL,  # git's own error, if any, is printed
        )
    subprocess.run(["sh", "tools/gen-protos.sh", sys.executable], cwd=tree, check=True)
    stubs.touch()
    return tree


def environment(tree: Path) -> dict[str, str]:
    """This process's environment, with ``tree``'s packages imported before today's."""
    return {**os.environ, "PYTHONPATH": str(tree)}
