"""Vehicle routing for `tomtom-plan-routes`: the problem as the solver sees it, and its plan.

Pure and picklable: `solve_plan` runs in a fitting worker (`Placement.for_solve`), never on
the event loop. Times are whole seconds from the plan's start; `durations` and `lengths`
are TomTom's matrix (seconds, metres) between locations, `None` where TomTom found no
route. PyVRP solves it, chosen by measurement (docs/many-places.md, Fleet plans); every
arrival the plan reports is computed here from the matrix, not read from the solver, and
`_plan_check.py` checks a plan without the solver.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Literal

from tomtom_mcp_apps.server.errors import JobError

Objective = Literal["time", "distance"]

UNREACHABLE = 1 << 40
"""What a leg with no route costs the solver: more than any plan, so it is never taken
while another way exists (a plan that takes one anyway is refused by the check)."""
_NO_LIMIT = 1 << 40
"""A vehicle without a capacity carries any load."""


@dataclass(frozen=True)
class PlanStop:
    location: int
    """Its row and column in the matrix."""
    service_s: int = 0
    window: tuple[int, int] | None = None
    """Service may start from `window[0]` to `window[1]`, seconds from the plan's start."""
    demand: int = 0
    optional: bool = False
    """May be left out when not every stop fits: the stops that must be served come first."""


@dataclass(frozen=True)
class PlanVehicle:
    start: int
    """Its start location's row in the matrix."""
    end: int | None = None
    """Where it must end; None: where its last stop is."""
    shift: tuple[int, int] = (0, UNREACHABLE)
    """It leaves no earlier than `shift[0]` and is back (or done) by `shift[1]`."""
    capacity: int | None = None


@dataclass(frozen=True)
class PlanProblem:
    durations: tuple[tuple[int | None, ...], ...]
    """Travel time in seconds from location i to j (`None`: no route)."""
    lengths: tuple[tuple[int | None, ...], ...]
    """Length in metres from location i to j (`None`: no route)."""
    stops: tuple[PlanStop, ...]
    vehicles: tuple[PlanVehicle, ...]
    objective: Objective = "time"
    """What the plan minimises: total driving time, or total distance."""

    def cost(self, i: int, j: int) -> int | None:
        """The objective's cost of driving from location `i` to `j`."""
        return (self.durations if self.objective == "time" else self.lengths)[i][j]


@dataclass(frozen=True)
class PlannedRoute:
    vehicle: int
    stops: tuple[int, ...]
    """Indices into `PlanProblem.stops`, in visiting order."""
    arrivals: tuple[int, ...]
    """Arrival at each stop; service starts at the later of it and the window's start."""
    departure: int
    """When it leaves its start."""
    finish: int
    """When it is back at its end (open routes: when its last service ends)."""
    driving_s: int
    length_m: int
    load: int


@dataclass(frozen=True)
class Plan:
    routes: tuple[PlannedRoute, ...]
    """One per vehicle that has stops, in vehicle order."""
    unassigned: tuple[int, ...]
    solve_ms: float
    driving_s: int
    length_m: int


def solve_plan(
    problem: PlanProblem, time_limit_s: float, seed: int = 1, skip: frozenset[int] = frozenset()
) -> Plan:
    """The plan PyVRP finds for `problem` within `time_limit_s`, scheduled from the matrix;
    the stops in `skip` (known to be unservable) are left out of the search."""
    import pyvrp
    from pyvrp.exceptions import PenaltyBoundWarning
    from pyvrp.stop import MaxRuntime

    started = time.perf_counter()
    model = pyvrp.Model()
    size = len(problem.durations)
    locations = [model.add_location(x=0, y=0) for _ in range(size)]
    is_open = any(v.end is None for v in problem.vehicles)
    open_end = model.add_location(x=0, y=0) if is_open else None
    depots: dict[int, pyvrp.Depot] = {}
    for vehicle in problem.vehicles:
        for where in (vehicle.start, vehicle.end):
            if where is not None and where not in depots:
                depots[where] = model.add_depot(locations[where])
    open_depot = model.add_depot(open_end) if open_end is not None else None
    horizon = max((v.shift[1] for v in problem.vehicles), default=UNREACHABLE)
    served = [i for i in range(len(problem.stops)) if i not in skip]
    trips = {i: _round_trip(problem, problem.stops[i]) for i in served}
    # A stop that must be served is worth more than any one stop adds to a plan (at most
    # its trip there and back, the matrix being nearly metric), so it is left out only when
    # no route can take it; an optional one is worth its own trip, and gives way first.
    # Prizes of this scale keep PyVRP's penalties able to price an infeasible plan out.
    required = 2 * max(trips.values(), default=0) + 1
    for index in served:
        stop = problem.stops[index]
        early, late = stop.window if stop.window is not None else (0, horizon)
        model.add_client(
            locations[stop.location],
            delivery=[stop.demand],
            service_duration=stop.service_s,
            tw_early=early,
            tw_late=late,
            prize=trips[index] if stop.optional else required,
            required=False,
        )
    for vehicle in problem.vehicles:
        end = depots[vehicle.end] if vehicle.end is not None else open_depot
        model.add_vehicle_type(
            1,
            capacity=[vehicle.capacity if vehicle.capacity is not None else _NO_LIMIT],
            start_depot=depots[vehicle.start],
            end_depot=end,
            tw_early=vehicle.shift[0],
            tw_late=vehicle.shift[1],
        )
    for i in range(size):
        for j in range(size):
            duration = problem.durations[i][j]
            cost = problem.cost(i, j)
            model.add_edge(
                locations[i],
                locations[j],
                distance=UNREACHABLE if cost is None else cost,
                duration=UNREACHABLE if duration is None else duration,
            )
    if open_end is not None:
        for i in range(size):
            model.add_edge(locations[i], open_end, distance=0, duration=0)
            model.add_edge(open_end, locations[i], distance=UNREACHABLE, duration=UNREACHABLE)
        model.add_edge(open_end, open_end, distance=0, duration=0)
    if not served:
        return schedule(problem, [[] for _ in problem.vehicles])
    try:
        with warnings.catch_warnings():  # said below, in words for the model
            warnings.simplefilter("ignore", PenaltyBoundWarning)
            result = model.solve(MaxRuntime(time_limit_s), seed=seed, display=False)
    except (RuntimeError, ValueError) as exc:
        raise JobError(f"The solver could not plan these stops: {exc}") from None
    if not result.is_feasible():
        raise JobError(
            "The solver found no plan that keeps every window, shift and capacity in the "
            f"{time_limit_s:g} s it had: give it more time (timeLimitSeconds), more vehicles "
            "or fewer stops."
        )
    solve_ms = (time.perf_counter() - started) * 1000
    orders: list[list[int]] = [[] for _ in problem.vehicles]
    for route in result.best.routes():
        # Clients were added in the order of `served`.
        orders[route.vehicle_type()].extend(served[a.idx] for a in route if a.is_client())
    return schedule(problem, orders, solve_ms)


def _round_trip(problem: PlanProblem, stop: PlanStop) -> int:
    """The objective's cost of the cheapest trip from a vehicle's start to `stop` and back."""
    trips = []
    for vehicle in problem.vehicles:
        there = problem.cost(vehicle.start, stop.location)
        back = problem.cost(stop.location, vehicle.start)
        if there is not None and back is not None:
            trips.append(there + back)
    return min(trips, default=0)


def schedule(problem: PlanProblem, orders: list[list[int]], solve_ms: float = 0.0) -> Plan:
    """The plan that drives each vehicle through `orders[vehicle]` (stop indices), timed from
    the matrix: it leaves at its shift's start, or later so as to reach its first stop as
    the window opens, and waits at a stop until its window opens."""
    routes: list[PlannedRoute] = []
    served: set[int] = set()
    for index, order in enumerate(orders):
        if not order:
            continue
        vehicle = problem.vehicles[index]
        first = problem.stops[order[0]]
        lead = _leg(problem.durations, vehicle.start, first.location)
        departure = vehicle.shift[0]
        if first.window is not None:
            departure = max(departure, first.window[0] - lead)
        clock, where, driving, length, load = departure, vehicle.start, 0, 0, 0
        arrivals: list[int] = []
        for stop_index in order:
            stop = problem.stops[stop_index]
            leg = _leg(problem.durations, where, stop.location)
            clock += leg
            driving += leg
            length += _leg(problem.lengths, where, stop.location)
            arrivals.append(clock)
            if stop.window is not None:
                clock = max(clock, stop.window[0])
            clock += stop.service_s
            load += stop.demand
            where = stop.location
        if vehicle.end is not None:
            leg = _leg(problem.durations, where, vehicle.end)
            clock += leg
            driving += leg
            length += _leg(problem.lengths, where, vehicle.end)
        timed = PlannedRoute(
            index, tuple(order), tuple(arrivals), departure, clock, driving, length, load
        )
        routes.append(timed)
        served.update(order)
    unassigned = tuple(i for i in range(len(problem.stops)) if i not in served)
    return Plan(
        tuple(routes),
        unassigned,
        solve_ms,
        sum(r.driving_s for r in routes),
        sum(r.length_m for r in routes),
    )


def _leg(matrix: tuple[tuple[int | None, ...], ...], i: int, j: int) -> int:
    value = matrix[i][j]
    return UNREACHABLE if value is None else value
