"""`tomtom-reachable-range`: the area reachable from a point within a time or distance budget."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.fitting.geo import EARTH_RADIUS_M
from tomtom_mcp_apps.server.bodies import Dropped, obj
from tomtom_mcp_apps.server.jobs import area_points, collection, point_feature, rounded
from tomtom_mcp_apps.server.tool_names import REACHABLE_RANGE
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import deliver
from tomtom_mcp_apps.server.tools._inputs import (
    AvoidParam,
    DepartAt,
    Position,
    RouteTypeParam,
    ShowUi,
    TrafficParam,
    TravelModeParam,
)
from tomtom_mcp_apps.server.tools._route_options import route_params
from tomtom_mcp_apps.server.tools._vehicle import Vehicle, takes_vehicle


@takes_vehicle
async def reachable_range(
    origin: Position,
    ctx: Context,
    vehicle: Vehicle,
    timeBudgetInSec: Annotated[
        int | None,
        Field(ge=60, le=86_400, description="Travel-time budget in seconds (60-86,400)"),
    ] = None,
    distanceBudgetInMeters: Annotated[
        int | None,
        Field(ge=100, le=2_000_000, description="Distance budget in metres (100-2,000,000)"),
    ] = None,
    routeType: RouteTypeParam = "fastest",
    travelMode: TravelModeParam = "car",
    traffic: TrafficParam = "live",
    avoid: AvoidParam = None,
    departAt: DepartAt = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    if (timeBudgetInSec is None) == (distanceBudgetInMeters is None):
        raise ToolError("Give exactly one of timeBudgetInSec or distanceBudgetInMeters.")
    budget: dict[str, int] = (
        {"timeBudgetInSec": timeBudgetInSec}
        if timeBudgetInSec is not None
        else {"distanceBudgetInMeters": distanceBudgetInMeters}  # type: ignore[dict-item]
    )
    params = route_params(
        routeType=routeType,
        travelMode=travelMode,
        traffic=traffic,
        avoid=avoid,
        departAt=departAt,
        extra=[*budget.items(), *vehicle.params(travelMode)],
    )
    lon, lat = origin
    caller = Caller.of(ctx)
    body = await caller.tomtom.calculate_reachable_range(lon, lat, key=caller.key, params=params)
    dropped = Dropped()
    boundary = obj(body.get("reachableRange")).get("boundary")
    ring = area_points(boundary, "reachableRange.boundary", dropped)
    if len(ring) < 3:
        raise ToolError(
            "TomTom returned no usable reachable area for this origin and budget "
            f"(reachableRange.boundary has {len(ring)} valid points, 3 are needed)."
        )
    summary, data = _range(origin, budget, _closed(ring))
    return await deliver(
        caller.runtime,
        tool=REACHABLE_RANGE,
        answer=dropped.report(dict(summary)),
        data=data,
        show_ui=show_ui,
        offline=caller.offline,
    )


def _range(
    origin: list[float], budget: dict[str, int], ring: np.ndarray
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The range's summary (for the model) and its map: the area and the origin."""
    west, south = ring.min(axis=0)
    east, north = ring.max(axis=0)
    summary: dict[str, Any] = {
        "origin": rounded(origin),
        **budget,
        "area_km2": round(_area_m2(ring) / 1e6, 1),
        "extent": [round(float(v), 5) for v in (west, south, east, north)],
        "boundary_points": len(ring),
    }
    features = [
        {
            "type": "Feature",
            "geometry": {"type": "Polygon", "coordinates": [ring]},
            "properties": {"kind": "range", "summary": summary},
        },
        point_feature(origin, {"kind": "origin", "label": "Origin"}),
    ]
    return summary, collection(features, summary=summary)


def _closed(ring: np.ndarray) -> np.ndarray:
    """GeoJSON rings end where they start; TomTom's boundary does not repeat its first point."""
    if np.array_equal(ring[0], ring[-1]):
        return ring
    return np.concatenate([ring, ring[:1]])


def _area_m2(ring: np.ndarray) -> float:
    """Spherical polygon area (the ring is small next to the Earth, so no ellipsoid needed)."""
    lon = np.radians(ring[:, 0])
    lat = np.radians(ring[:, 1])
    # Sum over edges of (lon2 - lon1) * (2 + sin lat1 + sin lat2), the standard spherical formula.
    total = np.sum((lon[1:] - lon[:-1]) * (2 + np.sin(lat[:-1]) + np.sin(lat[1:])))
    return abs(float(total)) * EARTH_RADIUS_M**2 / 2
