"""`tomtom-routing`: a route through two or more stops, with sections and guidance.

The model gets distances, times, per-leg figures, section summaries and the
first guidance messages; the widget gets every route line with TomTom's legs,
sections, instructions and progress, indexed as TomTom indexes them.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.tool_names import ROUTING
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._image import ImageFlag, image_request
from tomtom_mcp_apps.server.tools._inputs import (
    ArriveAt,
    AvoidParam,
    DepartAt,
    Language,
    Locations,
    RouteTypeParam,
    SectionType,
    ShowUi,
    TrafficParam,
    TravelModeParam,
)
from tomtom_mcp_apps.server.tools._route_options import DEFAULT_SECTIONS, route_params
from tomtom_mcp_apps.server.tools._vehicle import Vehicle, takes_vehicle


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
    caller = Caller.of(ctx)
    sections = tuple(dict.fromkeys(sectionType)) if sectionType else DEFAULT_SECTIONS
    raw = await caller.tomtom.calculate_route_raw(
        locations, section_types=sections, key=caller.key, params=params
    )
    size = caller.runtime.placement.for_bodies([raw])
    picture = None
    if image:
        picture = await image_request(caller, locations)
        size = caller.runtime.placement.for_image(size)
    job = Job(
        tool=ROUTING,
        func=jobs.routing,
        args=(raw, locations, show_ui, caller.runtime.settings.budget, picture),
        size=size,
        offline=caller.offline,
    )
    return await deliver_job(caller.runtime, job)
