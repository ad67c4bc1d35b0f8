"""A plan checked against its problem without the solver: every rule a user relies on.

`violations` drives each route through the matrix again and lists, in words, what breaks:
a stop served twice or neither served nor reported unassigned, a leg with no route, an
arrival earlier than the driving allows, service after a window closes, a load over the
capacity, a vehicle out of its shift, and totals that disagree with the legs. The tool
runs it on every plan before answering; the tests and the solver benchmark run it on
plans of every solver.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.jobs._plan import Plan, PlannedRoute, PlanProblem


def violations(problem: PlanProblem, plan: Plan) -> list[str]:
    """What `plan` breaks of `problem`'s rules; empty when it is feasible."""
    found: list[str] = []
    seen: dict[int, int] = {}
    for route in plan.routes:
        if not 0 <= route.vehicle < len(problem.vehicles):
            found.append(f"route of unknown vehicle {route.vehicle}")
            continue
        if len(route.arrivals) != len(route.stops):
            found.append(
                f"vehicle {route.vehicle}: {len(route.arrivals)} arrivals, {len(route.stops)} stops"
            )
            continue
        for stop in route.stops:
            if not 0 <= stop < len(problem.stops):
                found.append(f"vehicle {route.vehicle}: unknown stop {stop}")
            elif stop in seen:
                found.append(f"stop {stop} served by vehicles {seen[stop]} and {route.vehicle}")
            else:
                seen[stop] = route.vehicle
        if all(0 <= s < len(problem.stops) for s in route.stops):
            found.extend(_route_violations(problem, route))
    for stop in plan.unassigned:
        if stop in seen:
            found.append(f"stop {stop} reported unassigned but served by vehicle {seen[stop]}")
    missing = set(range(len(problem.stops))) - set(seen) - set(plan.unassigned)
    found.extend(f"stop {s} neither served nor reported unassigned" for s in sorted(missing))
    if plan.driving_s != sum(r.driving_s for r in plan.routes):
        found.append("total driving time is not the sum of the routes'")
    if plan.length_m != sum(r.length_m for r in plan.routes):
        found.append("total length is not the sum of the routes'")
    return found


def _route_violations(problem: PlanProblem, route: PlannedRoute) -> list[str]:
    vehicle = problem.vehicles[route.vehicle]
    who = f"vehicle {route.vehicle}"
    found: list[str] = []
    if route.departure < vehicle.shift[0]:
        found.append(f"{who} leaves before its shift starts")
    clock, where, driving, length, load = route.departure, vehicle.start, 0, 0, 0
    for stop_index, arrival in zip(route.stops, route.arrivals, strict=True):
        stop = problem.stops[stop_index]
        duration = problem.durations[where][stop.location]
        metres = problem.lengths[where][stop.location]
        if duration is None or metres is None:
            found.append(f"{who} drives a leg with no route to stop {stop_index}")
            return found
        clock += duration
        driving += duration
        length += metres
        if arrival < clock:
            found.append(f"{who} arrives at stop {stop_index} before the driving allows")
        clock = max(clock, arrival)
        if stop.window is not None:
            if clock > stop.window[1]:
                found.append(f"{who} reaches stop {stop_index} after its window closes")
            clock = max(clock, stop.window[0])
        clock += stop.service_s
        load += stop.demand
        where = stop.location
    if vehicle.end is not None:
        duration = problem.durations[where][vehicle.end]
        metres = problem.lengths[where][vehicle.end]
        if duration is None or metres is None:
            found.append(f"{who} has no route back to its end")
            return found
        clock += duration
        driving += duration
        length += metres
    if clock > vehicle.shift[1]:
        found.append(f"{who} ends after its shift ends")
    if route.finish < clock:
        found.append(f"{who} reported finishing before the driving allows")
    if vehicle.capacity is not None and load > vehicle.capacity:
        found.append(f"{who} carries {load}, over its capacity of {vehicle.capacity}")
    if (driving, length, load) != (route.driving_s, route.length_m, route.load):
        found.append(f"{who}: reported driving, length or load disagree with its legs")
    return found
