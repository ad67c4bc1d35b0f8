"""From `tomtom-plan-routes`' inputs to the solver's problem, and why a stop cannot be served.

Every place (each vehicle's start and end, each stop) becomes one matrix location, the
same position once; times become seconds from the plan's start, the earliest time the
caller gave (or `departAt`, or now). A stop that no vehicle can serve alone (its demand
over every capacity, no route to or from it, no vehicle reaching it within its window and
shift) is known before solving, and said so in plain words.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from mcp.server.mcpserver.exceptions import ToolError

from tomtom_mcp_apps.server.jobs import Matrix, PlanProblem, PlanStop, PlanVehicle
from tomtom_mcp_apps.server.jobs._plan import UNREACHABLE, Objective
from tomtom_mcp_apps.server.tools._inputs import StopInput, VehicleInput


@dataclass(frozen=True)
class Layout:
    locations: list[list[float]]
    stops: list[StopInput]
    vehicles: list[VehicleInput]
    start_epoch: float
    offset_minutes: int
    departs_at: int
    """Seconds from the plan's start when a vehicle without a shift leaves: `departAt`, else
    the earliest window or shift start given, else now."""


def fleet(
    vehicles: list[VehicleInput] | None,
    vehicle_count: int | None,
    depot: list[float] | None,
) -> list[VehicleInput]:
    """The vehicles given, or `vehicle_count` alike ones from `depot`."""
    if vehicles and (vehicle_count or depot):
        raise ToolError("Give vehicles, or vehicleCount with depot, not both.")
    if vehicles:
        return vehicles
    if vehicle_count and depot:
        return [VehicleInput(start=depot) for _ in range(vehicle_count)]
    raise ToolError(
        "Give vehicles (each with its start position) or vehicleCount with a depot position."
    )


def layout(stops: list[StopInput], vehicles: list[VehicleInput], depart_at: str | None) -> Layout:
    """Matrix locations and the plan's clock for `stops` and `vehicles`."""
    locations: list[list[float]] = []
    index: dict[tuple[float, float], int] = {}

    def place(position: Sequence[float]) -> int:
        key = (float(position[0]), float(position[1]))
        if key not in index:
            index[key] = len(locations)
            locations.append([key[0], key[1]])
        return index[key]

    for vehicle in vehicles:
        place(vehicle.start)
        place(vehicle.end or vehicle.start)
    for stop in stops:
        place(stop.position)
    times = [datetime.fromisoformat(depart_at)] if depart_at else []
    for stop in stops:
        if stop.timeWindow is not None:
            times.append(datetime.fromisoformat(stop.timeWindow.start))
    for vehicle in vehicles:
        if vehicle.shift is not None:
            times.append(datetime.fromisoformat(vehicle.shift.start))
    if times:
        start = min(t.timestamp() for t in times)
        first = times[0].utcoffset()
        offset = int(first.total_seconds() // 60) if first is not None else 0
    else:
        start, offset = float(int(time.time() // 60 * 60)), 0
    departs = int(datetime.fromisoformat(depart_at).timestamp() - start) if depart_at else 0
    return Layout(locations, stops, vehicles, start, offset, departs)


def problem_of(plan: Layout, matrix: Matrix, objective: Objective) -> PlanProblem:
    """The solver's problem: the matrix as tuples, every time in seconds from the start."""
    where = {(p[0], p[1]): i for i, p in enumerate(plan.locations)}

    def seconds(text: str) -> int:
        return int(datetime.fromisoformat(text).timestamp() - plan.start_epoch)

    stops = tuple(
        PlanStop(
            location=where[(s.position[0], s.position[1])],
            service_s=round(s.serviceMinutes * 60),
            window=(seconds(s.timeWindow.start), seconds(s.timeWindow.end))
            if s.timeWindow
            else None,
            demand=s.demand,
            optional=s.optional,
        )
        for s in plan.stops
    )
    vehicles = tuple(
        PlanVehicle(
            start=where[(v.start[0], v.start[1])],
            end=where[((v.end or v.start)[0], (v.end or v.start)[1])],
            shift=(seconds(v.shift.start), seconds(v.shift.end))
            if v.shift
            else (plan.departs_at, UNREACHABLE),
            capacity=v.capacity,
        )
        for v in plan.vehicles
    )
    return PlanProblem(
        tuple(tuple(row) for row in matrix.travel_times),
        tuple(tuple(row) for row in matrix.lengths),
        stops,
        vehicles,
        objective,
    )


def unservable(problem: PlanProblem) -> dict[int, str]:
    """Stops no vehicle can serve even alone, with the reason in plain words."""
    reasons: dict[int, str] = {}
    durations = problem.durations
    for s, stop in enumerate(problem.stops):
        capacities = [v.capacity for v in problem.vehicles]
        if stop.demand and all(c is not None and c < stop.demand for c in capacities):
            reasons[s] = f"its demand ({stop.demand}) is more than any vehicle's capacity"
            continue
        routed = [
            v
            for v in problem.vehicles
            if durations[v.start][stop.location] is not None
            and durations[stop.location][v.end if v.end is not None else v.start] is not None
        ]
        if not routed:
            reasons[s] = "TomTom found no route between it and any vehicle's start or end"
            continue
        if not any(_alone_fits(problem, v, stop) for v in routed):
            reasons[s] = (
                "no vehicle can reach it within its time window and be back by the end of its shift"
            )
    return reasons


def _alone_fits(problem: PlanProblem, vehicle: PlanVehicle, stop: PlanStop) -> bool:
    there = problem.durations[vehicle.start][stop.location] or 0
    end = vehicle.end if vehicle.end is not None else vehicle.start
    back = problem.durations[stop.location][end] or 0
    arrival = vehicle.shift[0] + there
    if stop.window is not None:
        if arrival > stop.window[1]:
            return False
        arrival = max(arrival, stop.window[0])
    return arrival + stop.service_s + back <= vehicle.shift[1]
