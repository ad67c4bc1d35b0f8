"""`tomtom-search-along-route`: calculate the route, then search places along it.

Two TomTom requests (calculateRoute, then searchAlongRoute with the route's
points); the widget gets the route, its stops and the results on one map. For
a long route both the POST body and the result are built in a fitting worker
(`server.jobs`), from the route body as received.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.tool_names import SEARCH_ALONG_ROUTE
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._inputs import (
    AvoidParam,
    CategorySet,
    Language,
    Locations,
    Query,
    RouteTypeParam,
    ShowUi,
    TravelModeParam,
)
from tomtom_mcp_apps.server.tools._route_options import DEFAULT_SECTIONS, route_params
from tomtom_mcp_apps.server.tools._vehicle import Vehicle, takes_vehicle


@takes_vehicle
async def search_along_route(
    locations: Locations,
    query: Query,
    ctx: Context,
    vehicle: Vehicle,
    maxDetourTime: Annotated[
        int, Field(ge=1, le=3600, description="Largest detour in seconds (1-3600)")
    ] = 600,
    limit: Annotated[int, Field(ge=1, le=20, description="Maximum number of places (1-20)")] = 10,
    categorySet: CategorySet = None,
    routeType: RouteTypeParam = "fastest",
    travelMode: TravelModeParam = "car",
    avoid: AvoidParam = None,
    language: Language = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    caller = Caller.of(ctx)
    params = route_params(
        routeType=routeType,
        travelMode=travelMode,
        avoid=avoid,
        language=language,
        extra=vehicle.params(travelMode),
    )
    raw = await caller.tomtom.calculate_route_raw(
        locations, section_types=DEFAULT_SECTIONS, key=caller.key, params=params
    )
    size = caller.runtime.placement.for_bodies([raw])
    request = await caller.runtime.placement.run(jobs.along_route_request, raw, size=size)
    search = [("limit", limit)]
    if categorySet:
        search.append(("categorySet", categorySet))
    if language:
        search.append(("language", language))
    found = await caller.tomtom.search_along_route(
        query, request, max_detour_time=maxDetourTime, key=caller.key, params=search
    )
    job = Job(
        tool=SEARCH_ALONG_ROUTE,
        func=jobs.along_route,
        args=(raw, found, locations, query, show_ui, caller.runtime.settings.budget),
        size=size,
        offline=caller.offline,
    )
    return await deliver_job(caller.runtime, job)
