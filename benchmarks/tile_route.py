"""What the tile route adds to a tile: `/tiles/...?t=TOKEN` beside the same tile fetched
from the upstream directly, in the same run.

    .venv/bin/python -m benchmarks.tile_route [--runs 400]

One replica (FIT_WORKERS=1) with the offline upstream process standing in for
TomTom (256-pixel PNG tiles of a few hundred bytes, answered from memory), both
on this machine, over real HTTP with keep-alive. The replica's per-token limit is
lifted (TILE_BURST) so the benchmark measures the route, not the limiter. Each
round fetches the same 64 tiles (zoom 6, an 8x8 block) once through the route and
once directly, alternating which goes first; `--runs` requests per side in all.
The route's share is the difference: token opening, checks, the upstream request
from the replica and the copy back, and one more process to wake on a shared CPU.
CPU time per tile (each process's own CPU-time clock, so less sensitive to how busy
the machine is) is printed for the replica per routed tile and, as the reference,
for the upstream per direct tile: what one Python HTTP server hop costs here.
Target: under 2 ms added at p50.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import time

import httpx

from loadtest.stats import format_table, percentile
from loadtest.topology import OFFLINE_KEY, run_topology
from loadtest.wire import call_tool
from tomtom_mcp_apps.server.tool_names import GET_MAP_CONFIG

TILES = [(6, 32 + i % 8, 20 + i // 8) for i in range(64)]


async def fetch_all(client: httpx.AsyncClient, template: str) -> list[float]:
    latencies = []
    for z, x, y in TILES:
        started = time.perf_counter()
        response = await client.get(template.format(z=z, x=x, y=y))
        latencies.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{response.status_code} for {response.url}: {response.text[:200]}")
    return latencies


def cpu_clock(pid: int) -> int:
    """The CPU-time clock of process `pid` (clock_getcpuclockid(3)), for `time.clock_gettime`.

    It counts every thread of the process in nanoseconds; /proc's utime and stime
    count clock ticks (10 ms), which a few dozen tiles of well under a millisecond
    each can leave at zero.
    """
    clock = ctypes.c_int()  # clockid_t
    error = ctypes.CDLL(None).clock_getcpuclockid(pid, ctypes.byref(clock))
    if error:
        raise OSError(error, f"no CPU-time clock for process {pid}: {os.strerror(error)}")
    return clock.value


async def measure(runs: int) -> tuple[list[float], list[float], int, float, float]:
    """(route ms, direct ms, tile bytes, replica CPU ms per routed tile, upstream CPU ms per
    direct tile), `runs` tiles each way."""
    env = {"TILE_BURST": "1000000", "LOG_LEVEL": "WARNING"}
    with run_topology(replicas=1, with_balancer=False, fit_workers=1, env=env) as topology:
        assert topology.upstream is not None
        direct = (
            f"{topology.upstream.url}/map/1/tile/basic/main/{{z}}/{{x}}/{{y}}.png"
            f"?tileSize=256&key={OFFLINE_KEY}"
        )
        async with httpx.AsyncClient(timeout=30) as client:
            config = await call_tool(client, topology.replica_urls[0], GET_MAP_CONFIG, {})
            route = config["_meta"]["com.tomtom/map-config"]["tiles"]["basemap"]
            size = len((await client.get(direct.format(z=6, x=32, y=20))).content)
            await fetch_all(client, route)  # warm both paths and their connections
            await fetch_all(client, direct)
            through: list[float] = []
            straight: list[float] = []
            cpu = {"replica": 0.0, "upstream": 0.0}
            clocks = {
                "replica": cpu_clock(topology.replicas[0].process.pid),
                "upstream": cpu_clock(topology.upstream.process.pid),
            }
            rounds = max(1, runs // len(TILES))
            for i in range(rounds):
                order = [(route, through, "replica"), (direct, straight, "upstream")]
                for template, into, measured in order if i % 2 == 0 else order[::-1]:
                    before = time.clock_gettime(clocks[measured])
                    into.extend(await fetch_all(client, template))
                    cpu[measured] += time.clock_gettime(clocks[measured]) - before
    per_tile = {name: seconds * 1000 / len(through) for name, seconds in cpu.items()}
    return through, straight, size, per_tile["replica"], per_tile["upstream"]


def report(
    through: list[float], straight: list[float], size: int, cpu_ms: float, upstream_cpu_ms: float
) -> str:
    rows = []
    for q in (50, 90, 99):
        via, ref = percentile(through, q), percentile(straight, q)
        rows.append([f"p{q}", f"{via:.2f}", f"{ref:.2f}", f"{via - ref:+.2f}", f"{via / ref:.2f}x"])
    title = (
        f"tile route vs the upstream directly: {len(through)} tiles each way, "
        f"{size:,}-byte PNG, one replica, same run"
    )
    table = format_table(["", "route ms", "direct ms", "added ms", "ratio"], rows)
    cpu = (
        f"replica CPU per routed tile: {cpu_ms:.2f} ms; upstream CPU per direct tile (one "
        f"server hop, the reference): {upstream_cpu_ms:.2f} ms"
    )
    return f"{title}\n{table}\n{cpu}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="tiles per side (default 400)")
    print(report(*asyncio.run(measure(parser.parse_args().runs))))


if __name__ == "__main__":
    main()
