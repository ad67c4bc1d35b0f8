"""The lines and rings of an app-data FeatureCollection, flattened for the kernels.

Every line and ring becomes a part of one float64 array, so one ranking covers them all
and one budget is shared; index-bearing properties become anchors on the merged vertices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._exceptions import InvalidGeometry
from ._kernels import round_merge

# Geometry type -> (nesting depth of its parts, whether parts are rings).
LINEAR = {
    "LineString": (0, False),
    "MultiLineString": (1, False),
    "Polygon": (1, True),
    "MultiPolygon": (2, True),
}
POINTS = {"Point": 0, "MultiPoint": 1}

# (list property, key) pairs whose values index a feature's vertices, parts concatenated.
INDEX_LISTS = (
    ("legs", ("startPointIndex", "endPointIndex")),
    ("sections", ("startPointIndex", "endPointIndex")),
    ("progress", ("pointIndex",)),
)
INSTRUCTION_KEYS = ("pointIndex",)
_INTEGERS = (int, np.integer)


@dataclass
class Shape:
    """Where one feature's fitted geometry goes: its output dict and its parts."""

    geometry: dict[str, Any]
    first_part: int
    count: int  # parts
    depth: int  # 0 LineString, 1 MultiLineString/Polygon, 2 MultiPolygon
    layout: list[int] | None  # MultiPolygon: rings per polygon


@dataclass
class Parts:
    """All lines and rings, original and merged, plus the output templates."""

    data: dict[str, Any]  # output copy of `data`; geometries get "e5" per candidate
    lonlat: np.ndarray  # (n, 2) original vertices
    dedup_of: np.ndarray  # (n,) merged vertex of each original one
    e5: np.ndarray  # (m, 2) int64 merged vertices, 1e-5 degrees
    offsets: np.ndarray  # (parts + 1,) into e5
    is_ring: np.ndarray  # (parts,) bool
    anchor: np.ndarray  # (m,) bool: vertices a property points at
    shapes: list[Shape] = field(default_factory=list)
    slots: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    slot_vertex: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    slot_base: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    @property
    def original_points(self) -> int:
        return int(self.lonlat.shape[0])


def collect(data: Any) -> Parts:
    """Validates `data` (docs/result.md) and flattens its lines and rings."""
    if not isinstance(data, dict) or not isinstance(data.get("features"), list):
        raise InvalidGeometry("data must be a GeoJSON FeatureCollection with a 'features' list")
    out = dict(data)
    out["features"] = features = []
    arrays: list[np.ndarray] = []
    paths: list[str] = []
    rings: list[bool] = []
    shapes: list[Shape] = []
    pending: list[tuple[int, int, int, dict[str, Any], dict[str, Any]]] = []
    for fi, feature in enumerate(data["features"]):
        where = f"features[{fi}]"
        if not isinstance(feature, dict):
            raise InvalidGeometry(f"{where} is not a GeoJSON Feature object")
        geometry = feature.get("geometry")
        if geometry is None:
            features.append(feature)
            continue
        if not isinstance(geometry, dict) or "type" not in geometry:
            raise InvalidGeometry(f"{where}.geometry is not a GeoJSON geometry object")
        kind = geometry["type"]
        if kind in POINTS:
            out_feature = dict(feature)
            out_feature["geometry"] = _rounded_points(geometry, POINTS[kind], where)
            features.append(out_feature)
            continue
        if kind not in LINEAR:
            raise InvalidGeometry(
                f"{where}.geometry has type {kind!r}; expected Point, MultiPoint, "
                "LineString, MultiLineString, Polygon or MultiPolygon"
            )
        depth, ring = LINEAR[kind]
        first_part = len(arrays)
        layout = _flatten(
            geometry.get("coordinates"), depth, f"{where}.geometry.coordinates", arrays, paths
        )
        rings.extend([ring] * (len(arrays) - first_part))
        out_geometry = {k: v for k, v in geometry.items() if k != "coordinates"}
        shapes.append(Shape(out_geometry, first_part, len(arrays) - first_part, depth, layout))
        out_feature = dict(feature)
        out_feature["geometry"] = out_geometry
        properties = feature.get("properties")
        if isinstance(properties, dict):
            out_feature["properties"] = dict(properties)
            pending.append((fi, first_part, len(arrays), properties, out_feature["properties"]))
        features.append(out_feature)

    if not arrays:  # points only (places, stops): nothing to merge, rank or point at
        return _points_only(out)
    lonlat = _concatenate(arrays)
    lengths = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    is_ring = np.array(rings, dtype=np.bool_)
    bad, run_id, e5, merged_offsets = round_merge(lonlat, offsets, is_ring)
    if bad >= 0:
        _report_value(lonlat, offsets, paths, bad)
    _check_parts(lonlat, offsets, is_ring, paths)
    parts = Parts(
        data=out,
        lonlat=lonlat,
        dedup_of=run_id,
        e5=e5,
        offsets=merged_offsets,
        is_ring=is_ring,
        anchor=np.zeros(e5.shape[0], dtype=np.bool_),
        shapes=shapes,
    )
    _resolve_indices(parts, pending, offsets)
    return parts


def _flatten(
    coords: Any, depth: int, where: str, arrays: list[np.ndarray], paths: list[str]
) -> list[int] | None:
    """Appends the parts under `coords`; returns rings per polygon for MultiPolygon."""
    if depth == 0:
        arrays.append(_positions(coords, where))
        paths.append(where)
        return None
    if isinstance(coords, np.ndarray):
        coords = list(coords)
    if not isinstance(coords, list) or not coords:
        raise InvalidGeometry(f"{where} must be a non-empty list")
    layout = []
    for i, sub in enumerate(coords):
        before = len(arrays)
        _flatten(sub, depth - 1, f"{where}[{i}]", arrays, paths)
        layout.append(len(arrays) - before)
    return layout if depth == 2 else None


def _positions(coords: Any, where: str) -> np.ndarray:
    try:
        arr = np.asarray(coords, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidGeometry(f"{where} is not a list of [lon, lat] positions") from None
    if arr.ndim != 2 or arr.shape[1] < 2:
        if arr.size == 0:
            raise InvalidGeometry(f"{where} is empty")
        raise InvalidGeometry(f"{where} is not a list of [lon, lat] positions")
    return arr[:, :2]


def _points_only(data: dict[str, Any]) -> Parts:
    """The `Parts` of data without a line or ring: every array empty."""
    return Parts(
        data=data,
        lonlat=np.empty((0, 2), dtype=np.float64),
        dedup_of=np.empty(0, dtype=np.int64),
        e5=np.empty((0, 2), dtype=np.int64),
        offsets=np.zeros(1, dtype=np.int64),
        is_ring=np.empty(0, dtype=np.bool_),
        anchor=np.empty(0, dtype=np.bool_),
    )


def _concatenate(arrays: list[np.ndarray]) -> np.ndarray:
    if len(arrays) == 1:
        return np.ascontiguousarray(arrays[0], dtype=np.float64)
    return np.concatenate(arrays)


def _locate(offsets: np.ndarray, paths: list[str], i: int) -> str:
    p = int(np.searchsorted(offsets, i, side="right")) - 1
    return f"{paths[p]}[{i - int(offsets[p])}]"


def _report_value(lonlat: np.ndarray, offsets: np.ndarray, paths: list[str], i: int) -> None:
    lon, lat = float(lonlat[i, 0]), float(lonlat[i, 1])
    lon_ok = bool(abs(lon) <= 180.0)
    lat_ok = bool(abs(lat) <= 90.0)
    if not lon_ok and not lat_ok:
        what = "longitude and latitude must be numbers in [-180, 180] and [-90, 90]"
    elif not lon_ok:
        what = "longitude must be a number in [-180, 180]"
    else:
        what = "latitude must be a number in [-90, 90]"
    raise InvalidGeometry(f"{_locate(offsets, paths, i)} = [{lon!r}, {lat!r}]: {what}")


def _check_parts(
    lonlat: np.ndarray, offsets: np.ndarray, is_ring: np.ndarray, paths: list[str]
) -> None:
    for p in range(is_ring.shape[0]):
        s, e = int(offsets[p]), int(offsets[p + 1])
        if is_ring[p]:
            if e - s < 4:
                raise InvalidGeometry(
                    f"{paths[p]} has {e - s} position(s); a polygon ring needs at least 4"
                )
            if (np.rint(lonlat[s] * 1e5) != np.rint(lonlat[e - 1] * 1e5)).any():
                raise InvalidGeometry(
                    f"{paths[p]} is not closed: its first and last positions differ"
                )
        elif e - s < 2:
            raise InvalidGeometry(f"{paths[p]} has {e - s} position(s); a line needs at least 2")


def _resolve_indices(parts: Parts, pending: list, offsets: np.ndarray) -> None:
    """Anchors every vertex a property points at and records where to write it back."""
    vertices: list[int] = []
    bases: list[int] = []
    for fi, first_part, end_part, source, target in pending:
        g0 = int(offsets[first_part])
        count = int(offsets[end_part]) - g0
        for name, keys in INDEX_LISTS:
            if name in source:
                target[name] = _index_list(
                    source[name],
                    keys,
                    f"features[{fi}].properties.{name}",
                    count,
                    g0,
                    vertices,
                    bases,
                    parts.slots,
                )
        guidance = source.get("guidance")
        if isinstance(guidance, dict) and "instructions" in guidance:
            target["guidance"] = dict(guidance)
            target["guidance"]["instructions"] = _index_list(
                guidance["instructions"],
                INSTRUCTION_KEYS,
                f"features[{fi}].properties.guidance.instructions",
                count,
                g0,
                vertices,
                bases,
                parts.slots,
            )
    merged = parts.dedup_of
    parts.slot_vertex = merged[np.array(vertices, dtype=np.int64)]
    parts.slot_base = merged[np.array(bases, dtype=np.int64)]
    parts.anchor[parts.slot_vertex] = True


def _index_list(
    items: Any,
    keys: tuple[str, ...],
    where: str,
    count: int,
    g0: int,
    vertices: list[int],
    bases: list[int],
    slots: list[tuple[dict[str, Any], str]],
) -> list[Any]:
    if not isinstance(items, list):
        raise InvalidGeometry(f"{where} must be a list")
    copied: list[Any] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidGeometry(f"{where}[{i}] must be an object")
        item = dict(item)
        for key in keys:
            if key not in item:
                continue
            value = item[key]
            if type(value) is not int and (  # the common case first: one type check
                isinstance(value, bool) or not isinstance(value, _INTEGERS)
            ):
                raise InvalidGeometry(f"{where}[{i}].{key} = {value!r} is not an integer")
            if not 0 <= value < count:
                raise InvalidGeometry(
                    f"{where}[{i}].{key} = {value} is out of range: "
                    f"the feature has {count} vertices (valid: 0 to {count - 1})"
                )
            vertices.append(g0 + int(value))
            bases.append(g0)
            slots.append((item, key))
        copied.append(item)
    return copied


def _rounded_points(geometry: dict[str, Any], depth: int, where: str) -> dict[str, Any]:
    coords = geometry.get("coordinates")
    path = f"{where}.geometry.coordinates"
    if depth == 0:
        rounded: Any = _rounded_position(coords, path)
    else:
        if not isinstance(coords, list | tuple | np.ndarray):
            raise InvalidGeometry(f"{path} must be a list of positions")
        rounded = [_rounded_position(c, f"{path}[{i}]") for i, c in enumerate(coords)]
    out = dict(geometry)
    out["coordinates"] = rounded
    return out


def _rounded_position(position: Any, where: str) -> list[float]:
    try:
        values = [float(c) for c in position]
    except (TypeError, ValueError):
        raise InvalidGeometry(f"{where} is not a [lon, lat] position") from None
    if len(values) < 2:
        raise InvalidGeometry(f"{where} is not a [lon, lat] position")
    lon, lat = values[0], values[1]
    if not (math.isfinite(lon) and abs(lon) <= 180.0 and math.isfinite(lat) and abs(lat) <= 90.0):
        raise InvalidGeometry(
            f"{where} = {values!r}: longitude must be in [-180, 180] and latitude in [-90, 90]"
        )
    return [round(v, 5) for v in values]
