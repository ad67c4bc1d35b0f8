"""`tomtom-ev-search` and `tomtom-ev-routing`: charging stations and EV trips.

EV search looks up each park's live availability, a few at a time and at most
`AVAILABILITY_LOOKUPS` (each is billed); EV routing's vehicle (`_ev_vehicle.py`) is
checked field by field before any request.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import orjson
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import bodies, jobs
from tomtom_mcp_apps.server.bodies import request_body
from tomtom_mcp_apps.server.errors import TomTomError
from tomtom_mcp_apps.server.jobs import collection, point_feature, rounded
from tomtom_mcp_apps.server.tool_names import EV_ROUTING, EV_SEARCH
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver, deliver_job
from tomtom_mcp_apps.server.tools._ev_vehicle import (
    AuxiliaryPowerInkW,
    BatteryCurve,
    ChargingConnectors,
    ChargingTimeOffsetInSec,
    ConsumptionCurve,
    ConsumptionInKWH,
    CurrentChargeInkWh,
    CurrentChargePercent,
    EvTravelMode,
    MaxChargeInkWh,
    MinChargeAtChargingStopsInkWh,
    MinChargeAtDestinationInkWh,
    OrInPercent,
    charges,
    charging_parameters,
    consumption_curve,
    vehicle_params,
)
from tomtom_mcp_apps.server.tools._inputs import (
    AvoidParam,
    ConnectorType,
    DepartAt,
    Language,
    Position,
    ShowUi,
    TrafficParam,
)
from tomtom_mcp_apps.server.tools._route_options import route_params

AVAILABILITY_LOOKUPS = 20
"""Live availability is asked for the nearest this many stations at most."""
AVAILABILITY_AT_ONCE = 4
"""Availability requests in flight at once: keeps a key's queries-per-second in bounds."""


async def ev_search(
    position: Position,
    ctx: Context,
    radius: Annotated[
        int, Field(ge=1, le=50_000, description="Search radius in metres (1-50,000)")
    ] = 5_000,
    connectorTypes: Annotated[
        list[ConnectorType] | None,
        Field(
            max_length=14,
            description=(
                "Only stations with one of these connectors: IEC62196Type2CCS (CCS2), "
                "IEC62196Type2CableAttached / IEC62196Type2Outlet (Type 2), "
                "IEC62196Type1CCS (CCS1), IEC62196Type1 (J1772), Chademo, Tesla..."
            ),
        ),
    ] = None,
    minPowerKW: Annotated[
        float | None,
        Field(ge=0, le=1_000, description="Minimum charging power in kW, e.g. 50 for DC"),
    ] = None,
    maxPowerKW: Annotated[
        float | None, Field(ge=0, le=1_000, description="Maximum charging power in kW")
    ] = None,
    operator: Annotated[
        str | None,
        Field(
            max_length=100,
            description="Operator or brand to match, e.g. 'Ionity', 'Fastned', 'Tesla'",
        ),
    ] = None,
    query: Annotated[
        str | None,
        Field(max_length=100, description="Station name or brand to match (as operator)"),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Maximum number of stations (1-50)")] = 10,
    includeAvailability: Annotated[
        bool,
        Field(
            description=(
                f"Look up live availability (one request per station, nearest "
                f"{AVAILABILITY_LOOKUPS} at most). Default true."
            )
        ),
    ] = True,
    language: Language = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    if minPowerKW is not None and maxPowerKW is not None and minPowerKW > maxPowerKW:
        raise ToolError(f"minPowerKW ({minPowerKW:g}) is above maxPowerKW ({maxPowerKW:g}).")
    match = " ".join(t for t in (operator, query) if t and t.strip()).strip().lower()
    params: list[tuple[str, Any]] = [
        ("radius", radius),
        ("limit", 100 if match else limit),  # filtered here: one request either way
    ]
    if connectorTypes:
        params.append(("connector", ",".join(dict.fromkeys(connectorTypes))))
    if minPowerKW is not None:
        params.append(("minPowerKW", minPowerKW))
    if maxPowerKW is not None:
        params.append(("maxPowerKW", maxPowerKW))
    if language:
        params.append(("language", language))
    caller = Caller.of(ctx)
    lon, lat = position
    body = await caller.tomtom.ev_search(lon, lat, key=caller.key, params=params)
    dropped = bodies.Dropped()
    listed = bodies.entries(bodies.required_list(body, "results"), "results", dropped)
    results = [r for r in listed if jobs.matches(r, match)][:limit]
    live: dict[str, dict[str, Any] | None] = {}
    failure = None
    if includeAvailability:
        live, failure = await _availability(caller, results)
    items, features = jobs.stations(results, live, dropped)
    answer = _stations_answer(position, radius, items, failure)
    looked_up = sum(1 for r in results if jobs.availability_id(r))
    if includeAvailability and looked_up > AVAILABILITY_LOOKUPS:
        answer["availability_note"] = (
            f"live availability was looked up for the nearest {AVAILABILITY_LOOKUPS}"
        )
    if not items:
        answer["note"] = (
            "No charging station matches. Try a larger radius, fewer connector types, a "
            "lower minPowerKW or no operator."
        )
    origin = point_feature(position, {"kind": "origin", "label": "Search centre"})
    data = collection([origin, *features], summary={"count": len(items), "radius_m": radius})
    return await deliver(
        caller.runtime,
        tool=EV_SEARCH,
        answer=dropped.report(answer),
        data=data,
        show_ui=show_ui,
        offline=caller.offline,
    )


def _stations_answer(
    position: list[float], radius: int, items: list[dict[str, Any]], failure: str | None
) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "position": rounded(position),
        "radius_m": radius,
        "count": len(items),
        "stations": items,
    }
    if failure:
        answer["availability_error"] = failure
    return answer


async def _availability(
    caller: Caller, results: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any] | None], str | None]:
    """Live counts per availability id (None where the request failed), and the first
    failure's message, which the model reads once rather than per station."""
    ids = [i for i in dict.fromkeys(map(jobs.availability_id, results)) if i]
    ids = ids[:AVAILABILITY_LOOKUPS]
    at_once = asyncio.Semaphore(AVAILABILITY_AT_ONCE)

    async def one(availability_id: str) -> dict[str, Any]:
        async with at_once:
            return await caller.tomtom.charging_availability(availability_id, key=caller.key)

    answers = await asyncio.gather(*(one(i) for i in ids), return_exceptions=True)
    live: dict[str, dict[str, Any] | None] = {}
    failure = None
    for availability_id, answer in zip(ids, answers, strict=True):
        if isinstance(answer, TomTomError):
            live[availability_id] = None
            failure = failure or str(answer)
        elif isinstance(answer, BaseException):
            raise answer
        else:
            live[availability_id] = answer
    return live, failure


async def ev_routing(
    ctx: Context,
    maxChargeInkWh: MaxChargeInkWh,
    locations: Annotated[
        list[Position] | None,
        Field(
            min_length=2,
            max_length=20,
            description="Origin, optional stops, destination, each [longitude, latitude]",
        ),
    ] = None,
    origin: Annotated[Position | None, Field(description="Start (instead of locations)")] = (None),
    destination: Annotated[Position | None, Field(description="End (instead of locations)")] = None,
    waypoints: Annotated[
        list[Position] | None, Field(max_length=18, description="Stops between them")
    ] = None,
    currentChargeInkWh: CurrentChargeInkWh = None,
    currentChargePercent: CurrentChargePercent = None,
    minChargeAtDestinationInkWh: MinChargeAtDestinationInkWh = None,
    minChargeAtDestinationPercent: OrInPercent = None,
    minChargeAtChargingStopsInkWh: MinChargeAtChargingStopsInkWh = None,
    minChargeAtChargingStopsPercent: OrInPercent = None,
    constantSpeedConsumptionInkWhPerHundredkm: ConsumptionCurve = None,
    consumptionInKWH: ConsumptionInKWH = None,
    auxiliaryPowerInkW: AuxiliaryPowerInkW = None,
    batteryCurve: BatteryCurve = None,
    chargingConnectors: ChargingConnectors = None,
    chargingTimeOffsetInSec: ChargingTimeOffsetInSec = None,
    travelMode: EvTravelMode = "car",
    traffic: TrafficParam = "live",
    avoid: AvoidParam = None,
    departAt: DepartAt = None,
    language: Language = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    stops = _stops(locations, origin, destination, waypoints)
    curve = consumption_curve(constantSpeedConsumptionInkWhPerHundredkm, consumptionInKWH)
    battery = charges(
        maxChargeInkWh,
        current=(currentChargeInkWh, currentChargePercent, None, "currentCharge"),
        destination=(
            minChargeAtDestinationInkWh,
            minChargeAtDestinationPercent,
            20,
            "minChargeAtDestination",
        ),
        stops=(
            minChargeAtChargingStopsInkWh,
            minChargeAtChargingStopsPercent,
            10,
            "minChargeAtChargingStops",
        ),
    )
    charging = charging_parameters(
        maxChargeInkWh, batteryCurve, chargingConnectors, chargingTimeOffsetInSec
    )
    params = route_params(
        travelMode=travelMode,
        traffic=traffic,
        avoid=avoid,
        departAt=departAt,
        language=language,
        extra=vehicle_params(curve, battery, auxiliaryPowerInkW),
    )
    body = request_body(orjson.dumps({"chargingParameters": charging}))
    caller = Caller.of(ctx)
    raw = await caller.tomtom.calculate_long_distance_ev_route_raw(
        stops, body, key=caller.key, params=params
    )
    job = Job(
        tool=EV_ROUTING,
        func=jobs.ev_route,
        args=(raw, stops, battery, show_ui, caller.runtime.settings.budget),
        size=caller.runtime.placement.for_bodies([raw]),
        offline=caller.offline,
    )
    return await deliver_job(caller.runtime, job)


def _stops(
    locations: list[list[float]] | None,
    origin: list[float] | None,
    destination: list[float] | None,
    waypoints: list[list[float]] | None,
) -> list[list[float]]:
    if locations is not None:
        if origin is not None or destination is not None or waypoints:
            raise ToolError("Give locations, or origin and destination (with waypoints): not both.")
        return locations
    if origin is None or destination is None:
        raise ToolError(
            "Give locations ([[lon, lat], ...], origin first) or both origin and destination."
        )
    return [origin, *(waypoints or []), destination]
