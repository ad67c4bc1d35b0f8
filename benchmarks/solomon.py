"""Solomon's VRPTW instances as `tomtom-plan-routes` problems, with their best-known plans.

`benchmarks/data/solomon/` holds the instances found in a registry package with a licence
to keep them: RC208 (Solomon 1987; 100 customers, clustered and random, long horizon)
and its best-known solution, both from PyVRP 0.14.1's source distribution on PyPI
(`tests/data/RC208.vrp`, `RC208.sol`; MIT, `LICENSE-PyVRP.md`).

Distances follow the DIMACS VRPTW challenge (2021): Euclidean, truncated to one decimal,
here in tenths so the matrix is whole numbers; travel time equals distance, as in
Solomon's instances. Under that rule RC208's best-known total is 776.1 (`RC208.sol`, the
DIMACS challenge's best-known solutions list). `best_known` recomputes it from the
solution's routes through the feasibility check, so the reference is checked too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tomtom_mcp_apps.server.jobs import Plan, PlanProblem, PlanStop, PlanVehicle, schedule

DATA = Path(__file__).parent / "data" / "solomon"
INSTANCES = ("RC208",)


@dataclass(frozen=True)
class Instance:
    name: str
    problem: PlanProblem
    best_known: float
    """Total distance of the best-known solution, in the instance's units."""
    best_plan: Plan


def load(name: str) -> Instance:
    """`name`'s instance (VRPLIB text) and its best-known solution, checked."""
    sections: dict[str, list[list[str]]] = {}
    header: dict[str, str] = {}
    current = ""
    for line in (DATA / f"{name}.vrp").read_text().splitlines():
        line = line.strip()
        if not line or line == "EOF":
            continue
        if line.endswith("_SECTION"):
            current = line
            sections[current] = []
        elif ":" in line and not current:
            key, value = line.split(":", 1)
            header[key.strip()] = value.strip()
        else:
            sections[current].append(line.split())
    coords = [(float(x), float(y)) for _, x, y in sections["NODE_COORD_SECTION"]]
    demands = [int(d) for _, d in sections["DEMAND_SECTION"]]
    windows = [(int(a) * 10, int(b) * 10) for _, a, b in sections["TIME_WINDOW_SECTION"]]
    service = int(header["SERVICE_TIME"]) * 10
    matrix = tuple(
        tuple(int(10 * math.dist(a, b)) for b in coords) for a in coords
    )  # tenths, truncated (DIMACS)
    stops = tuple(
        PlanStop(location=i, service_s=service, window=windows[i], demand=demands[i])
        for i in range(1, len(coords))
    )
    vehicles = tuple(
        PlanVehicle(start=0, end=0, shift=windows[0], capacity=int(header["CAPACITY"]))
        for _ in range(int(header["VEHICLES"]))
    )
    problem = PlanProblem(matrix, matrix, stops, vehicles, "distance")
    orders: list[list[int]] = [[] for _ in vehicles]
    for number, line in enumerate((DATA / f"{name}.sol").read_text().splitlines()):
        if line.startswith("Route"):
            orders[number] = [int(c) - 1 for c in line.split(":", 1)[1].split()]
    best = schedule(problem, orders)
    return Instance(name, problem, best.length_m / 10, best)
