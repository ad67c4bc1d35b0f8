"""The vehicle-routing solvers on Solomon's VRPTW instances: distance beside best-known.

For each instance of `benchmarks.solomon` (RC208: 100 customers, 25 vehicles, capacity
1000, DIMACS distances) and each candidate, `--seeds` runs at each `--limits` time limit:
the plan's total distance, its gap to the best-known solution, the wall time, and
whether `server.jobs.violations` (the feasibility check, which knows no solver) passes.
The matrix goes in as `tomtom-plan-routes` gives it: a `PlanProblem` whose arrivals
`server.jobs.schedule` computes.

- `pyvrp`: `server.jobs.solve_plan`, the tool's own job (PyVRP 0.14, iterated local
  search), one process;
- `vroom`: pyvroom 1.15 (VROOM's heuristics and local search), exploration level 5, one
  thread, the time limit as its timeout;
- `ortools`: OR-Tools 9.15's routing library, path-cheapest-arc then guided local
  search for the time limit.

Printed beside each figure: the best-known distance and its source, and the reference
solution's own distance recomputed by the same check (it must equal the best-known).

    .venv/bin/python -m benchmarks.plan_solvers [--limits 1,3,10] [--seeds 3]
        [--solvers pyvrp,vroom,ortools]

Target (docs/tools.md): within 2% of best-known on average at the tool's default time
limit, and every plan feasible.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import timedelta

from benchmarks.solomon import INSTANCES, load
from tomtom_mcp_apps.server.jobs import Plan, PlanProblem, schedule, solve_plan, violations
from tomtom_mcp_apps.server.jobs._plan import UNREACHABLE

Solver = Callable[[PlanProblem, float, int], Plan]


def with_pyvrp(problem: PlanProblem, limit: float, seed: int) -> Plan:
    return solve_plan(problem, limit, seed=seed)


def with_vroom(problem: PlanProblem, limit: float, seed: int) -> Plan:
    import numpy as np
    import vroom

    started = time.perf_counter()
    matrix = np.array(
        [[UNREACHABLE if c is None else c for c in row] for row in problem.durations],
        dtype=np.uint32,
    )
    size = len(problem.durations)
    cells = [[problem.cost(i, j) for j in range(size)] for i in range(size)]
    costs = np.array([[UNREACHABLE if c is None else c for c in row] for row in cells], np.uint32)
    model = vroom.Input()
    model.set_durations_matrix("car", matrix)
    model.set_costs_matrix("car", costs)
    for index, vehicle in enumerate(problem.vehicles):
        model.add_vehicle(
            vroom.Vehicle(
                id=index,
                start=vehicle.start,
                end=vehicle.end,
                capacity=[vehicle.capacity or 0],
                time_window=vroom.TimeWindow(*vehicle.shift),
            )
        )
    for index, stop in enumerate(problem.stops):
        windows = [vroom.TimeWindow(*stop.window)] if stop.window else []
        model.add_job(
            vroom.Job(
                id=index,
                location=stop.location,
                default_service=stop.service_s,
                delivery=[stop.demand],
                time_windows=windows,
            )
        )
    solution = model.solve(exploration_level=5, nb_threads=1, timeout=timedelta(seconds=limit))
    orders: list[list[int]] = [[] for _ in problem.vehicles]
    routes = solution.routes
    for vehicle, frame in routes.groupby("vehicle_id"):
        jobs = frame[frame["type"] == "job"]["id"]
        orders[int(vehicle)] = [int(j) for j in jobs]
    return schedule(problem, orders, (time.perf_counter() - started) * 1000)


def with_ortools(problem: PlanProblem, limit: float, seed: int) -> Plan:
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    started = time.perf_counter()
    stops = problem.stops
    vehicles = problem.vehicles
    # Nodes: one per stop, then each vehicle's start and end (OR-Tools wants them apart).
    locations = [s.location for s in stops]
    starts = [len(locations) + 2 * v for v in range(len(vehicles))]
    ends = [len(locations) + 2 * v + 1 for v in range(len(vehicles))]
    for v in vehicles:
        locations += [v.start, v.end if v.end is not None else v.start]
    manager = pywrapcp.RoutingIndexManager(len(locations), len(vehicles), starts, ends)
    routing = pywrapcp.RoutingModel(manager)

    def node(index: int) -> int:
        return manager.IndexToNode(index)

    def cost(i: int, j: int) -> int:
        value = problem.cost(locations[node(i)], locations[node(j)])
        return UNREACHABLE if value is None else value

    def travel(i: int, j: int) -> int:
        a = node(i)
        value = problem.durations[locations[a]][locations[node(j)]]
        service = stops[a].service_s if a < len(stops) else 0
        return (UNREACHABLE if value is None else value) + service

    routing.SetArcCostEvaluatorOfAllVehicles(routing.RegisterTransitCallback(cost))
    horizon = max(v.shift[1] for v in vehicles)
    time_index = routing.RegisterTransitCallback(travel)
    routing.AddDimension(time_index, horizon, horizon, False, "time")
    clock = routing.GetDimensionOrDie("time")
    for index, stop in enumerate(stops):
        if stop.window is not None:
            clock.CumulVar(manager.NodeToIndex(index)).SetRange(*stop.window)
    for v, vehicle in enumerate(vehicles):
        clock.CumulVar(routing.Start(v)).SetRange(*vehicle.shift)
        clock.CumulVar(routing.End(v)).SetRange(*vehicle.shift)
    demands = [s.demand for s in stops] + [0] * (2 * len(vehicles))
    load_index = routing.RegisterUnaryTransitCallback(lambda i: demands[node(i)])
    routing.AddDimensionWithVehicleCapacity(
        load_index, 0, [v.capacity or 1 << 30 for v in vehicles], True, "load"
    )
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = (
        routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    )
    params.time_limit.FromMilliseconds(int(limit * 1000))
    solution = routing.SolveWithParameters(params)
    orders: list[list[int]] = [[] for _ in vehicles]
    if solution is not None:
        for v in range(len(vehicles)):
            index = solution.Value(routing.NextVar(routing.Start(v)))
            while not routing.IsEnd(index):
                orders[v].append(node(index))
                index = solution.Value(routing.NextVar(index))
    return schedule(problem, orders, (time.perf_counter() - started) * 1000)


SOLVERS: dict[str, Solver] = {"pyvrp": with_pyvrp, "vroom": with_vroom, "ortools": with_ortools}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limits", default="1,3,10", help="time limits in seconds")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    args = parser.parse_args()
    limits = [float(x) for x in args.limits.split(",")]
    solvers = args.solvers.split(",")
    for name in INSTANCES:
        instance = load(name)
        reference = violations(instance.problem, instance.best_plan)
        print(
            f"{name}: best-known {instance.best_known:.1f} (RC208.sol in PyVRP 0.14.1's sdist, "
            f"DIMACS rule); the reference rechecked: {instance.best_plan.length_m / 10:.1f}, "
            f"{reference or 'feasible'}"
        )
        print(
            f"{'solver':8} {'limit s':>7} {'distance p50':>12} {'gap mean':>8} {'gap p50':>8} "
            f"{'gap max':>8} {'wall s p50':>10} {'routes':>6}  feasible"
        )
        # Interleaved: each seed runs every solver before the next seed.
        results: dict[tuple[str, float], list[tuple[float, float, int, bool]]] = {}
        for limit in limits:
            for seed in range(1, args.seeds + 1):
                for solver in solvers:
                    started = time.perf_counter()
                    plan = SOLVERS[solver](instance.problem, limit, seed)
                    wall = time.perf_counter() - started
                    ok = not violations(instance.problem, plan) and not plan.unassigned
                    results.setdefault((solver, limit), []).append(
                        (plan.length_m / 10, wall, len(plan.routes), ok)
                    )
            for solver in solvers:
                runs = results[(solver, limit)]
                gaps = [100 * (d / instance.best_known - 1) for d, *_ in runs]
                print(
                    f"{solver:8} {limit:7.1f} {statistics.median(d for d, *_ in runs):12.1f} "
                    f"{statistics.mean(gaps):7.2f}% {statistics.median(gaps):7.2f}% "
                    f"{max(gaps):7.2f}% "
                    f"{statistics.median(w for _, w, *_ in runs):10.2f} "
                    f"{statistics.median(r for *_, r, _ in runs):6.0f}  "
                    f"{sum(ok for *_, ok in runs)}/{len(runs)}"
                )


if __name__ == "__main__":
    main()
