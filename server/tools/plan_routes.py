"""`tomtom-plan-routes`: which vehicle serves which stops, in what order, and when.

One travel-time matrix between every place (`_matrices.py`), the plan solved by PyVRP
in the fitting pool within a time limit the caller may lower (`jobs.solve_plan`), the
plan checked without the solver (`jobs.violations`), then each vehicle's road geometry
from TomTom routing in the solved order, fitted like every route. The model reads each
vehicle's stops with arrival times and the stops left out with the reason;
`structuredContent` carries the plan (`PlanOutput`); the fleet view draws it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.ops import call_scope
from tomtom_mcp_apps.server.tool_names import PLAN_ROUTES
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._inputs import (
    MatrixAvoid,
    OffsetTime,
    Position,
    ShowUi,
    StopInput,
    TrafficParam,
    VehicleInput,
)
from tomtom_mcp_apps.server.tools._matrices import check_size, fetch_matrix, matrix_options
from tomtom_mcp_apps.server.tools._outputs import PlanOutput
from tomtom_mcp_apps.server.tools._plans import fleet, layout, problem_of, unservable
from tomtom_mcp_apps.server.tools._vehicle import Vehicle, takes_vehicle

ROUTES_AT_ONCE = 4
"""Vehicles' routes requested from TomTom at a time (as the dynamic map's)."""
ROUTES_RESERVE_S = 10.0
"""What a plan keeps of its call for the vehicles' routes after the solve."""


@takes_vehicle
async def plan_routes(
    stops: Annotated[
        list[StopInput],
        Field(
            min_length=1,
            max_length=148,
            description=(
                "Stops to serve: each {position: [lon, lat], serviceMinutes?, timeWindow?: "
                "{start, end} (ISO 8601 with offset), demand?, optional?}"
            ),
        ),
    ],
    ctx: Context,
    vehicle: Vehicle,
    vehicles: Annotated[
        list[VehicleInput] | None,
        Field(
            min_length=1,
            max_length=50,
            description=(
                "The fleet: each {start: [lon, lat], end?, shift?: {start, end}, capacity?}; "
                "or give vehicleCount and depot instead"
            ),
        ),
    ] = None,
    vehicleCount: Annotated[
        int | None, Field(ge=1, le=50, description="That many vehicles from depot")
    ] = None,
    depot: Annotated[
        Position | None, Field(description="Where vehicleCount vehicles start")
    ] = None,
    objective: Annotated[
        Literal["time", "distance"],
        Field(description="Minimise total driving time (default) or total distance"),
    ] = "time",
    departAt: Annotated[
        OffsetTime | None,
        Field(
            description=(
                "When vehicles without a shift leave (ISO 8601 with offset); default: when the "
                "first time window or shift opens, else now"
            )
        ),
    ] = None,
    timeLimitSeconds: Annotated[
        float | None,
        Field(
            gt=0,
            le=60,
            description="Seconds the solver may search (default and maximum: the server's, 10)",
        ),
    ] = None,
    travelMode: Annotated[
        Literal["car", "truck"],
        Field(description="car, or truck with its dimensions, weights and cargo"),
    ] = "car",
    traffic: TrafficParam = "historical",
    avoid: MatrixAvoid = None,
    show_ui: ShowUi = True,
) -> Annotated[CallToolResult, PlanOutput]:
    caller = Caller.of(ctx)
    settings = caller.runtime.settings
    fleet_of = fleet(vehicles, vehicleCount, depot)
    places = layout(stops, fleet_of, departAt)
    size = len(places.locations)
    check_size(size, size, settings.matrix_max_cells, what="plan")
    limit = min(timeLimitSeconds or settings.plan_time_limit_s, settings.plan_time_limit_s)
    options = matrix_options(vehicle, travelMode, "fastest", traffic, avoid)
    started = time.perf_counter()
    fetched = await fetch_matrix(
        caller, places.locations, places.locations, options, reserve_s=limit + ROUTES_RESERVE_S
    )
    matrix = jobs.read_matrix(fetched.answer, size, size)
    problem = problem_of(places, matrix, objective)
    reasons = unservable(problem)
    solve_started = time.perf_counter()
    runtime = caller.runtime
    plan = await runtime.placement.run(
        jobs.solve_plan,
        problem,
        limit,
        1,
        frozenset(reasons),
        size=runtime.placement.for_solve(limit),
    )
    solve_ms = (time.perf_counter() - solve_started) * 1000
    broken = jobs.violations(problem, plan)
    if broken:
        raise ToolError(
            "The solver's plan breaks a rule it was given and is not answered: "
            + "; ".join(broken[:3])
        )
    routes_started = time.perf_counter()
    bodies = await _vehicle_routes(caller, problem, plan, places.locations, vehicle, travelMode)
    routes_ms = (time.perf_counter() - routes_started) * 1000
    located = jobs.PlanPlaces(
        tuple((p[0], p[1]) for p in places.locations),
        places.start_epoch,
        places.offset_minutes,
        tuple(reasons.items()),
    )
    args: tuple[Any, ...] = (bodies, problem, plan, located, show_ui, settings.budget)
    job = Job(
        tool=PLAN_ROUTES,
        func=jobs.plan_result,
        args=args,
        size=runtime.placement.for_bodies(bodies),
        offline=caller.offline,
    )
    call_scope.noted(
        plan_matrix_ms=round(fetched.ms, 1),
        plan_solve_ms=round(solve_ms, 1),
        plan_routes_ms=round(routes_ms, 1),
        plan_before_result_ms=round((time.perf_counter() - started) * 1000, 1),
    )
    return await deliver_job(runtime, job)


async def _vehicle_routes(
    caller: Caller,
    problem: jobs.PlanProblem,
    plan: jobs.Plan,
    locations: list[list[float]],
    vehicle: Vehicle,
    travel_mode: str,
) -> list[RawBody]:
    """TomTom's route through each vehicle's stops in the solved order."""
    params: list[tuple[str, Any]] = [
        ("routeType", "fastest"),
        ("travelMode", travel_mode),
        ("traffic", False),
        *vehicle.params(travel_mode),
    ]
    at_once = asyncio.Semaphore(ROUTES_AT_ONCE)

    async def one(route: jobs.PlannedRoute) -> RawBody:
        fleet_vehicle = problem.vehicles[route.vehicle]
        path = [fleet_vehicle.start, *(problem.stops[s].location for s in route.stops)]
        if fleet_vehicle.end is not None:
            path.append(fleet_vehicle.end)
        points = [locations[i] for i in path]
        async with at_once:
            return await caller.tomtom.calculate_route_raw(points, key=caller.key, params=params)

    return list(await asyncio.gather(*(one(route) for route in plan.routes)))
