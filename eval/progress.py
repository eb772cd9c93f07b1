"""Progress lines for the long suites: done / total, elapsed, ETA."""

from __future__ import annotations

import time


class Progress:
    """One line every few seconds for a long phase: done / total, elapsed, ETA."""

    def __init__(self, label: str, total: int, every_s: float = 10.0) -> None:
        self.label, self.total, self.every = label, total, every_s
        self.started = self.last = time.monotonic()

    def update(self, done: int, total: int | None = None, *, force: bool = False) -> None:
        self.total = total if total is not None else self.total
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.started
        eta = f", ETA {elapsed / done * (self.total - done):.0f} s" if 0 < done < self.total else ""
        print(f"  {self.label}: {done}/{self.total}, {elapsed:.0f} s{eta}", flush=True)
