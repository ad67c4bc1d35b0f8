"""`tomtom-ev-search` and `tomtom-ev-routing`: charging stations and EV trips.

EV search asks EV Search for the parks around a position, then the EV Charging
Stations Availability API for each park's live counts (a few at a time, at most
`AVAILABILITY_LOOKUPS`: each is a billed request). EV routing asks Long Distance
EV Routing for a route with charging stops; its vehicle model is checked here,
field by field, before any request, because TomTom bills a refused request too.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Annotated, Any, Literal

import orjson
from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from server import bodies, jobs
from server.bodies import request_body
from server.errors import TomTomError
from server.jobs import collection, point_feature, rounded
from server.runtime import Runtime
from server.tool_names import EV_ROUTING, EV_SEARCH
from server.tools._delivery import deliver, deliver_job
from server.tools._inputs import Language, Position, ShowUi, caller_key, model_tool
from server.tools.routing import AvoidParam, DepartAt, TrafficParam, route_params
from widgets import MAP_URI

AVAILABILITY_LOOKUPS = 20
"""Live availability is asked for the nearest this many stations at most."""
AVAILABILITY_AT_ONCE = 4
"""Availability requests in flight at once: keeps a key's queries-per-second in bounds."""

ConnectorType = Literal[
    "StandardHouseholdCountrySpecific",
    "IEC62196Type1",
    "IEC62196Type1CCS",
    "IEC62196Type2CableAttached",
    "IEC62196Type2Outlet",
    "IEC62196Type2CCS",
    "IEC62196Type3",
    "Chademo",
    "GBT20234Part2",
    "GBT20234Part3",
    "IEC60309AC3PhaseRed",
    "IEC60309AC1PhaseBlue",
    "IEC60309DCWhite",
    "Tesla",
]
PlugType = Literal[
    "IEC_62196_Type_1_Outlet",
    "IEC_62196_Type_2_Outlet",
    "IEC_62196_Type_3_Outlet",
    "IEC_62196_Type_1_Connector_Cable_Attached",
    "IEC_62196_Type_2_Connector_Cable_Attached",
    "IEC_62196_Type_3_Connector_Cable_Attached",
    "Combo_to_IEC_62196_Type_1_Base",
    "Combo_to_IEC_62196_Type_2_Base",
    "CHAdeMO",
    "Tesla_Connector",
    "China_GB_Part_2",
    "China_GB_Part_3",
    "IEC_60309_1_Phase",
    "IEC_60309_3_Phase",
    "IEC_309_DC_Plug",
    "Type_E_French_Standard_CEE_7_5",
    "Type_F_Schuko_CEE_7_4",
    "Type_G_British_Standard_BS_1363",
    "Type_J_Swiss_Standard_SEV_1011",
    "SAE_J1772",
    "NEMA_5_20",
    "Standard_Household_Country_Specific",
]


# --- EV search -------------------------------------------------------------------------


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-ev-search` and `tomtom-ev-routing` to `apps`."""

    @model_tool(
        apps,
        MAP_URI,
        name=EV_SEARCH,
        title="EV charging stations",
        description=(
            "Electric-vehicle charging stations within a radius of a [longitude, latitude] "
            "position, nearest first, with their connectors (type, power in kW, count) and "
            "live availability (free, occupied, out of service). Filter by connector type, "
            "minimum power and operator. Use this, not tomtom-poi-search, whenever the user "
            "needs to charge: POI search finds places by name or category but knows nothing "
            "of connectors or whether a charger is free."
        ),
    )
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
        limit: Annotated[
            int, Field(ge=1, le=50, description="Maximum number of stations (1-50)")
        ] = 10,
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
        key = caller_key(ctx)
        lon, lat = position
        body = await runtime.tomtom.ev_search(lon, lat, key=key, params=params)
        dropped = bodies.Dropped()
        listed = bodies.entries(bodies.required_list(body, "results"), "results", dropped)
        results = [r for r in listed if jobs.matches(r, match)][:limit]
        live: dict[str, dict[str, Any] | None] = {}
        failure = None
        if includeAvailability:
            live, failure = await _availability(runtime, results, key)
        items, features = jobs.stations(results, live, dropped)
        answer: dict[str, Any] = {
            "position": rounded(position),
            "radius_m": radius,
            "count": len(items),
            "stations": items,
        }
        if failure:
            answer["availability_error"] = failure
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
        answer = dropped.report(answer)
        return await deliver(
            runtime,
            tool=EV_SEARCH,
            answer=answer,
            data=data,
            show_ui=show_ui,
            offline=runtime.tomtom.serves_offline(key),
        )

    _register_ev_routing(apps, runtime)


async def _availability(
    runtime: Runtime, results: list[dict[str, Any]], key: str | None
) -> tuple[dict[str, dict[str, Any] | None], str | None]:
    """Live counts per availability id (None where the request failed), and the first
    failure's message, which the model reads once rather than per station."""
    ids = [i for i in dict.fromkeys(map(jobs.availability_id, results)) if i]
    ids = ids[:AVAILABILITY_LOOKUPS]
    at_once = asyncio.Semaphore(AVAILABILITY_AT_ONCE)

    async def one(availability_id: str) -> dict[str, Any]:
        async with at_once:
            return await runtime.tomtom.charging_availability(availability_id, key=key)

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


# --- EV routing ------------------------------------------------------------------------

DEFAULT_CONSUMPTION = "50,8.2:130,21.3"
"""TomTom's documented example curve, used when the caller gives none."""


def _consumption(value: Any) -> Any:
    """TomTom's `'speed,kWh:speed,kWh'` text, `[[speed, kWh], ...]` pairs, or TomTom MCP's
    `[{speedKMH, consumptionUnitsPer100KM}]`, all as pairs."""
    if isinstance(value, str):
        pairs = []
        for part in value.split(":"):
            numbers = part.split(",")
            if len(numbers) != 2:
                raise ValueError(f"{part!r} is not 'speed,consumption' (e.g. '50,8.2:130,21.3')")
            try:
                pairs.append([float(numbers[0]), float(numbers[1])])
            except ValueError:
                raise ValueError(f"{part!r} holds a value that is not a number") from None
        return pairs
    if isinstance(value, list):
        return [
            [v.get("speedKMH"), v.get("consumptionUnitsPer100KM")] if isinstance(v, dict) else v
            for v in value
        ]
    return value


SpeedConsumption = Annotated[
    list[Annotated[float, Field(ge=0.01, le=100_000)]],
    Field(min_length=2, max_length=2),
]


def _check_curve(curve: Any) -> list[list[float]] | None:
    """Speeds 1-250 km/h, strictly increasing (as TomTom requires)."""
    if curve is None:
        return None
    if isinstance(curve, str):  # only a text _consumption could not split reaches here
        raise ValueError(f"{curve!r} is not 'speed,consumption:speed,consumption'")
    for (s0, _), (s1, _) in itertools.pairwise(curve):
        if s1 <= s0:
            raise ValueError(f"speeds must increase strictly ({s1:g} km/h follows {s0:g} km/h)")
    for speed, _ in curve:
        if not 1 <= speed <= 250:
            raise ValueError(f"speed {speed:g} km/h is outside [1, 250]")
    return curve


ConsumptionCurve = Annotated[
    # `str` is in the schema for TomTom's text form; the validator has made it pairs.
    str | Annotated[list[SpeedConsumption], Field(min_length=1, max_length=25)] | None,
    BeforeValidator(_consumption),
    AfterValidator(_check_curve),
    Field(
        description=(
            "Energy use at constant speed: 'speed,kWh/100km' pairs as TomTom's text "
            "'50,8.2:130,21.3' or [[50, 8.2], [130, 21.3]]; 1-25 pairs, speeds 1-250 km/h "
            "strictly increasing, consumption 0.01-100,000 kWh/100 km. Default: TomTom's "
            "example 50,8.2:130,21.3"
        ),
    ),
]


class CurvePoint(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stateOfChargeInkWh: Annotated[float, Field(ge=0, description="Battery level in kWh")]
    maxPowerInkW: Annotated[
        float, Field(gt=0, le=1_000, description="Most the battery takes at that level, kW")
    ]


class Connector(BaseModel):
    model_config = ConfigDict(extra="forbid")
    currentType: Annotated[
        Literal["AC1", "AC3", "DC"], Field(description="AC1, AC3 (three-phase) or DC")
    ]
    plugTypes: Annotated[list[PlugType], Field(min_length=1, max_length=22)]
    maxPowerInkW: Annotated[
        float | None, Field(gt=0, le=1_000, description="Most the car takes here, kW")
    ] = None
    efficiency: Annotated[float | None, Field(gt=0, le=1)] = None


DEFAULT_CONNECTORS = [
    Connector(
        currentType="AC3",
        plugTypes=["IEC_62196_Type_2_Outlet", "IEC_62196_Type_2_Connector_Cable_Attached"],
        maxPowerInkW=11,
    ),
    Connector(currentType="DC", plugTypes=["Combo_to_IEC_62196_Type_2_Base"], maxPowerInkW=150),
]
"""A European car's plugs (Type 2 AC, CCS2 DC) when the caller names none."""

Kwh = Annotated[float | None, Field(ge=0, le=1_000)]
Percent = Annotated[float | None, Field(ge=0, le=100)]


def _register_ev_routing(apps: Apps, runtime: Runtime) -> None:
    @model_tool(
        apps,
        MAP_URI,
        name=EV_ROUTING,
        title="EV route with charging stops",
        description=(
            "Plan a long trip for an electric vehicle from origin to destination ([longitude, "
            "latitude] locations): TomTom's Long Distance EV Routing adds the charging stops "
            "the battery needs and says, per stop, the station, the charge on arrival and "
            "departure and the minutes of charging. Give the battery (maxChargeInkWh, "
            "currentChargeInkWh or currentChargePercent) and, when known, the consumption "
            "model; for a trip with no charging concern use tomtom-routing."
        ),
    )
    async def ev_routing(
        ctx: Context,
        maxChargeInkWh: Annotated[
            float, Field(gt=0, le=1_000, description="Usable battery capacity in kWh, e.g. 75")
        ],
        locations: Annotated[
            list[Position] | None,
            Field(
                min_length=2,
                max_length=20,
                description="Origin, optional stops, destination, each [longitude, latitude]",
            ),
        ] = None,
        origin: Annotated[Position | None, Field(description="Start (instead of locations)")] = (
            None
        ),
        destination: Annotated[
            Position | None, Field(description="End (instead of locations)")
        ] = None,
        waypoints: Annotated[
            list[Position] | None, Field(max_length=18, description="Stops between them")
        ] = None,
        currentChargeInkWh: Annotated[Kwh, Field(description="Charge at departure, kWh")] = None,
        currentChargePercent: Annotated[
            Percent, Field(description="Charge at departure, % of capacity (instead)")
        ] = None,
        minChargeAtDestinationInkWh: Annotated[
            Kwh, Field(description="Charge to arrive with, kWh (default 20% of capacity)")
        ] = None,
        minChargeAtDestinationPercent: Annotated[Percent, Field(description="... or in %")] = (
            None
        ),
        minChargeAtChargingStopsInkWh: Annotated[
            Kwh, Field(description="Charge to reach each stop with, kWh (default 10%)")
        ] = None,
        minChargeAtChargingStopsPercent: Annotated[Percent, Field(description="... or in %")] = (
            None
        ),
        constantSpeedConsumptionInkWhPerHundredkm: ConsumptionCurve = None,
        consumptionInKWH: Annotated[
            list[dict[str, float]] | None,
            Field(
                max_length=25,
                description="The curve as [{speedKMH, consumptionUnitsPer100KM}] (TomTom MCP)",
            ),
        ] = None,
        auxiliaryPowerInkW: Annotated[
            float | None, Field(ge=0, le=50, description="Heating, air conditioning: kW")
        ] = None,
        batteryCurve: Annotated[
            list[CurvePoint] | None,
            Field(
                min_length=1,
                max_length=20,
                description=(
                    "Charging power by battery level: [{stateOfChargeInkWh, maxPowerInkW}] in "
                    "increasing level; default 150 kW to 50%, 90 kW to 80%, 30 kW above"
                ),
            ),
        ] = None,
        chargingConnectors: Annotated[
            list[Connector] | None,
            Field(
                min_length=1,
                max_length=10,
                description=(
                    "The car's plugs: [{currentType AC1|AC3|DC, plugTypes, maxPowerInkW}]; "
                    "default Type 2 AC 11 kW and CCS2 DC 150 kW"
                ),
            ),
        ] = None,
        chargingTimeOffsetInSec: Annotated[
            int | None, Field(ge=0, le=3_600, description="Time lost per stop, seconds")
        ] = None,
        travelMode: Annotated[
            Literal["car", "van", "bus", "motorcycle", "truck"],
            Field(description="Vehicle (Long Distance EV Routing routes these only)"),
        ] = "car",
        traffic: TrafficParam = "live",
        avoid: AvoidParam = None,
        departAt: DepartAt = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        stops = _stops(locations, origin, destination, waypoints)
        curve = constantSpeedConsumptionInkWhPerHundredkm
        if consumptionInKWH is not None:
            if curve is not None:
                raise ToolError(
                    "Give constantSpeedConsumptionInkWhPerHundredkm or consumptionInKWH, not both."
                )
            curve = _validated_curve(consumptionInKWH, "consumptionInKWH")
        curve = curve or _validated_curve(DEFAULT_CONSUMPTION, "default")
        charges = _charges(
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
        points = batteryCurve or [
            CurvePoint(stateOfChargeInkWh=0.5 * maxChargeInkWh, maxPowerInkW=150),
            CurvePoint(stateOfChargeInkWh=0.8 * maxChargeInkWh, maxPowerInkW=90),
            CurvePoint(stateOfChargeInkWh=maxChargeInkWh, maxPowerInkW=30),
        ]
        _check_battery_curve(points, maxChargeInkWh)
        charging: dict[str, Any] = {
            "batteryCurve": [p.model_dump() for p in points],
            "chargingConnectors": [
                c.model_dump(exclude_none=True) for c in chargingConnectors or DEFAULT_CONNECTORS
            ],
        }
        if chargingTimeOffsetInSec is not None:
            charging["chargingTimeOffsetInSec"] = chargingTimeOffsetInSec
        extra: list[tuple[str, Any]] = [
            (
                "constantSpeedConsumptionInkWhPerHundredkm",
                ":".join(f"{s:g},{c:g}" for s, c in curve),
            ),
            *charges.items(),
        ]
        if auxiliaryPowerInkW is not None:
            extra.append(("auxiliaryPowerInkW", auxiliaryPowerInkW))
        params = route_params(
            travelMode=travelMode,
            traffic=traffic,
            avoid=avoid,
            departAt=departAt,
            language=language,
            extra=extra,
        )
        body = request_body(orjson.dumps({"chargingParameters": charging}))
        key = caller_key(ctx)
        raw = await runtime.tomtom.calculate_long_distance_ev_route_raw(
            stops, body, key=key, params=params
        )
        return await deliver_job(
            runtime,
            EV_ROUTING,
            runtime.placement.for_bodies([raw]),
            jobs.ev_route,
            raw,
            stops,
            charges,
            show_ui,
            runtime.settings.budget,
            offline=runtime.tomtom.serves_offline(key),
        )


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


def _validated_curve(value: Any, field: str) -> list[list[float]]:
    try:
        pairs = _consumption(value)
        if not isinstance(pairs, list) or not 1 <= len(pairs) <= 25:
            raise ValueError("give 1 to 25 speed, consumption pairs")
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2) or not all(
                isinstance(v, int | float) and 0.01 <= v <= 100_000 for v in pair
            ):
                raise ValueError(f"{pair!r} is not a speed and a consumption in [0.01, 100,000]")
        checked = _check_curve([[float(s), float(c)] for s, c in pairs])
        assert checked is not None
        return checked
    except ValueError as exc:
        raise ToolError(f"{field}: {exc}") from None


def _charges(
    maximum: float, **given: tuple[float | None, float | None, float | None, str]
) -> dict[str, float]:
    """TomTom's four charge parameters in kWh, from kWh or percent, checked against the
    capacity (each error names the field to change)."""
    out: dict[str, float] = {"maxChargeInkWh": maximum}
    for kwh, percent, default, stem in given.values():
        if kwh is not None and percent is not None:
            raise ToolError(f"Give {stem}InkWh or {stem}Percent, not both.")
        if kwh is None and percent is None:
            if default is None:
                raise ToolError(
                    f"{stem}InkWh (or {stem}Percent) is required: the charge at departure."
                )
            percent = default
        value = kwh if kwh is not None else maximum * (percent or 0) / 100
        if value > maximum:
            raise ToolError(
                f"{stem}InkWh ({value:g}) is above the battery capacity maxChargeInkWh "
                f"({maximum:g})."
            )
        out[f"{stem}InkWh"] = round(value, 3)
    if out["minChargeAtDestinationInkWh"] >= maximum:
        raise ToolError("minChargeAtDestinationInkWh must be below maxChargeInkWh.")
    if out["minChargeAtChargingStopsInkWh"] >= maximum:
        raise ToolError("minChargeAtChargingStopsInkWh must be below maxChargeInkWh.")
    return out


def _check_battery_curve(points: list[CurvePoint], maximum: float) -> None:
    for i, point in enumerate(points):
        if point.stateOfChargeInkWh > maximum:
            raise ToolError(
                f"batteryCurve.{i}.stateOfChargeInkWh ({point.stateOfChargeInkWh:g}) is above "
                f"maxChargeInkWh ({maximum:g})."
            )
    for i, (a, b) in enumerate(itertools.pairwise(points), start=1):
        if b.stateOfChargeInkWh <= a.stateOfChargeInkWh:
            raise ToolError(
                f"batteryCurve.{i}.stateOfChargeInkWh must be above the previous point's: the "
                "curve goes in increasing battery level."
            )
