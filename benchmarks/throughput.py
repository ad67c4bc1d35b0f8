"""Requests per second of one replica, cheap calls and long routes, concurrency 1 to 64.

    .venv/bin/python -m benchmarks.throughput [--levels 1,4,16,64] [--cheap-s 3] [--long-s 10]

One replica (FIT_WORKERS=2, the default) against the separate offline
upstream on the same two cores. Cheap: `tomtom-geocode` (a few hundred bytes
of app data), and a status report, the same MCP path without the upstream
(what one replica's front end can do on its own). Long: Lisbon-Warsaw
routing (about 42,000 points on the offline upstream) fitted into the
120,000-character budget.
Each level runs `concurrency` callers back to back for the given seconds;
requests/s counts completed calls over the time until the last one
finished, beside the concurrency-1 figure of the same run.
Also prints the replica's resident memory (server plus fitting workers) warm
and idle, and its peak under long routes: the figures the Kubernetes memory
request is sized from.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

import httpx

from loadtest.mix import LONG_ROUTE_CALL
from loadtest.stats import format_table, percentile
from loadtest.topology import PeakRss, Service, run_topology
from loadtest.wire import CallFailed, ToolError, call_tool, clients, result_text
from tomtom_mcp_apps.server.tool_names import GEOCODE, REPORT_APP_STATUS, ROUTING

LOCAL = (REPORT_APP_STATUS, {"tool": ROUTING, "status": "ok", "reason": "probe"})
CHEAP = (GEOCODE, {"query": "Dam 1, Amsterdam"})
MIB = 1024 * 1024


async def level(
    url: str, call: tuple[str, dict], concurrency: int, seconds: float
) -> dict[str, object]:
    """Run `concurrency` back-to-back callers for `seconds`; latencies and errors."""
    latencies: list[float] = []
    errors: list[str] = []
    async with clients(concurrency, 300.0) as pool:
        deadline = time.perf_counter() + seconds

        async def caller(client: httpx.AsyncClient) -> None:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    result = await call_tool(client, url, *call)
                    if result.get("isError"):
                        errors.append(f"tool error: {result_text(result)}")
                        continue
                    latencies.append((time.perf_counter() - started) * 1000.0)
                except (CallFailed, ToolError) as exc:
                    errors.append(str(exc))

        started = time.perf_counter()
        await asyncio.gather(*(caller(client) for client in pool))
        elapsed = time.perf_counter() - started
    return {
        "done": len(latencies),
        "rps": len(latencies) / elapsed,
        "latencies": latencies,
        "errors": errors,
    }


async def run(
    service: Service, levels: list[int], cheap_s: float, long_s: float
) -> tuple[list[list[object]], list[str], int]:
    url = f"{service.url}/mcp"
    rows: list[list[object]] = []
    notes: list[str] = []
    await level(url, CHEAP, 1, 0.5)  # first calls out of the way
    rss = PeakRss(service)
    for label, call, seconds in (
        ("replica only (status report)", LOCAL, cheap_s),
        ("cheap (geocode)", CHEAP, cheap_s),
        ("long route (Lisbon-Warsaw)", LONG_ROUTE_CALL, long_s),
    ):
        reference = None
        for concurrency in levels:
            print(f"{label}: concurrency {concurrency}...", file=sys.stderr)
            result = await level(url, call, concurrency, seconds)
            reference = reference or result["rps"]
            rows.append(
                [
                    label,
                    concurrency,
                    result["done"],
                    result["rps"],
                    f"{result['rps'] / reference:.1f}x",
                    percentile(result["latencies"], 50),
                    percentile(result["latencies"], 99),
                    len(result["errors"]),
                ]
            )
            if result["errors"]:
                notes.append(f"{label} at {concurrency}: {result['errors'][0][:200]}")
    return rows, notes, await rss.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="1,4,16,64", help="concurrency levels")
    parser.add_argument("--cheap-s", type=float, default=3.0, help="seconds per cheap level")
    parser.add_argument("--long-s", type=float, default=10.0, help="seconds per long level")
    parser.add_argument("--fit-workers", type=int, default=2)
    args = parser.parse_args(argv)
    levels = [int(v) for v in args.levels.split(",")]

    print("starting the upstream and one replica...", file=sys.stderr)
    with run_topology(replicas=1, with_balancer=False, fit_workers=args.fit_workers) as topology:
        replica = topology.replicas[0]
        warm_rss = replica.rss_bytes()
        rows, notes, peak_rss = asyncio.run(run(replica, levels, args.cheap_s, args.long_s))
    print(f"\none replica, FIT_WORKERS={args.fit_workers}, offline upstream in its own process\n")
    print(
        format_table(
            ["calls", "concurrency", "done", "req/s", "vs c=1", "p50 ms", "p99 ms", "errors"], rows
        )
    )
    for note in notes:
        print(f"error, e.g. {note}")
    print(
        f"\nreplica RSS (server + {args.fit_workers} fitting workers): "
        f"{warm_rss / MIB:,.0f} MiB warm and idle, {peak_rss / MIB:,.0f} MiB peak under load"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
