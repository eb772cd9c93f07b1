"""Time as memories carry it: epoch milliseconds, shown as ISO 8601 (UTC)."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_ms() -> int:
    return int(time.time() * 1000)


def iso(ms: int) -> str | None:
    """An instant for the API (None for 0: never / unknown)."""
    if not ms:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def day(ms: int) -> str:
    """The date of an instant, as prompts, notes and injected memories show it."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()
