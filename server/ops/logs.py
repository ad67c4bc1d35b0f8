"""Logging set-up: plain text for people, one JSON object per line for collectors.

Modules log through `logging.getLogger(__name__)`, structured fields in `extra`. A log
call only queues the record; a thread woken on a timer (`WRITE_EVERY_S`) writes it, so a
slow reader of stderr never blocks the event loop, and writes the rest at exit.
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import sys
import threading
from collections import deque
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


WRITE_EVERY_S = 0.02
"""How often the writing thread writes what was logged since it last woke."""


class _Enqueue(logging.handlers.QueueHandler):
    """Appends records to the writer's queue as they are: the message is merged with its
    arguments now (they may change), formatting is left to the writing thread."""

    def __init__(self, records: deque[logging.LogRecord]) -> None:
        super().__init__(records)  # type: ignore[arg-type]
        self._records = records

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        record.msg = record.getMessage()
        record.args = None
        return record

    def enqueue(self, record: logging.LogRecord) -> None:
        self._records.append(record)  # wakes nobody (`deque.append` is thread-safe)


class _Writer(threading.Thread):
    """Writes the queued records every `WRITE_EVERY_S`, and what is left when stopped."""

    def __init__(self, records: deque[logging.LogRecord], handler: logging.Handler) -> None:
        super().__init__(name="log-writer", daemon=True)
        self._records = records
        self._handler = handler
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.wait(WRITE_EVERY_S):
            self._write()
        self._write()

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def _write(self) -> None:
        while self._records:
            self._handler.handle(self._records.popleft())


_writer: _Writer | None = None


def stop_logging() -> None:
    """Write what is queued and stop the writing thread (at exit; again is harmless)."""
    global _writer
    if _writer is not None:
        _writer.stop()
        _writer = None


atexit.register(stop_logging)


def configure_logging(level: str, json: bool) -> None:
    global _writer
    stream = logging.StreamHandler(sys.stderr)
    stream.setFormatter(
        JsonFormatter()
        if json
        else TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    stop_logging()
    records: deque[logging.LogRecord] = deque()
    _writer = _Writer(records, stream)
    _writer.start()
    logging._srcfile = None  # no caller lookup per record (the logging HOWTO's optimization)
    root = logging.getLogger()
    root.handlers[:] = [_Enqueue(records)]
    root.setLevel(level)
    # The SDK and httpx log every request at INFO; our own request log says more.
    for noisy in ("httpx", "mcp.server.streamable_http", "mcp.server.lowlevel.server"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
