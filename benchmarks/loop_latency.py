"""Does the event loop stall while long routes are fitted? Pool versus FIT_INLINE=1.

    .venv/bin/python -m benchmarks.loop_latency [--probes 150] [--routes 4] [--maps 1]

For each mode (the process pool, then fitting forced inline on the event loop)
one replica is started against the separate offline upstream, and a cheap
call (`tomtom-geocode`, a few hundred bytes of app data) is timed back to back:
first idle, then while `--routes` concurrent loops request Lisbon-Warsaw
routes (about 40,000 points each, fitted to the budget) and `--maps`
concurrent loops request dynamic maps of ten routes (about 1,000,000 points).
Seeded by the offline upstream, so every run fits the same geometry.
Target: with the pool, p99 under load at most 3x the idle p99.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

import httpx

from loadtest.mix import AMSTERDAM, LISBON, LONG_ROUTE, MADRID, PARIS, ROME, WARSAW
from loadtest.stats import format_table, percentile
from loadtest.topology import run_topology
from loadtest.wire import CallFailed, ToolError, call_tool

PROBE = ("tomtom-geocode", {"query": "Dam 1, Amsterdam"})
LONG = ("tomtom-routing", {"locations": LONG_ROUTE})
# Ten routes of two to three Lisbon-Warsaw-sized legs: about 1,000,000 points.
_ZIGZAGS = [
    [LISBON, WARSAW, LISBON], [WARSAW, LISBON, WARSAW], [LISBON, WARSAW, MADRID],
    [WARSAW, MADRID, WARSAW], [MADRID, WARSAW, LISBON], [LISBON, WARSAW, ROME, LISBON],
    [ROME, LISBON, WARSAW], [PARIS, LISBON, WARSAW, PARIS], [AMSTERDAM, LISBON, WARSAW],
    [WARSAW, LISBON, AMSTERDAM],
]
HUGE_MAP = ("tomtom-dynamic-map", {"routes": [{"locations": z} for z in _ZIGZAGS]})


async def _probe(client: httpx.AsyncClient, url: str, n: int) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await call_tool(client, url, *PROBE)
        samples.append((time.perf_counter() - started) * 1000.0)
    return samples


async def _load(client: httpx.AsyncClient, url: str, call: tuple[str, dict], stop: asyncio.Event,
                done: list[str]) -> None:
    while not stop.is_set():
        try:
            result = await call_tool(client, url, *call)
            done.append("error" if result.get("isError") else "ok")
        except (CallFailed, ToolError) as exc:
            done.append(f"failed: {exc}")


async def measure(url: str, probes: int, routes: int, maps: int) -> dict[str, object]:
    """Idle and loaded probe latencies on one replica, plus how much load completed."""
    async with httpx.AsyncClient(timeout=600.0, limits=httpx.Limits(max_connections=100)) as c:
        await _probe(c, url, 10)  # connections and first-call costs out of the way
        idle = await _probe(c, url, probes)
        stop, done = asyncio.Event(), []
        loaders = [asyncio.create_task(_load(c, url, LONG, stop, done)) for _ in range(routes)]
        loaders += [asyncio.create_task(_load(c, url, HUGE_MAP, stop, done)) for _ in range(maps)]
        await asyncio.sleep(0.5)  # let the first long requests reach the upstream and the fit
        started = time.perf_counter()
        loaded = await _probe(c, url, probes)
        elapsed = time.perf_counter() - started
        stop.set()
        await asyncio.wait_for(asyncio.gather(*loaders), timeout=600.0)
    failures = [d for d in done if d != "ok"]
    return {"idle": idle, "loaded": loaded, "load_done": len(done), "load_failures": failures,
            "seconds": elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probes", type=int, default=150, help="timed cheap calls per phase")
    parser.add_argument("--routes", type=int, default=4, help="concurrent 40,000-point routes")
    parser.add_argument("--maps", type=int, default=1, help="concurrent 1,000,000-point maps")
    parser.add_argument("--fit-workers", type=int, default=2)
    args = parser.parse_args(argv)

    rows = []
    notes = []
    ratios = {}
    for mode, env in (("pool", {}), ("inline", {"FIT_INLINE": "1"})):
        print(f"{mode}: starting the upstream and one replica...", file=sys.stderr)
        with run_topology(replicas=1, with_balancer=False, fit_workers=args.fit_workers,
                          env=env) as topology:
            result = asyncio.run(measure(topology.replica_urls[0], args.probes, args.routes,
                                         args.maps))
        idle, loaded = result["idle"], result["loaded"]
        idle_p99 = percentile(idle, 99)
        ratios[mode] = percentile(loaded, 99) / idle_p99
        for phase, samples in (("idle", idle), ("under load", loaded)):
            rows.append([mode, phase, len(samples), percentile(samples, 50),
                         percentile(samples, 99), max(samples),
                         f"{percentile(samples, 99) / idle_p99:.1f}x",
                         "" if phase == "idle" else f"{result['load_done']} in "
                         f"{result['seconds']:.1f} s"])
        if result["load_failures"]:
            notes.append(f"{mode}: {len(result['load_failures'])} load calls failed, e.g. "
                         f"{result['load_failures'][0][:160]}")
    print(f"\nprobe: {PROBE[0]} back to back; load: {args.routes} x Lisbon-Warsaw routes "
          f"+ {args.maps} x 1,000,000-point dynamic map, looping; "
          f"FIT_WORKERS={args.fit_workers}\n")
    print(format_table(["mode", "phase", "probes", "p50 ms", "p99 ms", "max ms",
                        "p99 / idle p99", "load calls done"], rows))
    for note in notes:
        print(note)
    verdict = "meets" if ratios["pool"] <= 3.0 else "misses"
    print(f"\npool: p99 under load is {ratios['pool']:.1f}x idle p99, {verdict} the 3x target; "
          f"inline: {ratios['inline']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
