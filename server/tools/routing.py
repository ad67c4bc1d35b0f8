"""`tomtom-routing`: a route through two or more stops, with sections and guidance.

The model gets distances, times, per-leg figures, section summaries and the
first guidance messages; the widget gets every route line with TomTom's legs,
sections, instructions and progress, indexed as TomTom indexes them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import AfterValidator, Field

from server import jobs
from server.runtime import Runtime
from server.tool_names import ROUTING
from server.tools._delivery import deliver_job
from server.tools._image import ImageFlag, image_request
from server.tools._inputs import (
    Avoid,
    Language,
    Locations,
    RouteType,
    SectionType,
    ShowUi,
    TrafficMode,
    TravelMode,
    caller_key,
    model_tool,
)
from server.tools._vehicle import Vehicle, takes_vehicle
from widgets import MAP_URI

DEFAULT_SECTIONS: tuple[str, ...] = ("traffic", "tollRoad", "motorway", "tunnel", "country")


def _check_time(value: str | None) -> str | None:
    if value is None or value == "now":
        return value
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an ISO 8601 date-time such as '2026-06-24T14:30:00Z' (or 'now')"
        ) from None
    return value


When = Annotated[str | None, AfterValidator(_check_time)]
DepartAt = Annotated[
    When,
    Field(description="Departure time, ISO 8601 ('2026-06-24T14:30:00+02:00') or 'now'"),
]
ArriveAt = Annotated[When, Field(description="Arrival time, ISO 8601; not together with departAt")]
RouteTypeParam = Annotated[
    RouteType,
    Field(
        description=(
            "'fastest' (least time), 'shortest' (least distance), 'short' (short but quick), "
            "'eco' (economical), 'thrilling' (winding roads); 'fast' and 'efficient' also accepted"
        )
    ),
]
TravelModeParam = Annotated[
    TravelMode,
    Field(
        description=(
            "car, truck, taxi, bus, van, motorcycle, bicycle or pedestrian; with truck, give "
            "the truck's dimensions, weights and cargo (vehicleHeight, vehicleLoadType...)"
        )
    ),
]
TrafficParam = Annotated[
    TrafficMode,
    Field(description="'live' uses current traffic; 'historical' ignores live incidents"),
]
AvoidParam = Annotated[
    list[Avoid] | None, Field(max_length=10, description="Road features to avoid")
]


def route_params(
    *,
    routeType: str = "fastest",
    travelMode: str = "car",
    traffic: str = "live",
    avoid: list[str] | None = None,
    departAt: str | None = None,
    arriveAt: str | None = None,
    language: str | None = None,
    extra: list[tuple[str, Any]] | None = None,
) -> list[tuple[str, Any]]:
    """TomTom calculateRoute query parameters for the shared route options."""
    if departAt and arriveAt:
        raise ToolError("Give departAt or arriveAt, not both.")
    params: list[tuple[str, Any]] = [
        ("routeType", routeType),
        ("travelMode", travelMode),
        ("traffic", traffic == "live"),
    ]
    params += [("avoid", a) for a in avoid or ()]
    if departAt:
        params.append(("departAt", departAt))
    if arriveAt:
        params.append(("arriveAt", arriveAt))
    if language:
        params.append(("language", language))
    return params + (extra or [])


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-routing` to `apps`."""

    @model_tool(
        apps,
        MAP_URI,
        name=ROUTING,
        title="Route between locations",
        description=(
            "Calculate a route through two or more [longitude, latitude] locations in order "
            "(origin, optional stops, destination) with distance, travel time, traffic delay, "
            "turn-by-turn guidance and sections (traffic, toll roads, motorways, tunnels, "
            "countries). Any travel mode, trucks with their dimensions, weights and hazardous "
            "cargo; computeBestOrder reorders the stops for the shortest trip; maxAlternatives "
            "adds alternative routes. For an electric car that needs charging stops use "
            "tomtom-ev-routing. Geocode addresses first."
        ),
    )
    @takes_vehicle
    async def routing(
        locations: Locations,
        ctx: Context,
        vehicle: Vehicle,
        routeType: RouteTypeParam = "fastest",
        travelMode: TravelModeParam = "car",
        traffic: TrafficParam = "live",
        avoid: AvoidParam = None,
        departAt: DepartAt = None,
        arriveAt: ArriveAt = None,
        maxAlternatives: Annotated[
            int,
            Field(ge=0, le=5, description="Alternative routes to add (0-5), drawn as grey lines"),
        ] = 0,
        computeBestOrder: Annotated[
            bool,
            Field(
                description=(
                    "Reorder the stops between origin and destination for the fastest trip; "
                    "the answer's optimized_order gives the visiting order. Needs 3 or more "
                    "locations and no alternatives."
                )
            ),
        ] = False,
        sectionType: Annotated[
            list[SectionType] | None,
            Field(
                max_length=16,
                description=(
                    "Section types to report. Default: traffic, tollRoad, motorway, tunnel, "
                    "country. Also: ferry, pedestrian, tollVignette, urban, unpaved, carTrain, "
                    "lowEmissionZone..."
                ),
            ),
        ] = None,
        language: Language = None,
        image: ImageFlag = False,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        extra: list[tuple[str, Any]] = vehicle.params(travelMode)
        if maxAlternatives:
            extra.append(("maxAlternatives", maxAlternatives))
        if computeBestOrder:
            if len(locations) < 3:
                raise ToolError(
                    "computeBestOrder needs at least one stop between origin and destination "
                    "(3 or more locations)."
                )
            if maxAlternatives:
                raise ToolError(
                    "computeBestOrder reorders the stops of one route: set maxAlternatives to 0."
                )
            extra.append(("computeBestOrder", True))
        params = route_params(
            routeType=routeType,
            travelMode=travelMode,
            traffic=traffic,
            avoid=avoid,
            departAt=departAt,
            arriveAt=arriveAt,
            language=language,
            extra=extra,
        )
        key = caller_key(ctx)
        sections = tuple(dict.fromkeys(sectionType)) if sectionType else DEFAULT_SECTIONS
        raw = await runtime.tomtom.calculate_route_raw(
            locations, section_types=sections, key=key, params=params
        )
        size = runtime.placement.for_bodies([raw])
        picture = None
        if image:
            picture = await image_request(runtime, key, locations)
            size = runtime.placement.for_image(size)
        return await deliver_job(
            runtime,
            ROUTING,
            size,
            jobs.routing,
            raw,
            locations,
            show_ui,
            runtime.settings.budget,
            picture,
        )
