"""Does a long route wait behind 1,000,000-point maps? FIT_ORDER=least-work versus arrival.

    .venv/bin/python -m benchmarks.pool_order [--routes 30] [--maps 6]

For each order, one replica (two fitting workers) against the separate
offline upstream. `--maps` loops in a separate process request ten-route
dynamic maps (about 1,000,000 points, about 0.8 s of a worker each), so that
maps are always waiting for the pool; meanwhile one caller requests
Lisbon-Warsaw routes (42,447 points, fitted in the pool) one after another
and times them. The same caller first times them with no maps, for
reference. With first-in-first-out a route waits for every map queued
before it; least work first lets it pass maps that arrived less than their
own expected run time before it (docs/runtime.md, Admission order).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from loadtest.background import BackgroundLoad
from loadtest.mix import LONG_ROUTE_CALL, MILLION_POINT_MAP_CALL
from loadtest.stats import format_table, percentile
from loadtest.topology import ELSEWHERE_NICE, run_topology
from loadtest.wire import clients, timed_calls

LOAD_RAMP_S = 3.0
"""Maps run this long before the routes are timed, so the pool's queue has filled."""


async def _routes(url: str, count: int) -> list[float]:
    async with clients(1, 600.0) as (client,):
        return await timed_calls(client, url, LONG_ROUTE_CALL, count)


async def measure(url: str, routes: int, maps: int) -> dict[str, object]:
    """Route latencies alone and behind `maps` looping maps, and how the maps fared."""
    await _routes(url, 2)  # connections and first-call costs out of the way
    alone = await _routes(url, routes)
    load = BackgroundLoad(url, [MILLION_POINT_MAP_CALL] * maps, nice=ELSEWHERE_NICE)
    load.resume()
    started = time.perf_counter()
    await asyncio.sleep(LOAD_RAMP_S)
    behind = await _routes(url, routes)
    await load.pause()
    elapsed = time.perf_counter() - started
    done = await load.finish()
    return {"alone": alone, "behind": behind, "maps": done, "seconds": elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--routes", type=int, default=30, help="timed routes per phase")
    parser.add_argument("--maps", type=int, default=6, help="concurrent map loops")
    args = parser.parse_args(argv)

    rows = []
    p50 = {}
    for order in ("arrival", "least-work"):
        print(f"FIT_ORDER={order}: starting the upstream and one replica...", file=sys.stderr)
        with run_topology(
            replicas=1,
            with_balancer=False,
            fit_workers=2,
            env={"FIT_ORDER": order},
            upstream_nice=ELSEWHERE_NICE,
        ) as topology:
            url = f"{topology.replicas[0].url}/mcp"
            result = asyncio.run(measure(url, args.routes, args.maps))
        maps_ok = sum(1 for outcome in result["maps"] if outcome == "ok")
        failed = len(result["maps"]) - maps_ok
        for phase, samples in (("alone", result["alone"]), ("behind maps", result["behind"])):
            rows.append(
                [
                    order,
                    phase,
                    len(samples),
                    percentile(samples, 50),
                    percentile(samples, 99),
                    ""
                    if phase == "alone"
                    else f"{maps_ok} in {result['seconds']:.1f} s"
                    + (f" ({failed} failed)" if failed else ""),
                ]
            )
        p50[order] = percentile(result["behind"], 50)
    print(
        f"\none replica, FIT_WORKERS=2; {args.routes} Lisbon-Warsaw routes one after another, "
        f"alone and then while {args.maps} loops request 1,000,000-point maps\n"
    )
    print(
        format_table(
            ["FIT_ORDER", "route", "routes", "p50 ms", "p99 ms", "maps done meanwhile"], rows
        )
    )
    print(
        f"\nbehind maps, a route's p50 is {p50['arrival'] / p50['least-work']:.1f}x lower with "
        "least-work than with arrival order"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
