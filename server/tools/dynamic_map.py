"""`tomtom-dynamic-map`: markers, calculated routes and areas composed on one map."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import numpy as np
from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field, model_validator

from fitting.geo import destination
from server import jobs
from server.bodies import RawBody
from server.errors import TomTomError
from server.runtime import Runtime
from server.tool_names import DYNAMIC_MAP
from server.tools._delivery import deliver_job
from server.tools._image import ImageFlag, image_request
from server.tools._inputs import (
    Locations,
    Position,
    RouteType,
    ShowUi,
    TravelMode,
    caller_key,
    model_tool,
)
from server.tools._vehicle import Vehicle
from server.tools.routing import route_params
from widgets import MAP_URI

Color = Annotated[
    str | None,
    Field(
        pattern=r"^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{8}|[a-zA-Z]{3,20})$",
        description="CSS colour: '#e33', '#0066cc' or a name such as 'red'",
    ),
]
Label = Annotated[str | None, Field(max_length=100, description="Text shown on the map")]
_CIRCLE_VERTICES = 64
ROUTES_AT_ONCE = 4
"""A map's routes are requested from TomTom at most this many at a time: ten at once would
press a key's queries-per-second limit, and ten long bodies arriving together crowd the
event loop (measured in docs/adr/0005-jobs-in-workers.md). Four keeps a ten-route map
to three rounds of upstream latency."""


class Marker(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: Position
    label: Label = None
    color: Color = None


class MapRoute(Vehicle):
    """A route to calculate: its stops, label, colour, mode and (for trucks) the vehicle."""

    model_config = ConfigDict(extra="forbid")
    locations: Locations
    label: Label = None
    color: Color = None
    routeType: RouteType = "fastest"
    travelMode: TravelMode = "car"


class Area(BaseModel):
    """A polygon (`coordinates`, one ring) or a circle (`center` and `radius`)."""

    model_config = ConfigDict(extra="forbid")
    coordinates: Annotated[
        list[Position] | None,
        Field(
            min_length=3,
            max_length=5000,
            description="Polygon ring as [longitude, latitude] positions (closed automatically)",
        ),
    ] = None
    center: Annotated[Position | None, Field(description="Circle centre [longitude, latitude]")] = (
        None
    )
    radius: Annotated[
        float | None, Field(gt=0, le=1_000_000, description="Circle radius in metres")
    ] = None
    label: Label = None
    color: Color = None

    @model_validator(mode="after")
    def _one_shape(self) -> Area:
        polygon = self.coordinates is not None
        circle = self.center is not None or self.radius is not None
        if polygon == circle:
            raise ValueError("give either coordinates (a polygon) or center and radius (a circle)")
        if circle and (self.center is None or self.radius is None):
            raise ValueError("a circle needs both center and radius")
        return self


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-dynamic-map` to `apps`."""

    @model_tool(
        apps,
        MAP_URI,
        name=DYNAMIC_MAP,
        title="Map of markers, routes and areas",
        description=(
            "Show one interactive map composing markers, routes (each calculated by TomTom "
            "through its [longitude, latitude] locations) and areas (polygons, or circles with "
            "a centre and radius in metres). Returns each route's distance and travel time."
        ),
    )
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
        key = caller_key(ctx)
        specs = routes or []
        for i, spec in enumerate(specs):  # refused before any route is requested
            try:
                spec.params(spec.travelMode)
            except ToolError as exc:
                raise ToolError(f"routes[{i}]: {exc}") from None
        at_once = asyncio.Semaphore(ROUTES_AT_ONCE)
        bodies = await asyncio.gather(
            *(_route(runtime, spec, i, key, at_once) for i, spec in enumerate(specs)),
            return_exceptions=True,  # every request finishes before the first error is raised
        )
        for body in bodies:
            if isinstance(body, BaseException):
                raise body
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
        size = runtime.placement.for_bodies(bodies)
        picture = None
        if image:
            picture = await image_request(runtime, key, _inputs(markers, specs, polygons))
            size = runtime.placement.for_image(size)
        return await deliver_job(
            runtime,
            DYNAMIC_MAP,
            size,
            jobs.dynamic_map,
            bodies,
            drawn,
            {"markers": len(markers or []), "areas": len(polygons or [])},
            features,
            title,
            show_ui,
            runtime.settings.budget,
            picture,
            offline=bool(specs) and runtime.tomtom.serves_offline(key),
        )


def _inputs(
    markers: list[Marker] | None, routes: list[MapRoute], areas: list[Area] | None
) -> list[list[float]]:
    """Every position the caller gave: what the map's background must cover."""
    out = [marker.position for marker in markers or []]
    for route in routes:
        out += route.locations
    for area in areas or []:
        if area.coordinates is not None:
            out += area.coordinates
        else:
            assert area.center is not None and area.radius is not None
            out += _circle(area.center, area.radius).tolist()
    return out


async def _route(
    runtime: Runtime, spec: MapRoute, index: int, key: str | None, at_once: asyncio.Semaphore
) -> RawBody:
    params = route_params(
        routeType=spec.routeType, travelMode=spec.travelMode, extra=spec.params(spec.travelMode)
    )
    try:
        async with at_once:
            return await runtime.tomtom.calculate_route_raw(
                spec.locations, key=key, params=params, section_types=("traffic",)
            )
    except TomTomError as exc:
        raise type(exc)(f"routes[{index}]: {exc}") from None


def area_feature(area: Area) -> dict[str, Any]:
    if area.coordinates is not None:
        ring = np.asarray(area.coordinates, dtype=np.float64)
        if not np.array_equal(ring[0], ring[-1]):
            ring = np.concatenate([ring, ring[:1]])
    else:
        assert area.center is not None and area.radius is not None
        ring = _circle(area.center, area.radius)
    return {
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [ring]},
        "properties": {"kind": "area", "label": area.label, "color": area.color},
    }


def _circle(center: list[float], radius_m: float) -> np.ndarray:
    """A closed ring of points at `radius_m` great-circle distance from `center`."""
    bearing = np.linspace(0, 2 * np.pi, _CIRCLE_VERTICES + 1)
    ring = np.column_stack(destination(center[0], center[1], radius_m, bearing))
    ring[-1] = ring[0]
    return ring
