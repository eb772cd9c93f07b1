"""Structured JSON logs, one object per line. Memory contents never go in at INFO or above."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update((k, v) for k, v in record.__dict__.items() if k not in _STANDARD)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def setup(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    formatter = JsonFormatter()
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("grpc", "asyncio"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    # pymilvus prints every failed RPC with a traceback on its own handler; the store reports
    # failures itself, once, as JSON.
    # (pymilvus.settings configures itself and two children apart, with handlers of their own,
    # when first imported: import it now, or a later import undoes this.)
    import pymilvus.settings

    for name in ("pymilvus", "pymilvus.milvus_client", "pymilvus.bulk_writer"):
        pymilvus = logging.getLogger(name)
        pymilvus.handlers.clear()
        pymilvus.propagate = True
        pymilvus.setLevel(logging.CRITICAL)
