"""Areas, as the dynamic map draws them and area search sends them to TomTom.

An area is a polygon ring or a circle (`_inputs.Area`); the view gets each as an
`area` feature (a circle as a ring of `_CIRCLE_VERTICES` points), and Geometry
Search gets each as an entry of its `geometryList`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from mcp.server.mcpserver.exceptions import ToolError

from tomtom_mcp_apps.fitting.geo import destination
from tomtom_mcp_apps.server.tomtom import coordinate
from tomtom_mcp_apps.server.tools._inputs import MAX_AREAS, Area, BoundingBox

_CIRCLE_VERTICES = 64


def area_feature(area: Area) -> dict[str, Any]:
    """The view's `area` feature for `area`: its closed ring, label and colour."""
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


def positions(area: Area) -> list[list[float]]:
    """The vertices of `area`'s ring (a circle's, computed): what a map of it must cover."""
    if area.coordinates is not None:
        return area.coordinates
    assert area.center is not None and area.radius is not None
    return _circle(area.center, area.radius).tolist()


def areas_given(
    polygons: list[Area] | None,
    center: list[float] | None,
    radius: float | None,
    polygon: list[list[float]] | None,
    box: BoundingBox | None,
) -> list[Area]:
    """Every area given, in whichever of the accepted forms."""
    areas = list(polygons or [])
    if (center is None) != (radius is None):
        raise ToolError("A circle needs both center ([lon, lat]) and radius (metres).")
    if center is not None:
        areas.append(Area(center=center, radius=radius))
    if polygon is not None:
        areas.append(Area(coordinates=polygon))
    if box is not None:
        west, north = box.topLeft.lon, box.topLeft.lat
        east, south = box.bottomRight.lon, box.bottomRight.lat
        if not (west < east and south < north):
            raise ToolError("boundingBox: topLeft must be north-west of bottomRight.")
        corners = [[west, north], [east, north], [east, south], [west, south]]
        areas.append(Area(coordinates=corners, label="Bounding box"))
    if not areas:
        raise ToolError(
            "Give the area to search: polygons, center and radius, polygon, or boundingBox."
        )
    if len(areas) > MAX_AREAS:
        raise ToolError(f"At most {MAX_AREAS} areas at once; {len(areas)} were given.")
    return areas


def geometry_entry(area: Area) -> dict[str, Any]:
    """One entry of TomTom's `geometryList` ("lat, lon" text positions)."""
    if area.coordinates is not None:
        vertices = [f"{coordinate(lat)}, {coordinate(lon)}" for lon, lat in area.coordinates]
        return {"type": "POLYGON", "vertices": vertices}
    assert area.center is not None and area.radius is not None
    lon, lat = area.center
    return {
        "type": "CIRCLE",
        "position": f"{coordinate(lat)}, {coordinate(lon)}",
        "radius": round(area.radius),
    }


def _circle(center: list[float], radius_m: float) -> np.ndarray:
    """A closed ring of points at `radius_m` great-circle distance from `center`."""
    bearing = np.linspace(0, 2 * np.pi, _CIRCLE_VERTICES + 1)
    ring = np.column_stack(destination(center[0], center[1], radius_m, bearing))
    ring[-1] = ring[0]
    return ring
