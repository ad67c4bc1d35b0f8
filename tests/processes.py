"""Real processes for integration tests: the offline upstream and server replicas.

Each process gets a free port on 127.0.0.1, its stderr goes to a file the test
can read (JSON log lines), readiness is polled on `/health` with a bound, and
the process is always terminated.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from loadtest.topology import free_port

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "server.cli"]
START_TIMEOUT_S = 120.0


@dataclass
class Process:
    url: str
    log_path: Path
    popen: subprocess.Popen[bytes]

    def log_events(self) -> list[dict]:
        """The JSON log lines written so far (non-JSON lines skipped)."""
        events = []
        for line in self.log_path.read_bytes().splitlines():
            with contextlib.suppress(orjson.JSONDecodeError):
                events.append(orjson.loads(line))
        return events


@contextlib.contextmanager
def running(args: list[str], env: Mapping[str, str] | None = None) -> Iterator[Process]:
    """Run `tomtom-mcp-apps <args> --port P` until the block ends; wait for `/health`."""
    port = free_port()
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TOMTOM_")},
        "LOG_FORMAT": "json",
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    log_dir = Path(tempfile.mkdtemp(prefix="tomtom-"))
    log_path = log_dir / f"{args[0]}-{port}.log"
    with log_path.open("wb") as log_file:
        popen = subprocess.Popen(
            [*CLI, *args, "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=full_env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        process = Process(f"http://127.0.0.1:{port}", log_path, popen)
        try:
            _wait_healthy(process)
            yield process
        finally:
            popen.terminate()
            try:
                popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait(timeout=5)


def _wait_healthy(process: Process) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise RuntimeError(
                f"process exited with {process.popen.returncode}:\n"
                + process.log_path.read_text(errors="replace")[-4000:]
            )
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(process.url + "/health", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise TimeoutError(f"{process.url}/health not ready in {START_TIMEOUT_S:.0f} s")
