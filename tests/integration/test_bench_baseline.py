"""`BENCH_BASELINE=<ref> make bench`: another revision's processor measured beside today's in one
run, on the same memories, its figures under `baseline_` + the same keys. A short run, with
today's own commit as the baseline (always present, even in a fresh clone)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
SHORT = {
    "BENCH_USERS": "12",
    "BENCH_MEMORIES_PER_USER": "8",
    "BENCH_ROUNDS": "10",
    "BENCH_WARMUP": "3",
    "BENCH_CPU_BLOCK": "12",
    "BENCH_CPU_ROUNDS": "1",
    "BENCH_SCALE_BLOCK": "12",
    "BENCH_CONTENTION_ROUNDS": "24",
    "BENCH_FLOOR_ROUNDS": "10",
    "BENCH_RATE": "40",
    "BENCH_FRESH": "1",
}


@pytest.mark.timeout(600)
def test_a_baseline_revision_is_measured_beside_today_in_the_same_run(tmp_path: Path) -> None:
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip
    try:
        run = subprocess.run(
            [sys.executable, "-m", "bench"],
            cwd=ROOT,
            env={
                **os.environ,
                **SHORT,
                "BENCH_BASELINE": "HEAD",
                "BENCH_PLOT": str(tmp_path / "baseline.png"),
            },
            capture_output=True,
            text=True,
            timeout=540,
            check=False,
        )
    finally:  # a worktree per commit tested would pile up under .run/baseline
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                        str(ROOT / ".run" / "baseline" / head)], check=False)  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["baseline_ref"] == "HEAD"
    assert result["baseline_commit"] == head
    figures = [k for k, v in result.items()
               if isinstance(v, int | float) and not isinstance(v, bool)
               and not k.startswith("baseline_")
               and k not in ("rate_per_s", "memories", "users", "concurrency",
                             "requests_per_kind")]  # fmt: skip
    assert "retrieval_processor_alone_cpu_ms" in figures
    assert "retrieval_zh_added_p50_ms" in figures
    assert [k for k in figures if f"baseline_{k}" not in result] == []
    # both sides served from the same memories: English questions found them on each
    assert result["retrieval_injected_share"] > 0
    assert result["baseline_retrieval_injected_share"] > 0
    assert result["baseline_retrieval_processor_alone_cpu_ms"] > 0
    # the long conversation asked to be compressed was, from what the worker keeps of it
    assert result["compressed_share"] == 1.0
    assert result["baseline_compressed_share"] == 1.0
    assert "compressed_over_conversation_cpu_ms" in figures
    # the side-by-side table: a figure, today's, the baseline's and their ratio
    (row,) = [line for line in run.stdout.splitlines()
              if line.startswith("retrieval_processor_alone_cpu_ms ")]  # fmt: skip
    today, baseline, ratio = (float(x) for x in row.split()[1:])
    assert (today, baseline) == (
        result["retrieval_processor_alone_cpu_ms"],
        result["baseline_retrieval_processor_alone_cpu_ms"],
    )
    assert ratio == pytest.approx(today / baseline, abs=0.01)
    assert (tmp_path / "baseline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the plot
