"""A harness (`make eval`, `make prefeval`, …) stopped by a signal takes its children with it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_HARNESS = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from devstack.process import ManagedProcess, run_harness

    async def main() -> int:
        child = ManagedProcess("child", ["sleep", "600"], Path(sys.argv[1]))
        try:
            print(child.proc.pid, flush=True)
            await asyncio.Event().wait()
        finally:
            child.stop()
            print("stopped", flush=True)
        return 0

    sys.exit(run_harness(main))
    """
)


_IGNORING_SIGINT = 'trap "" INT; exec "$0" "$@"'


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_harness_stops_the_processes_it_started(tmp_path: Path, sig: int) -> None:
    harness = subprocess.Popen(
        # as a shell starts a background job: SIGINT ignored. Set by a shell, not preexec_fn:
        # Python code between fork and exec, in a test process where gRPC runs threads, left
        # the child dead before it printed (gRPC's fork handlers)
        ["sh", "-c", _IGNORING_SIGINT, sys.executable, "-c", _HARNESS, str(tmp_path / "child.log")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert harness.stdout is not None
    child = int(harness.stdout.readline())
    try:
        assert _alive(child)
        harness.send_signal(sig)
        rest = harness.communicate(timeout=30)[0]
        assert "stopped" in rest
        assert not _alive(child)
    finally:  # a failed run leaves nothing behind either
        harness.kill()
        harness.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child, signal.SIGKILL)
