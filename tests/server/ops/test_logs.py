"""Log calls hand their records to a thread: a stuck log reader never holds up the caller."""

from __future__ import annotations

import io
import logging
import sys
import threading
import time

import orjson
import pytest

from tomtom_mcp_apps.server.ops import logs

WAIT_S = 10.0


class Stuck(io.TextIOBase):
    """stderr whose reader has stopped reading: every write blocks until `release`."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        self.release.wait(WAIT_S)
        self.lines.append(text)
        return len(text)


def test_logging_returns_while_the_writer_is_blocked_and_every_line_is_written_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    stderr = Stuck()
    monkeypatch.setattr(sys, "stderr", stderr)
    logs.configure_logging("INFO", json=True)
    try:
        log = logging.getLogger("tomtom_mcp.test")
        for i in range(200):
            log.info("call %d answered", i, extra={"event": "tool_call", "n": i})
        assert stderr.lines == []  # 200 calls returned; nothing could be written yet
        stderr.release.set()
        deadline = time.monotonic() + WAIT_S
        while sum(line.count("\n") for line in stderr.lines) < 200:
            assert time.monotonic() < deadline, "the logging thread did not write the lines"
            time.sleep(0.01)
    finally:
        stderr.release.set()
        logs.stop_logging()
        root.handlers[:], level = saved
        root.setLevel(level)
    records = [orjson.loads(line) for line in "".join(stderr.lines).splitlines()]
    assert [r["n"] for r in records] == list(range(200))
    assert records[7]["message"] == "call 7 answered" and records[7]["event"] == "tool_call"
