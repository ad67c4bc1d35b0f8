"""Short calls against the floor: a bare SDK tool, a geocode and a short route, on this
checkout and on earlier releases, in one run.

    .venv/bin/python -m benchmarks.short_calls [--quick] [--rounds 5] [--calls 40]
        [--release 4eabb7b --release b087c95] [--no-releases]

One process tree, started here and stopped at the end:

- a stand-in TomTom (`tests.standin`: the offline upstream in a process of its own, its
  clock fixed so that every answer after the first comes from its cache, in about a
  millisecond);
- the floor: `benchmarks.bare_server`, a bare `mcp` server whose one tool returns a short
  string, in the replica's server setup (uvicorn, uvloop, httptools, stateless JSON);
- two replicas of this checkout and of each `--release` (a commit, checked out once as a
  git worktree with a virtualenv of its own under `--releases-dir`, then reused; a
  release that cannot be installed is reported and left out): one with the stand-in as
  TomTom (one key, TomTom's rates out of the way), one keyless, whose built-in offline
  upstream answers in process. One fitting worker each.

Calls, one at a time over a kept-alive connection per process, as a host sends them
(`loadtest.wire`): the floor's tool; `tomtom-geocode` of "Amsterdam" on the keyless
replica (a short answer from the offline upstream); `tomtom-routing` from Rotterdam to
Cologne on the keyed one (4,342 points, 233 KB decoded, the map data inline: a
short route, decoded and encoded on the event loop). Each round calls, call by call, every
server of a comparison in turn, in an order that rotates from round to round, so a shared
machine's drift falls on all alike: the floor's tool with the geocodes it is
the floor of, then the short routes. A call so finds the caches of the machine as the
calls it is compared with find them: the floor called back to back, alone, would run
with its code and data still in the caches, the geocodes after one another's, which on
some machines is most of the difference (docs/testing.md, Benchmarks). The table pools
the rounds and gives each round's p50 beside.

Beside each server's wall times, its CPU per call: the answering process and its
children (`/proc`), less what they spend idle (measured for `IDLE_S` before the rounds),
which a shared machine's load does not change; its ratios are printed too, for reading
the wall-time targets on a busy machine (they are not targets themselves).

Then, in this process and in CPU time (so other processes on the machine do not count),
the route job of this checkout as the replica runs it and its answer checks alone, on the
stand-in's very body.

Targets, ratios from this run: short route p50 <= 0.7x b087c95's and <= 1.0x
4eabb7b's; geocode p50 <= 1.5x the bare tool's; answer checks <= 15% of the route job.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks import bare_server
from loadtest.stats import format_table, percentile
from loadtest.topology import (
    OFFLINE_KEY,
    Service,
    TopologyError,
    free_port,
    replica_env,
    start,
    stop,
    wait_listening,
    wait_ready,
)
from loadtest.wire import Call, ToolError, call_tool, result_text
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server import bodies, jobs
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.ops.heap import freeze_startup_heap
from tomtom_mcp_apps.server.outbound import Network
from tomtom_mcp_apps.server.tomtom import Pacer, TomTomClient
from tomtom_mcp_apps.server.tool_names import GEOCODE, ROUTING
from tomtom_mcp_apps.server.tools._route_options import DEFAULT_SECTIONS, route_params

ROOT = Path(__file__).resolve().parent.parent
RELEASES = ("4eabb7b", "b087c95")
"""The earlier releases compared by default, newest first."""
RELEASES_DIR = Path.home() / ".cache" / "tomtom-mcp-apps" / "releases"
CLOCK = "2026-12-01T12:00:00+00:00"
"""The stand-in's fixed moment: its answers never change, so all come from its cache."""

ROUTE = [[4.48, 51.92], [6.96, 50.94]]
"""Rotterdam to Cologne: 4,342 points from the offline upstream, a short route."""
CASES: dict[str, Call] = {
    "tool": (bare_server.TOOL, {"query": "Amsterdam"}),
    "geocode": (GEOCODE, {"query": "Amsterdam"}),
    "short route": (ROUTING, {"locations": ROUTE}),
}
COMPARISONS = (("tool", "geocode"), ("short route",))
"""The cases called in one rotation: each with what its ratios are taken against."""
WARM_UP = 3
"""Untimed calls of each case on each server before the first round."""
IDLE_S = 2.0
"""How long each server's CPU is measured idle (its timers, its workers), before the
rounds: that rate times the rounds' length is taken off its CPU per call."""

TARGET_ROUTE_VS_START = 0.7
TARGET_ROUTE_VS_BEFORE = 1.0
TARGET_GEOCODE_VS_BARE = 1.5
TARGET_CHECKS_SHARE = 0.15


@dataclass
class Server:
    """One server under test: which process answers each case, and the samples taken."""

    label: str
    urls: dict[str, str]
    """The `/mcp` URL that answers each case."""
    pids: dict[str, int] = field(default_factory=dict)
    """The process that answers each case (its children count with it)."""
    samples: dict[str, list[list[float]]] = field(default_factory=dict)
    """Milliseconds per call, by case, one list per round."""
    cpu_ms: dict[str, float] = field(default_factory=dict)
    """CPU milliseconds per timed call, by case, of the answering process and its children,
    less what it spends idle (`IDLE_S`): what the server spends on a call, whatever else
    the shared machine runs meanwhile."""

    def record(self, case: str, rnd: int, ms: float) -> None:
        rounds = self.samples.setdefault(case, [])
        while len(rounds) <= rnd:
            rounds.append([])
        rounds[rnd].append(ms)

    def pooled(self, case: str) -> list[float]:
        return [ms for rnd in self.samples.get(case, []) for ms in rnd]

    def p50(self, case: str) -> float:
        return percentile(self.pooled(case), 50)


# --- releases side by side ------------------------------------------------------------------


def _run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"{' '.join(command[:4])} failed: {' / '.join(tail)}")


def installed(commit: str, home: Path) -> Path:
    """The checkout of release `commit` under `home`, with its virtualenv: a detached git
    worktree and `pip install -e .` the first time, as they are afterwards."""
    where = home / commit
    done = where / ".venv" / "installed"
    if done.exists():
        return where
    if not (where / "pyproject.toml").exists():
        home.mkdir(parents=True, exist_ok=True)
        _run(["git", "worktree", "add", "--detach", str(where), commit], ROOT)
    _run([sys.executable, "-m", "venv", str(where / ".venv")], where)
    _run([str(where / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q", "-e", "."], where)
    done.write_text(commit)
    return where


# --- the process tree -----------------------------------------------------------------------


@contextlib.contextmanager
def services(releases: list[str], home: Path) -> Iterator[tuple[list[Server], Service]]:
    """The stand-in, the floor, and two replicas of this checkout and of each release (one
    with the stand-in as TomTom for the route, one keyless, whose built-in offline upstream
    answers the geocode), all ready; stopped on exit. Yields the servers and the stand-in."""
    with tempfile.TemporaryDirectory(prefix="short-calls-") as tmp, contextlib.ExitStack() as stack:
        workdir = Path(tmp)
        started: list[Service] = []
        stack.callback(lambda: stop(started))

        def launch(name: str, args: list[str], env: dict[str, str] | None, cwd: Path) -> Service:
            port = free_port()
            service = start(name, [*args, "--port", str(port)], port, workdir, env, cwd=cwd)
            started.append(service)
            return service

        python = sys.executable
        standin = launch("standin", [python, "-m", "tests.standin", "--clock", CLOCK], None, ROOT)
        bare = launch("bare", [python, "-m", "benchmarks.bare_server"], None, ROOT)
        versions = [("this checkout", python, ROOT)]
        for commit in releases:
            try:
                where = installed(commit, home)
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
                print(f"release {commit} left out: it cannot be installed ({exc})", flush=True)
                continue
            versions.append((commit, str(where / ".venv" / "bin" / "python"), where))
        keyed = replica_env(standin.url, {"FIT_WORKERS": "1"})
        keyless = replica_env(None, {"FIT_WORKERS": "1"})
        for env in (keyed, keyless):
            env.pop("PYTHONPATH", None)  # each replica imports its own checkout's code
        replicas = []
        for label, interpreter, cwd in versions:
            serve = [interpreter, "-m", command_module(cwd), "serve", "--host", "127.0.0.1"]
            name = label.replace(" ", "-")
            route = launch(f"{name}-keyed", serve, keyed, cwd)
            geocode = launch(f"{name}-keyless", serve, keyless, cwd)
            replicas.append((label, route, geocode))
        wait_ready(standin, 60)
        wait_listening(bare, 60)
        servers = [Server("bare SDK tool", {"tool": f"{bare.url}/mcp"}, {"tool": bare.process.pid})]
        for label, route, geocode in replicas:
            try:
                for service in (route, geocode):
                    wait_ready(service, 300)  # a release's first start compiles numba kernels
            except TopologyError as exc:
                print(f"{label} left out: it did not start\n{exc}", flush=True)
                continue
            urls = {"geocode": f"{geocode.url}/mcp", "short route": f"{route.url}/mcp"}
            pids = {"geocode": geocode.process.pid, "short route": route.process.pid}
            servers.append(Server(label, urls, pids))
        yield servers, standin


def command_module(tree: Path) -> str:
    """The module that runs the command line in `tree`: releases before 0.2.0 had no
    `tomtom_mcp_apps` package and ran `server.cli`."""
    return "tomtom_mcp_apps" if (tree / "tomtom_mcp_apps").is_dir() else "server.cli"


# --- measuring ------------------------------------------------------------------------------


async def measure(servers: list[Server], rounds: int, calls: int) -> dict[str, str]:
    """Every server's cases, `calls` per case and round, the servers of a comparison
    alternating call by call; what each server's route answer held (for the table)."""
    shapes: dict[str, str] = {}
    async with contextlib.AsyncExitStack() as stack:
        clients = {
            url: await stack.enter_async_context(httpx.AsyncClient(timeout=60))
            for server in servers
            for url in server.urls.values()
        }
        for server in servers:
            for case, url in server.urls.items():
                for _ in range(WARM_UP):
                    result = await _call(clients[url], url, CASES[case])
                if case == "short route":
                    shapes[server.label] = _shape(result)
        idle = _cpu_by_process(servers)
        await asyncio.sleep(IDLE_S)
        idle = {k: (v - idle[k]) / IDLE_S for k, v in _cpu_by_process(servers).items()}
        cpu_before = _cpu_by_process(servers)
        started_all = time.perf_counter()
        for rnd in range(rounds):
            for turns in rotations(servers, rnd):
                for _ in range(calls):
                    for server, case in turns:
                        url = server.urls[case]
                        started = time.perf_counter()
                        await _call(clients[url], url, CASES[case])
                        server.record(case, rnd, (time.perf_counter() - started) * 1000)
    measuring = time.perf_counter() - started_all
    for (label, case), cpu in _cpu_by_process(servers).items():
        spent = cpu - cpu_before[label, case] - idle[label, case] * measuring
        server = next(s for s in servers if s.label == label)
        server.cpu_ms[case] = spent * 1000 / len(server.pooled(case))
    return shapes


def rotations(servers: list[Server], rnd: int) -> list[list[tuple[Server, str]]]:
    """The turns of round `rnd`, one list per comparison (`COMPARISONS`): each server's
    cases of it, servers in an order that starts one further along every round."""
    order = servers[rnd % len(servers) :] + servers[: rnd % len(servers)]
    return [[(s, case) for s in order for case in cases if case in s.urls] for cases in COMPARISONS]


def _cpu_by_process(servers: list[Server]) -> dict[tuple[str, str], float]:
    return {(s.label, case): tree_cpu_s(pid) for s in servers for case, pid in s.pids.items()}


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user and system) so far of process `pid` and its live descendants."""
    ticks = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    spent: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        child = int(stat.parent.name)
        parent[child] = int(fields[1])
        spent[child] = (int(fields[11]) + int(fields[12])) / ticks

    def descends(child: int) -> bool:
        while child != pid and child in parent and child > 1:
            child = parent[child]
        return child == pid

    return sum(cpu for child, cpu in spent.items() if descends(child))


async def _call(client: httpx.AsyncClient, url: str, call: Call) -> dict[str, Any]:
    result = await call_tool(client, url, *call)
    if result.get("isError"):
        raise ToolError(f"{call[0]} answered with an error: {result_text(result)}")
    return result


def _shape(result: dict[str, Any]) -> str:
    """Points drawn and app-data characters of a route result, e.g. "4,225 pts, 61,234 ch"."""
    app_data = (result.get("_meta") or {}).get("com.tomtom/app-data")
    if not app_data:
        return "no app data"
    envelope = fitting.decode(app_data)
    points = sum(
        len(fitting.to_geojson(f["geometry"])["coordinates"])
        for f in envelope["data"]["features"]
        if f["geometry"]["type"] == "LineString"
    )
    fitted = " fitted" if envelope["fitted"] else ""
    return f"{points:,} pts{fitted}, {len(app_data):,} ch"


def job_split(standin_url: str, repeats: int) -> tuple[float, float]:
    """CPU milliseconds (medians) of this checkout's route job on the stand-in's very body,
    fetched as the tool fetches it, and of its answer checks alone (`jobs.checked_routes`,
    each run on a body parsed afresh, untimed). The two alternate run by run, after one
    untimed run each, so a shared machine's drift falls on both alike, in a heap set up as a
    replica's (`freeze_startup_heap`)."""
    raw = asyncio.run(_route_body(standin_url))
    budget = Settings().budget
    freeze_startup_heap()
    job, checks = [], []
    for _ in range(repeats + 1):
        started = time.thread_time()
        jobs.routing(raw, ROUTE, True, budget)
        job.append((time.thread_time() - started) * 1000)
        body, text = bodies.parsed(raw, bodies.split_route_body)
        started = time.thread_time()
        jobs.checked_routes(body, text)
        checks.append((time.thread_time() - started) * 1000)
    return statistics.median(job[1:]), statistics.median(checks[1:])


async def _route_body(standin_url: str) -> bodies.RawBody:
    """The calculateRoute body as the routing tool asks for it, from the stand-in."""
    client = TomTomClient(Network(1), standin_url, OFFLINE_KEY, pacer=Pacer({}, max_wait_s=10))
    try:
        return await client.calculate_route_raw(
            ROUTE, section_types=DEFAULT_SECTIONS, key=None, params=route_params()
        )
    finally:
        await client.aclose()


# --- reporting ------------------------------------------------------------------------------


def report(servers: list[Server], shapes: dict[str, str], split: tuple[float, float]) -> bool:
    """Print the tables and the targets; True when every target measured is met."""
    rows = []
    for server in servers:
        for case in server.urls:
            pooled = server.pooled(case)
            rows.append(
                [
                    server.label,
                    case,
                    shapes.get(server.label, "") if case == "short route" else "",
                    len(pooled),
                    percentile(pooled, 50),
                    percentile(pooled, 99),
                    server.cpu_ms.get(case, float("nan")),
                    " ".join(f"{percentile(r, 50):.1f}" for r in server.samples.get(case, [])),
                ]
            )
    headers = [
        "server",
        "case",
        "route result",
        "calls",
        "p50 ms",
        "p99 ms",
        "CPU ms",
        "p50 by round",
    ]
    print(format_table(headers, rows))
    print()
    by_label = {s.label: s for s in servers}
    ours = by_label.get("this checkout")
    bare = by_label["bare SDK tool"]
    verdicts: list[bool] = []

    def target(what: str, value: float, limit: float, unit: str = "x") -> None:
        met = value <= limit
        verdicts.append(met)
        shown = f"{value:.0%}" if unit == "%" else f"{value:.2f}x"
        bound = f"{limit:.0%}" if unit == "%" else f"{limit:.2f}x"
        print(f"  {what:<44} {shown:>7}  (target <= {bound}): {'met' if met else 'MISSED'}")

    print("ratios of p50s from this run, and the targets:")
    if ours is not None:
        route, geocode = ours.p50("short route"), ours.p50("geocode")
        for commit, limit in (
            ("b087c95", TARGET_ROUTE_VS_START),
            ("4eabb7b", TARGET_ROUTE_VS_BEFORE),
        ):
            if commit in by_label:
                target(
                    f"short route: this checkout / {commit}",
                    route / by_label[commit].p50("short route"),
                    limit,
                )
        for label, server in by_label.items():
            if label not in ("this checkout", "bare SDK tool", "b087c95", "4eabb7b"):
                ratio = route / server.p50("short route")
                print(f"  {'short route: this checkout / ' + label:<44} {ratio:.2f}x")
        for commit in ("b087c95", "4eabb7b"):
            if commit in by_label:
                ratio = ours.cpu_ms["short route"] / by_label[commit].cpu_ms["short route"]
                print(f"  {'short route CPU: this checkout / ' + commit:<44} {ratio:.2f}x")
        target("geocode: this checkout / bare SDK tool", geocode / bare.p50("tool"),
               TARGET_GEOCODE_VS_BARE)  # fmt: skip
        for label, server in by_label.items():
            if label not in ("this checkout", "bare SDK tool"):
                ratio = server.p50("geocode") / bare.p50("tool")
                print(f"  {'geocode: ' + label + ' / bare SDK tool':<44} {ratio:.2f}x")
        ratio = ours.cpu_ms["geocode"] / bare.cpu_ms["tool"]
        print(f"  {'geocode CPU: this checkout / bare SDK tool':<44} {ratio:.2f}x")
    job_ms, checks_ms = split
    print(f"\nroute job of this checkout, CPU ms (median): {job_ms:.2f}; its answer checks: "
          f"{checks_ms:.2f}")  # fmt: skip
    target("answer checks / route job", checks_ms / job_ms, TARGET_CHECKS_SHARE, "%")
    met = all(verdicts)
    print(f"\ntargets met: {sum(verdicts)} of {len(verdicts)}" + ("" if met else " (NOT ALL)"))
    return met


def main(argv: list[str] | None = None) -> bool:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="2 rounds of 15 calls")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=40, help="calls per case, server and round")
    parser.add_argument(
        "--release", action="append", help=f"an earlier commit to run beside (default: {RELEASES})"
    )
    parser.add_argument("--no-releases", action="store_true", help="this checkout alone")
    parser.add_argument("--releases-dir", type=Path, default=RELEASES_DIR)
    args = parser.parse_args(argv)
    rounds, calls = (2, 15) if args.quick else (args.rounds, args.calls)
    releases = [] if args.no_releases else list(args.release or RELEASES)
    with services(releases, args.releases_dir) as (servers, standin):
        print(
            f"short calls: {rounds} rounds x {calls} calls per case and server, one at a time; "
            f"stand-in TomTom at {standin.url}; {os.cpu_count()} cores\n",
            flush=True,
        )
        shapes = asyncio.run(measure(servers, rounds, calls))
        split = job_split(standin.url, 40 if args.quick else 200)
    return report(servers, shapes, split)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
