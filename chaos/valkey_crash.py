"""`python -m chaos.valkey_crash`: how many acknowledged stream appends a Valkey killed -9 loses.

Valkey as `make run` and the tests start it (devstack/valkey.py: append-only file, fsync every
second) takes appends of batch-sized entries as fast as one client sends them; it is killed -9
at a different point of its fsync second each round, restarted on its files, and the entries
it kept are counted against those it acknowledged. A process kill is what this measures: an
acknowledged append has reached the operating system, which keeps it; a crash of the machine
itself may lose what the last fsync (at most a second back) did not write.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import valkey

from devstack.ports import free_port
from devstack.valkey import ValkeyProcess

STREAM = "memory-extproc:turns"
ENTRY = {"batch": b"x" * 2000, "user": b"0" * 32}  # about a batch of two short turns


def one_round(folder: Path, kill_after_s: float) -> tuple[int, int]:
    """(appends acknowledged, entries kept after the restart)."""
    port = free_port()
    server = ValkeyProcess(folder, port)
    server.wait_ready()
    acknowledged = 0
    stop = threading.Event()

    def append() -> None:
        nonlocal acknowledged
        with valkey.Valkey(port=port, socket_timeout=2) as client:
            while not stop.is_set():
                try:
                    client.xadd(STREAM, ENTRY)
                except valkey.ValkeyError:  # killed
                    return
                acknowledged += 1

    writer = threading.Thread(target=append)
    writer.start()
    time.sleep(kill_after_s)
    server.kill()
    stop.set()
    writer.join()
    server = ValkeyProcess(folder, port)
    server.wait_ready()
    with valkey.Valkey(port=port) as client:
        kept = int(client.xlen(STREAM))
    server.stop()
    return acknowledged, kept


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    results = []
    for n in range(rounds):
        with tempfile.TemporaryDirectory() as folder:
            acknowledged, kept = one_round(Path(folder), 2.0 + n * 0.9 / max(1, rounds - 1))
        results.append({"acknowledged": acknowledged, "kept": kept, "lost": acknowledged - kept})
        print(f"round {n + 1}: {acknowledged} appends acknowledged, {kept} kept", flush=True)
    print(json.dumps({"rounds": results, "lost": sum(r["lost"] for r in results)}))


if __name__ == "__main__":
    main()
