"""`tomtom-plan-routes`'s result: the plan for the model, `structuredContent`, and the map.

Pure and picklable (it decodes each vehicle's calculateRoute body, so a long plan runs
in a fitting worker). Times are seconds from the plan's start (`start_epoch`), written
back as ISO 8601 date-times in the caller's offset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from tomtom_mcp_apps.server.bodies import Dropped, RawBody
from tomtom_mcp_apps.server.errors import BodyError
from tomtom_mcp_apps.server.jobs._features import collection, point_feature, route_feature
from tomtom_mcp_apps.server.jobs._plan import Plan, PlanProblem
from tomtom_mcp_apps.server.jobs._result import Prepared, prepare
from tomtom_mcp_apps.server.jobs._routes import routes_of
from tomtom_mcp_apps.server.tool_names import PLAN_ROUTES

COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
    "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
)  # fmt: skip
"""One colour per vehicle, in turn (the view also numbers stops and names vehicles)."""


@dataclass(frozen=True)
class PlanPlaces:
    """Where everything is, and the clock the plan's seconds count from."""

    locations: tuple[tuple[float, float], ...]
    """Every matrix location, [lon, lat]."""
    start_epoch: float
    offset_minutes: int
    """The caller's UTC offset, for the times written back."""
    reasons: tuple[tuple[int, str], ...] = ()
    """Why each unassigned stop could not be served, when known before solving."""


def iso(places: PlanPlaces, seconds: int) -> str:
    """`seconds` after the plan's start, as an ISO 8601 date-time in the caller's offset."""
    zone = timezone(timedelta(minutes=places.offset_minutes))
    when = datetime.fromtimestamp(places.start_epoch + seconds, UTC).astimezone(zone)
    return when.isoformat(timespec="minutes") if when.second == 0 else when.isoformat()


def plan_result(
    bodies: Sequence[RawBody],
    problem: PlanProblem,
    plan: Plan,
    places: PlanPlaces,
    show_ui: bool,
    budget: int,
) -> Prepared:
    """The result of `plan`; `bodies[k]` is TomTom's route for `plan.routes[k]`."""
    known = dict(places.reasons)
    unassigned = [
        {"stop": s, "reason": known.get(s, _left_out(problem, s))} for s in plan.unassigned
    ]
    structured_routes = []
    model_routes = []
    for route in plan.routes:
        arrivals = [iso(places, t) for t in route.arrivals]
        structured_routes.append(
            {
                "vehicle": route.vehicle,
                "stops": list(route.stops),
                "arrivals": arrivals,
                "departure": iso(places, route.departure),
                "finish": iso(places, route.finish),
                "drivingSeconds": route.driving_s,
                "lengthMeters": route.length_m,
                "load": route.load,
            }
        )
        model_routes.append(
            {
                "vehicle": route.vehicle,
                "departure": iso(places, route.departure),
                "stops": [
                    {"stop": s, "arrival": a} for s, a in zip(route.stops, arrivals, strict=True)
                ],
                "finish": iso(places, route.finish),
                "driving_minutes": round(route.driving_s / 60),
                "km": round(route.length_m / 1000, 1),
                "load": route.load,
            }
        )
    structured = {
        "routes": structured_routes,
        "unassigned": unassigned,
        "objective": problem.objective,
        "drivingSeconds": plan.driving_s,
        "lengthMeters": plan.length_m,
    }
    answer: dict[str, Any] = {
        "vehicles_used": len(plan.routes),
        "vehicles": len(problem.vehicles),
        "stops_served": sum(len(r.stops) for r in plan.routes),
        "driving_minutes": round(plan.driving_s / 60),
        "km": round(plan.length_m / 1000, 1),
        "routes": model_routes,
        "unassigned": unassigned,
    }
    data = None
    if show_ui:
        dropped = Dropped()
        data = _plan_data(bodies, problem, plan, places, unassigned, dropped)
        answer = dropped.report(answer)
    return prepare(PLAN_ROUTES, answer, data, show_ui, budget, structured=structured)


def _plan_data(
    bodies: Sequence[RawBody],
    problem: PlanProblem,
    plan: Plan,
    places: PlanPlaces,
    unassigned: list[dict[str, Any]],
    dropped: Dropped,
) -> dict[str, Any]:
    features: list[dict[str, Any]] = []
    for k, (route, body) in enumerate(zip(plan.routes, bodies, strict=True)):
        try:
            calculated = routes_of(body, dropped, f"routes[{k}].routes")[0]
        except BodyError as exc:
            exc.args = (f"vehicle {route.vehicle}'s route: {exc}",)
            raise
        color = COLORS[route.vehicle % len(COLORS)]
        features.append(
            route_feature(
                calculated, k, guidance=False, vehicle=route.vehicle, color=color,
                label=f"Vehicle {route.vehicle + 1}",
            )
        )  # fmt: skip
    for v, vehicle in enumerate(problem.vehicles):
        features.append(
            point_feature(places.locations[vehicle.start], {"kind": "depot", "vehicle": v})
        )
    for route in plan.routes:
        color = COLORS[route.vehicle % len(COLORS)]
        for order, (s, arrival) in enumerate(zip(route.stops, route.arrivals, strict=True)):
            stop = problem.stops[s]
            properties: dict[str, Any] = {
                "kind": "stop",
                "stop": s,
                "vehicle": route.vehicle,
                "order": order + 1,
                "arrival": iso(places, arrival),
                "color": color,
            }
            if stop.window is not None:
                properties["window"] = [iso(places, stop.window[0]), iso(places, stop.window[1])]
            features.append(point_feature(places.locations[stop.location], properties))
    for item in unassigned:
        stop = problem.stops[item["stop"]]
        properties = {"kind": "unassigned", "stop": item["stop"], "reason": item["reason"]}
        features.append(point_feature(places.locations[stop.location], properties))
    served = sum(len(r.stops) for r in plan.routes)
    vehicles = len(plan.routes)
    title = f"{served} stop{'s' * (served != 1)} on {vehicles} vehicle{'s' * (vehicles != 1)}"
    return collection(features, title=title)


def _left_out(problem: PlanProblem, stop: int) -> str:
    if problem.stops[stop].optional:
        return "optional, and left out so that the stops that must be served fit"
    return (
        "no vehicle could fit it in with the other stops: its window, a shift or a capacity "
        "leaves no room (add a vehicle, widen the window or lengthen a shift)"
    )
