"""A local host's first minutes: `tomtom-mcp-apps stdio` started as hosts start it, through
`uvx --isolated` from a built wheel.

    .venv/bin/python -m pip wheel . --no-deps -w dist/
    .venv/bin/python -m benchmarks.stdio_start --wheel dist/tomtom_mcp_apps-0.1.0-py3-none-any.whl
        [--warm-runs 2] [--fit-workers 2]

Each run starts the server with a user cache directory of its own (`XDG_CACHE_HOME`; uv's
package cache stays where it is, so no run downloads) and speaks MCP over its pipes as a
host does: `initialize`, then a geocode ("Amsterdam"), then a route from Amsterdam to
Utrecht, then closes its stdin. Printed per run: the time from start to each answer, from
stdin closed to the process gone, and whether stderr says "leaked semaphore".

- cold: an empty cache directory (the first start on a machine);
- warm: the same directory again (every later start);
- closed while warming: stdin closed right after `initialize` answers, on an empty cache,
  while the fitting workers compile (a host that gives up, or a client's quick probe).

Offline: no key, so the built-in offline upstream answers and no traffic leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

PROTOCOL = "2025-11-25"
AMSTERDAM = [4.8897, 52.3740]
UTRECHT = [5.1214, 52.0907]
ANSWER_S = 600.0
EXIT_S = 60.0
EXIT_POLL_S = 0.01
LEAKED = b"leaked semaphore"


@dataclass
class Run:
    label: str
    initialized_s: float
    geocode_s: float | None
    route_s: float | None
    exit_s: float
    returncode: int | None
    leaked: bool


def uvx_command(wheel: Path, fit_workers: int) -> list[str]:
    uvx = shutil.which("uvx") or str(Path(sys.executable).with_name("uvx"))
    return [
        uvx,
        "--isolated",
        "--from",
        str(wheel),
        "tomtom-mcp-apps",
        "stdio",
        "--fit-workers",
        str(fit_workers),
    ]


class Pipe:
    """One server process spoken to in newline-delimited JSON-RPC."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._next = 0

    async def request(self, method: str, params: dict[str, object]) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._next += 1
        ident = self._next
        message = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        self.proc.stdin.write(orjson.dumps(message) + b"\n")
        await self.proc.stdin.drain()
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), ANSWER_S)
            if not line:
                raise RuntimeError(f"the server closed its stdout before answering {method}")
            answer = orjson.loads(line)
            if answer.get("id") == ident:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer

    async def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(orjson.dumps({"jsonrpc": "2.0", "method": method}) + b"\n")
        await self.proc.stdin.drain()

    async def call(self, tool: str, arguments: dict[str, object]) -> None:
        answer = await self.request("tools/call", {"name": tool, "arguments": arguments})
        result = answer["result"]
        assert isinstance(result, dict)
        if result.get("isError"):
            raise RuntimeError(f"{tool}: {result.get('content')}")


async def one_run(label: str, command: list[str], env: dict[str, str], *, calls: bool) -> Run:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *command,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # uvx and the server: killed together when it overruns
    )
    assert proc.stderr is not None
    stderr = asyncio.create_task(proc.stderr.read())
    pipe = Pipe(proc)
    await pipe.request(
        "initialize",
        {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "stdio-start", "version": "1"},
        },
    )
    await pipe.notify("notifications/initialized")
    initialized = time.perf_counter() - started
    geocode = route = None
    if calls:
        await pipe.call("tomtom-geocode", {"query": "Amsterdam"})
        geocode = time.perf_counter() - started
        await pipe.call("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
        route = time.perf_counter() - started
    assert proc.stdin is not None
    closed = time.perf_counter()
    proc.stdin.close()
    # Polled, as the SDK's client does: `Process.wait()` also waits for the pipes' end.
    while proc.returncode is None and time.perf_counter() - closed < EXIT_S:
        await asyncio.sleep(EXIT_POLL_S)
    exited = time.perf_counter() - closed
    if proc.returncode is None:
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
    err = await asyncio.wait_for(stderr, EXIT_S)
    run = Run(label, initialized, geocode, route, exited, proc.returncode, LEAKED in err)
    print(run, flush=True)
    return run


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


async def main_async(args: argparse.Namespace) -> None:
    if args.wheel is not None:
        command = uvx_command(args.wheel.resolve(), args.fit_workers)
    else:  # this checkout's environment, as a host pointed at .venv/bin/tomtom-mcp-apps
        command = [sys.executable, "-m", "tomtom_mcp_apps", "stdio"]
        command += ["--fit-workers", str(args.fit_workers)]
    base = {**os.environ, "TOMTOM_API_KEY": "", "LOG_LEVEL": "INFO"}
    base.pop("NUMBA_CACHE_DIR", None)
    base.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="stdio-start-") as tmp:
        cache = Path(tmp, "cache")
        env = {**base, "XDG_CACHE_HOME": str(cache)}
        runs.append(await one_run("cold", command, env, calls=True))
        for i in range(args.warm_runs):
            runs.append(await one_run(f"warm {i + 1}", command, env, calls=True))
        for i in range(args.warming_runs):
            shutil.rmtree(cache, ignore_errors=True)
            runs.append(await one_run(f"closed while warming {i + 1}", command, env, calls=False))
    print(f"{' '.join(command)}  (fit workers: {args.fit_workers})")
    print(
        f"{'run':<26} {'initialize s':>12} {'geocode s':>10} {'route s':>8} "
        f"{'exit s':>7} {'rc':>4} leaked"
    )
    for run in runs:
        print(
            f"{run.label:<26} {run.initialized_s:>12.2f} {seconds(run.geocode_s):>10} "
            f"{seconds(run.route_s):>8} {run.exit_s:>7.2f} {run.returncode!s:>4} "
            f"{'yes' if run.leaked else 'no'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--wheel", type=Path, help="run with uvx from this wheel, not the checkout")
    parser.add_argument("--warm-runs", type=int, default=2)
    parser.add_argument("--warming-runs", type=int, default=2)
    parser.add_argument("--fit-workers", type=int, default=2)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
