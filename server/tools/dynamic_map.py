"""`tomtom-dynamic-map`: markers, calculated routes and areas composed on one map.

The routes are requested a few at a time (`ROUTES_AT_ONCE`), and every one is checked
before the first is sent; the areas are drawn as `_areas.py` draws them for area search.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.errors import TomTomError
from tomtom_mcp_apps.server.tool_names import DYNAMIC_MAP
from tomtom_mcp_apps.server.tools._areas import area_feature, positions
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._image import ImageFlag, image_request
from tomtom_mcp_apps.server.tools._inputs import Area, MapRoute, Marker, ShowUi
from tomtom_mcp_apps.server.tools._route_options import route_params

ROUTES_AT_ONCE = 4
"""A map's routes are requested from TomTom at most this many at a time: ten at once would
press a key's queries-per-second limit, and ten long bodies arriving together crowd the
event loop. Four keeps a ten-route map
to three rounds of upstream latency."""


async def dynamic_map(
    ctx: Context,
    markers: Annotated[
        list[Marker] | None,
        Field(
            max_length=500,
            description="Points to mark: [{position: [lon, lat], label?, color?}], up to 500",
        ),
    ] = None,
    routes: Annotated[
        list[MapRoute] | None,
        Field(
            max_length=10,
            description=(
                "Routes to calculate and draw: [{locations: [[lon, lat], ...], label?, "
                "color?, routeType?, travelMode?, vehicleHeight?, vehicleWeight?, "
                "vehicleLoadType?... (the truck profile of tomtom-routing)}], up to 10"
            ),
        ),
    ] = None,
    polygons: Annotated[
        list[Area] | None,
        Field(
            max_length=100,
            description=(
                "Areas: [{coordinates: [[lon, lat], ...]}] polygons or [{center: [lon, lat], "
                "radius: metres}] circles, each with label? and color?; up to 100"
            ),
        ),
    ] = None,
    title: Annotated[str | None, Field(max_length=200, description="Map title")] = None,
    image: ImageFlag = False,
    show_ui: ShowUi = True,
) -> CallToolResult:
    if not (markers or routes or polygons):
        raise ToolError("Give at least one of markers, routes or polygons.")
    caller = Caller.of(ctx)
    specs = routes or []
    bodies = await _routes(caller, specs)
    features: list[dict[str, Any]] = []
    if show_ui or image:  # without a widget or image no area or marker is drawn
        features += [area_feature(area) for area in polygons or []]
        features += [
            jobs.point_feature(
                marker.position,
                {"kind": "marker", "label": marker.label, "color": marker.color},
            )
            for marker in markers or []
        ]
    drawn = [
        jobs.DrawnRoute(spec.locations, spec.label or f"Route {i + 1}", spec.color)
        for i, spec in enumerate(specs)
    ]
    size = caller.runtime.placement.for_bodies(bodies)
    picture = None
    if image:
        picture = await image_request(caller, _covered(markers, specs, polygons))
        size = caller.runtime.placement.for_image(size)
    counts = {"markers": len(markers or []), "areas": len(polygons or [])}
    budget = caller.runtime.settings.budget
    job = Job(
        tool=DYNAMIC_MAP,
        func=jobs.dynamic_map,
        args=(bodies, drawn, counts, features, title, show_ui, budget, picture),
        size=size,
        offline=bool(specs) and caller.offline,
    )
    return await deliver_job(caller.runtime, job)


def _covered(
    markers: list[Marker] | None, routes: list[MapRoute], areas: list[Area] | None
) -> list[list[float]]:
    """Every position the caller gave: what the map's background must cover."""
    out = [marker.position for marker in markers or []]
    for route in routes:
        out += route.locations
    for area in areas or []:
        out += positions(area)
    return out


async def _routes(caller: Caller, specs: list[MapRoute]) -> list[RawBody]:
    """TomTom's answer for every route of the map, `ROUTES_AT_ONCE` at a time; a route that
    cannot be asked for is refused before any is requested."""
    for i, spec in enumerate(specs):
        try:
            spec.params(spec.travelMode)
        except ToolError as exc:
            raise ToolError(f"routes[{i}]: {exc}") from None
    at_once = asyncio.Semaphore(ROUTES_AT_ONCE)
    bodies = await asyncio.gather(
        *(_route(caller, spec, i, at_once) for i, spec in enumerate(specs)),
        return_exceptions=True,  # every request finishes before the first error is raised
    )
    for body in bodies:
        if isinstance(body, BaseException):
            raise body
    return cast("list[RawBody]", bodies)


async def _route(caller: Caller, spec: MapRoute, index: int, at_once: asyncio.Semaphore) -> RawBody:
    params = route_params(
        routeType=spec.routeType, travelMode=spec.travelMode, extra=spec.params(spec.travelMode)
    )
    try:
        async with at_once:
            return await caller.tomtom.calculate_route_raw(
                spec.locations, key=caller.key, params=params, section_types=("traffic",)
            )
    except TomTomError as exc:
        raise type(exc)(f"routes[{index}]: {exc}") from None
