"""`BENCH_PROFILE=1 make bench`: where a processor's time goes under the bench's own load.

py-spy samples the processor (not its worker) through the latency phase, without pausing it,
threads idle in a wait left out; the collapsed stacks are kept in the run's log folder and
summed here into the functions that take the most samples, by their own time and with what they
call. Sampling takes CPU of its own (200 a second): the latency figures of a profiled run are
not those of a plain one.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

_LINE = re.compile(r":\d+\)$")  # one function, whatever line of it was running


class Profile:
    def __init__(self, pid: int, output: Path, rate: int = 200) -> None:
        self.output = output
        output.parent.mkdir(parents=True, exist_ok=True)
        spy = Path(sys.executable).with_name("py-spy")
        self._process = subprocess.Popen(
            [str(spy), "record", "--pid", str(pid), "--nonblocking", "--rate", str(rate),
             "--format", "raw", "--output", str(output)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )  # fmt: skip

    def stop(self) -> bool:
        """py-spy writes its file when interrupted; False, and why, when it could not sample."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
        _, errors = self._process.communicate(timeout=60)
        if not self.output.exists():
            print(f"py-spy did not sample: {errors.decode(errors='replace')[-500:]}")
            return False
        return True


def _tallied(collapsed: str) -> tuple[Counter[str], Counter[str]]:
    """(own, cumulative) shares of all samples by function: the function running, and every
    function on the stack (counted once per stack)."""
    own: Counter[str] = Counter()
    cumulative: Counter[str] = Counter()
    total = 0
    for line in collapsed.splitlines():
        stack, _, samples = line.rpartition(" ")
        if not stack or not samples.isdigit():
            continue
        frames = [_LINE.sub(")", frame) for frame in stack.split(";")]
        n = int(samples)
        total += n
        own[frames[-1]] += n
        for frame in dict.fromkeys(frames):  # once per stack, in order
            cumulative[frame] += n
    share = 1 / max(1, total)
    return (
        Counter({f: n * share for f, n in own.items()}),
        Counter({f: n * share for f, n in cumulative.items()}),
    )


def side_by_side(
    today: tuple[str, float], baseline: tuple[str, float], count: int = 25
) -> list[tuple[str, float, float]]:
    """(function, today's ms, the baseline's ms) a request, with callees, largest difference
    first: each side's samples (collapsed stacks) spread over its CPU ms per request."""
    ours, theirs = (Counter({f: s * ms for f, s in _tallied(stacks)[1].items()})
                    for stacks, ms in (today, baseline))  # fmt: skip
    ranked = sorted(ours.keys() | theirs.keys(), key=lambda f: theirs[f] - ours[f])
    return [(f, ours[f], theirs[f]) for f in ranked[:count]]


def top(collapsed: str, count: int = 12) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(own, cumulative): the functions with the largest shares of all samples."""
    own, cumulative = _tallied(collapsed)
    return own.most_common(count), cumulative.most_common(count)
