"""The whole `tomtom-plan-routes` call, 40 stops and 3 vehicles, and how its time splits.

    .venv/bin/python -m benchmarks.plan_call [--runs 5] [--limits default,2]

One replica (FIT_WORKERS=2) against the offline upstream as a TomTom stand-in (its own
process at nice +10, keyed as TomTom is), over real HTTP. The plan: 40 stops seeded
around Amsterdam (within about 15 km of the depot), each with 10 minutes of service and
a two-hour window between 09:00 and 17:00, three vehicles from one depot with shifts of
08:00-18:00; 41 places make a 1,681-cell matrix, an asynchronous Matrix v2 job. Each
`--limits` case (`default`: the server's PLAN_TIME_LIMIT_S; a number: `timeLimitSeconds`)
runs `--runs` calls after one warm-up, interleaved call by call with a `tomtom-matrix`
call for the same 41 places (the reference: the matrix part alone, measured alike).

Printed: p50 wall time of the call; the split from the replica's call log (`plan_*_ms`:
the matrix, the solve in the pool, the three vehicles' routes; `app_data_ms`: building,
fitting and encoding the result); p50 of the reference matrix call. The stand-in's
asynchronous job takes 0.3 s and is polled at 0.25 s, then 0.5 s: TomTom's own time for a
matrix is its own.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from typing import Any

import httpx

from loadtest.topology import run_topology
from loadtest.wire import call_tool
from tomtom_mcp_apps.server.tool_names import MATRIX, PLAN_ROUTES

DEPOT = [4.8897, 52.3740]
DAY = "2026-06-24"


def plan_arguments(seed: int = 7) -> dict[str, Any]:
    """40 stops within about 15 km of the depot, two-hour windows, 3 vehicles."""
    rng = random.Random(seed)
    stops = []
    for _ in range(40):
        position = [DEPOT[0] + rng.uniform(-0.2, 0.2), DEPOT[1] + rng.uniform(-0.12, 0.12)]
        start = rng.randint(9, 15)
        window = {
            "start": f"{DAY}T{start:02d}:00:00+02:00",
            "end": f"{DAY}T{start + 2:02d}:00:00+02:00",
        }
        stops.append({"position": position, "serviceMinutes": 10, "timeWindow": window})
    shift = {"start": f"{DAY}T08:00:00+02:00", "end": f"{DAY}T18:00:00+02:00"}
    vehicles = [{"start": DEPOT, "shift": shift} for _ in range(3)]
    return {"stops": stops, "vehicles": vehicles, "show_ui": True}


def places(arguments: dict[str, Any]) -> list[list[float]]:
    return [DEPOT, *(s["position"] for s in arguments["stops"])]


async def run(runs: int, limits: list[str]) -> None:
    arguments = plan_arguments()
    env = {"LOG_FORMAT": "json", "FIT_WORKERS": "2"}
    with run_topology(replicas=1, with_balancer=False, env=env, upstream_nice=10) as topology:
        replica = topology.replicas[0]
        url = f"{replica.url}/mcp"
        async with httpx.AsyncClient(timeout=120) as client:
            print(
                f"{'case':>12} {'call p50 ms':>11} {'matrix':>8} {'solve':>8} {'routes':>8} "
                f"{'result':>8} {'served':>6} {'driving min':>11}  "
                "reference: tomtom-matrix p50 ms"
            )
            for limit in limits:
                args = dict(arguments)
                if limit != "default":
                    args["timeLimitSeconds"] = float(limit)
                calls: list[float] = []
                matrices: list[float] = []
                served = 0
                driving: list[float] = []
                for i in range(runs + 1):
                    started = time.perf_counter()
                    result = await call_tool(client, url, PLAN_ROUTES, args)
                    took = (time.perf_counter() - started) * 1000
                    assert not result.get("isError"), result["content"][0]["text"]
                    plan = result["structuredContent"]
                    served = sum(len(r["stops"]) for r in plan["routes"])
                    driving.append(plan["drivingSeconds"] / 60)
                    started = time.perf_counter()
                    matrix = await call_tool(client, url, MATRIX, {"origins": places(arguments)})
                    matrix_took = (time.perf_counter() - started) * 1000
                    assert not matrix.get("isError"), matrix["content"][0]["text"]
                    if i:  # the first call of a case warms the pool's solver import
                        calls.append(took)
                        matrices.append(matrix_took)
                lines = [
                    e
                    for e in replica.log_events()
                    if e.get("event") == "tool_call" and e.get("tool") == PLAN_ROUTES
                ][-runs:]

                def p50(name: str, events: list[dict] = lines) -> float:
                    return statistics.median(float(e.get(name, 0.0)) for e in events)

                print(
                    f"{limit:>12} {statistics.median(calls):11.0f} {p50('plan_matrix_ms'):8.0f} "
                    f"{p50('plan_solve_ms'):8.0f} {p50('plan_routes_ms'):8.0f} "
                    f"{p50('app_data_ms'):8.1f} {served:>3}/40 {statistics.median(driving):11.0f}  "
                    f"{statistics.median(matrices):.0f}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limits", default="default,2")
    args = parser.parse_args()
    asyncio.run(run(args.runs, args.limits.split(",")))


if __name__ == "__main__":
    main()
