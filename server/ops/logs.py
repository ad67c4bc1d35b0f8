"""Logging set-up: plain text for people, one JSON object per line for collectors.

Every module logs through `logging.getLogger(__name__)` and passes structured
fields with `extra={"event": ..., ...}`; the JSON formatter keeps those fields.
A log call only puts the record on a queue: a thread formats and writes it, so a
slow reader of stderr (a full pipe, a busy log collector) never blocks the event
loop. The queue is flushed at exit.
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import queue
import sys
from typing import Any

import orjson

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and every `extra` field."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD:
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


class TextFormatter(logging.Formatter):
    """Readable lines with the structured fields appended as key=value."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(f"{k}={v}" for k, v in vars(record).items() if k not in _STANDARD)
        return f"{line} {fields}" if fields else line


class _Enqueue(logging.handlers.QueueHandler):
    """Puts records on the queue as they are: the message is merged with its arguments now
    (they may change), formatting is left to the writing thread."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        record.msg = record.getMessage()
        record.args = None
        return record


_listener: logging.handlers.QueueListener | None = None


def stop_logging() -> None:
    """Write what is queued and stop the writing thread (at exit; again is harmless)."""
    global _listener
    if _listener is not None:
        _listener.stop()
        _listener = None


atexit.register(stop_logging)


def configure_logging(level: str, json: bool) -> None:
    global _listener
    writer = logging.StreamHandler(sys.stderr)
    writer.setFormatter(
        JsonFormatter()
        if json
        else TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    stop_logging()
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    _listener = logging.handlers.QueueListener(records, writer)
    _listener.start()
    root = logging.getLogger()
    root.handlers[:] = [_Enqueue(records)]
    root.setLevel(level)
    # The SDK and httpx log every request at INFO; our own request log says more.
    for noisy in ("httpx", "mcp.server.streamable_http", "mcp.server.lowlevel.server"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
