"""Tool-call latency with the widget data inline, beside the same call with none.

    .venv/bin/python -m benchmarks.tool_latency [--runs 40]

One replica (FIT_WORKERS=2) against the separate offline upstream process,
on the same machine, over real HTTP. Each case runs `--runs` sequential calls
after two warm-up calls, twice in alternation: with `show_ui: true` (app
data inline, fitted when needed) and with `show_ui: false` (no widget data at
all, the reference: what a server without widgets would do). Routing sizes: about
4,000 points (target p50 <= 15 ms) and about 95,000 points (p50 <= 150 ms). The
upstream's own time is included in both columns.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx

from loadtest.stats import format_table, percentile
from loadtest.topology import run_topology
from loadtest.wire import call_tool
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.tool_names import DYNAMIC_MAP, FUZZY_SEARCH, GEOCODE, ROUTING

CASES: list[tuple[str, str, dict]] = [
    (GEOCODE, "one city", {"query": "Amsterdam"}),
    (FUZZY_SEARCH, "10 results", {"query": "coffee", "position": [4.9, 52.37]}),
    (ROUTING, "~4,000 points", {"locations": [[4.90, 52.37], [4.35, 50.85]]}),
    (ROUTING, "~40,000 points", {"locations": [[-9.14, 38.72], [21.01, 52.23]]}),
    (
        ROUTING,
        "~95,000 points",
        {"locations": [[-9.14, 38.72], [21.01, 52.23], [24.94, 60.17], [23.73, 37.98]]},
    ),
    (
        DYNAMIC_MAP,
        "3 long routes",
        {
            "routes": [
                {"locations": [[-9.14, 38.72], [21.01, 52.23]]},
                {"locations": [[-3.70, 40.42], [13.40, 52.52]]},
                {"locations": [[2.35, 48.86], [23.73, 37.98]]},
            ]
        },
    ),
]


async def timed_calls(
    client: httpx.AsyncClient, url: str, tool: str, args: dict, runs: int
) -> tuple[list[float], dict]:
    last: dict = {}
    latencies = []
    for i in range(runs + 2):
        started = time.perf_counter()
        last = await call_tool(client, url, tool, args)
        if i >= 2:
            latencies.append((time.perf_counter() - started) * 1000)
    return latencies, last


def describe(result: dict) -> tuple[str, str]:
    meta = result.get("_meta") or {}
    app_data = meta.get("com.tomtom/app-data")
    if not app_data:
        return "-", "-"
    envelope = fitting.decode(app_data)
    fitted = envelope["fitted"]
    if fitted:
        points = f"{fitted['original_points']:,} -> {fitted['points']:,}"
    else:
        sent = sum(
            len(fitting.to_geojson(f["geometry"])["coordinates"])
            for f in envelope["data"].get("features", [])
            if f.get("geometry", {}).get("type") == "LineString"
        )
        points = f"{sent:,} as is" if sent else "as is"
    return f"{len(app_data):,}", points


async def main_async(runs: int) -> None:
    with run_topology(replicas=1, with_balancer=False, fit_workers=2) as topology:
        url = topology.replica_urls[0]
        rows = []
        async with httpx.AsyncClient(timeout=120) as client:
            for tool, label, args in CASES:
                with_ui, result = await timed_calls(client, url, tool, args, runs)
                without, _ = await timed_calls(client, url, tool, {**args, "show_ui": False}, runs)
                chars, points = describe(result)
                p50, p50_ref = percentile(with_ui, 50), percentile(without, 50)
                rows.append(
                    [
                        tool,
                        label,
                        points,
                        chars,
                        f"{p50:.1f}",
                        f"{percentile(with_ui, 99):.1f}",
                        f"{p50_ref:.1f}",
                        f"{percentile(without, 99):.1f}",
                        f"{p50 / p50_ref:.2f}x",
                    ]
                )
        print(f"tool latency over HTTP, {runs} calls per cell, one replica, offline upstream")
        print(
            format_table(
                [
                    "tool",
                    "case",
                    "points",
                    "app-data chars",
                    "p50 ms",
                    "p99 ms",
                    "p50 ms no UI",
                    "p99 ms no UI",
                    "p50 ratio",
                ],
                rows,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="timed calls per cell (default 40)")
    asyncio.run(main_async(parser.parse_args().runs))


if __name__ == "__main__":
    main()
