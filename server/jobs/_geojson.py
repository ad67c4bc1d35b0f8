"""GeoJSON (RFC 7946) checks for caller data, naming the path of the first fault.

The data is only read, never altered. `validate_geojson` checks with numpy and walks an
array in Python only to name its fault; `check_arrays` and `check_features` check a
document read as arrays (`server.bodies.read_geojson`) in one pass and name nothing: what
they do not find plainly valid goes to `validate_geojson`, whose messages are the only ones.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.bodies import STAND_IN, GeoJsonArrays, segment
from tomtom_mcp_apps.server.errors import GeoJsonError

_DEPTH = {
    "Point": 0,
    "MultiPoint": 1,
    "LineString": 1,
    "MultiLineString": 2,
    "Polygon": 2,
    "MultiPolygon": 3,
}
_MAX_PROPERTY_NAMES = 50


@dataclass
class Summary:
    """What the model is told about the data: counts, geometry types, extent, property names."""

    features: int = 0
    geometry_types: Counter[str] = field(default_factory=Counter)
    property_names: dict[str, None] = field(default_factory=dict)
    west: float = np.inf
    south: float = np.inf
    east: float = -np.inf
    north: float = -np.inf

    @property
    def bbox(self) -> list[float] | None:
        if self.west > self.east:
            return None
        return [round(v, 6) for v in (self.west, self.south, self.east, self.north)]

    def as_answer(self) -> dict[str, Any]:
        names = list(self.property_names)
        answer: dict[str, Any] = {
            "features": self.features,
            "geometry_types": dict(self.geometry_types),
            "bbox": self.bbox,
            "property_names": names[:_MAX_PROPERTY_NAMES],
        }
        if len(names) > _MAX_PROPERTY_NAMES:
            answer["property_names_omitted"] = len(names) - _MAX_PROPERTY_NAMES
        return answer


def validate_geojson(obj: Any) -> Summary:
    """Check `obj` is a FeatureCollection, Feature or geometry; raise GeoJsonError otherwise."""
    summary = Summary()
    if not isinstance(obj, dict):
        raise GeoJsonError(f"(root): expected a GeoJSON object, got {_kind(obj)}")
    kind = obj.get("type")
    if kind == "FeatureCollection":
        for i, feature in enumerate(_list_at(obj, "features", "features")):
            _feature(feature, f"features[{i}]", summary)
    elif kind == "Feature":
        _feature(obj, "(root)", summary)
    elif kind in _DEPTH or kind == "GeometryCollection":
        summary.features = 1
        _geometry(obj, "(root)", summary)
    else:
        raise GeoJsonError(f"type: {kind!r} is not FeatureCollection, Feature or a geometry type")
    return summary


@dataclass(frozen=True)
class Checked:
    """A document read as arrays, found plainly valid."""

    summary: Summary
    geometries: np.ndarray
    """(segment, depth of its positions) of every feature's own geometry whose coordinates
    are a scanned array, in the document's order: what may travel as exact decimals."""


def check_arrays(doc: GeoJsonArrays) -> Checked | None:
    """`validate_geojson`'s summary of `doc.document`, or None when it is not plainly valid:
    check it with `validate_geojson` (parsed the ordinary way) for the fault."""
    walk = _Walk(doc)
    try:
        walk.root(doc.document)
        return walk.finish()
    except _Unplain:
        return None


def check_features(doc: GeoJsonArrays) -> Checked | None:
    """`check_arrays` of the list of features `doc.document` (a page)."""
    walk = _Walk(doc)
    try:
        for feature in doc.document:
            walk.feature(feature)
        return walk.finish()
    except _Unplain:
        return None


class _Unplain(Exception):
    """Not plainly valid: `validate_geojson` says what is wrong, in its words."""


_SHAPE_ROWS = {kind: i for i, kind in enumerate(fitting.GEOJSON_SHAPES)}
_SHAPES = np.array(list(fitting.GEOJSON_SHAPES.values()), dtype=np.int64)


class _Walk:
    """`validate_geojson`'s rules over a document whose coordinates are stand-ins for arrays.

    Written for speed (a dataset may hold hundreds of thousands of features): geometry
    types are listed in the order `validate_geojson` counts them and counted at the end,
    property names are taken only from a feature whose names differ from the last one's,
    and the coordinates are checked all at once (`finish`)."""

    def __init__(self, doc: GeoJsonArrays) -> None:
        self.doc = doc
        self.summary = Summary()
        self.kinds: list[str] = []
        """Every geometry's type, GeometryCollections and their members too, in order."""
        self.segments: list[int] = []
        self.shapes: list[str] = []
        """The type of each coordinates array in `segments`."""
        self.own: list[int] = []
        """Of `segments`, the indices of features' own geometries."""
        self._names: Any = None

    def root(self, obj: Any) -> None:
        if type(obj) is not dict:
            raise _Unplain
        kind = obj.get("type")
        if kind == "FeatureCollection":
            features = obj.get("features")
            if type(features) is not list:
                raise _Unplain
            for feature in features:
                self.feature(feature)
        elif kind == "Feature":
            self.feature(obj)
        elif kind in _DEPTH or kind == "GeometryCollection":
            self.summary.features = 1
            self.geometry(obj)
        else:
            raise _Unplain

    def feature(self, feature: Any) -> None:
        if type(feature) is not dict or feature.get("type") != "Feature":
            raise _Unplain
        geometry = feature.get("geometry", _MISSING)
        properties = feature.get("properties")
        if properties:
            if type(properties) is not dict:
                raise _Unplain
            names = properties.keys()
            if names != self._names:
                self.summary.property_names.update(dict.fromkeys(names))
                self._names = names
        elif properties is not None and type(properties) is not dict:
            raise _Unplain
        self.summary.features += 1
        if geometry is None:
            return
        if type(geometry) is not dict:
            raise _Unplain  # or missing: both are faults
        kind = geometry.get("type")
        coordinates = geometry.get("coordinates")
        if kind in _SHAPE_ROWS and type(coordinates) is str and coordinates[:1] == STAND_IN:
            self.own.append(len(self.segments))
            self.kinds.append(kind)
            self.segments.append(int(coordinates[1:]))
            self.shapes.append(kind)
        else:
            self.geometry(geometry)

    def geometry(self, geometry: Any) -> None:
        if type(geometry) is not dict:
            raise _Unplain
        kind = geometry.get("type")
        if kind == "GeometryCollection":
            members = geometry.get("geometries")
            if type(members) is not list:
                raise _Unplain
            self.kinds.append(kind)
            for member in members:
                self.geometry(member)
            return
        found = segment(geometry.get("coordinates"))
        if kind not in _DEPTH or found is None:
            raise _Unplain
        self.kinds.append(kind)
        self.segments.append(found)
        self.shapes.append(kind)

    def finish(self) -> Checked:
        rows = np.fromiter(map(_SHAPE_ROWS.__getitem__, self.shapes), np.int64, len(self.shapes))
        segments = np.array(self.segments, dtype=np.int64)
        shapes = _SHAPES[rows]
        ok, extent = fitting.check_shapes(self.doc.scan, self.doc.values, segments, shapes)
        if not ok.all():
            raise _Unplain
        summary = self.summary
        summary.geometry_types.update(self.kinds)
        if len(extent):
            summary.west = min(summary.west, float(extent[:, 0].min()))
            summary.south = min(summary.south, float(extent[:, 1].min()))
            summary.east = max(summary.east, float(extent[:, 2].max()))
            summary.north = max(summary.north, float(extent[:, 3].max()))
        own = np.array(self.own, dtype=np.int64)
        return Checked(summary, np.column_stack((segments[own], shapes[own, 0])))


_MISSING = object()


def _list_at(obj: dict[str, Any], key: str, path: str) -> list[Any]:
    """`obj[key]`, which must be a list (`path` names it in the error)."""
    value = obj.get(key)
    if not isinstance(value, list):
        raise GeoJsonError(f"{path}: expected a list, got {_kind(value)}")
    return value


def _feature(feature: Any, path: str, summary: Summary) -> None:
    if not isinstance(feature, dict):
        raise GeoJsonError(f"{path}: expected a Feature object, got {_kind(feature)}")
    if feature.get("type") != "Feature":
        raise GeoJsonError(f"{path}.type: expected 'Feature', got {feature.get('type')!r}")
    if "geometry" not in feature:
        raise GeoJsonError(f"{path}.geometry: missing (use null for a feature without one)")
    properties = feature.get("properties")
    if properties is not None and not isinstance(properties, dict):
        raise GeoJsonError(
            f"{path}.properties: expected an object or null, got {_kind(properties)}"
        )
    summary.features += 1
    if properties:
        summary.property_names.update(dict.fromkeys(properties))
    if feature["geometry"] is not None:
        _geometry(feature["geometry"], f"{path}.geometry", summary)


def _geometry(geometry: Any, path: str, summary: Summary) -> None:
    if not isinstance(geometry, dict):
        raise GeoJsonError(f"{path}: expected a geometry object or null, got {_kind(geometry)}")
    kind = geometry.get("type")
    if kind == "GeometryCollection":
        members = _list_at(geometry, "geometries", f"{path}.geometries")
        summary.geometry_types[kind] += 1
        for i, member in enumerate(members):
            _geometry(member, f"{path}.geometries[{i}]", summary)
        return
    if kind not in _DEPTH:
        raise GeoJsonError(f"{path}.type: {kind!r} is not a GeoJSON geometry type")
    if "coordinates" not in geometry:
        raise GeoJsonError(f"{path}.coordinates: missing")
    summary.geometry_types[kind] += 1
    _coordinates(kind, geometry["coordinates"], f"{path}.coordinates", summary)


def _coordinates(kind: str, coords: Any, path: str, summary: Summary) -> None:
    if kind == "Point":
        _positions([coords], path, summary, single=True)
    elif kind in ("MultiPoint", "LineString"):
        _positions(coords, path, summary, minimum=2 if kind == "LineString" else 0)
    elif kind in ("MultiLineString", "Polygon"):
        for i, part in enumerate(_list(coords, path)):
            if kind == "Polygon":
                _ring(part, f"{path}[{i}]", summary)
            else:
                _positions(part, f"{path}[{i}]", summary, minimum=2)
    else:  # MultiPolygon
        for i, polygon in enumerate(_list(coords, path)):
            for j, ring in enumerate(_list(polygon, f"{path}[{i}]")):
                _ring(ring, f"{path}[{i}][{j}]", summary)


def _ring(ring: Any, path: str, summary: Summary) -> None:
    array = _positions(ring, path, summary, minimum=4)
    if not np.array_equal(array[0, :2], array[-1, :2]):
        raise GeoJsonError(f"{path}: a linear ring must end at its first position (not closed)")


def _positions(
    coords: Any, path: str, summary: Summary, *, minimum: int = 0, single: bool = False
) -> np.ndarray:
    items = _list(coords, path)
    array = _as_array(items)
    if array is None:
        raise _explain(items, path, single)
    if len(array) < minimum:
        raise GeoJsonError(f"{path}: needs at least {minimum} positions, has {len(array)}")
    if len(array) == 0:
        return array
    lon, lat = array[:, 0], array[:, 1]
    bad_lon = ~((lon >= -180) & (lon <= 180))
    bad_lat = ~((lat >= -90) & (lat <= 90))
    if bad_lon.any() or bad_lat.any():
        i = int(np.argmax(bad_lon | bad_lat))
        where = path if single else f"{path}[{i}]"
        if bad_lon[i]:
            raise GeoJsonError(f"{where}: longitude {items[i][0]} is outside [-180, 180]")
        raise GeoJsonError(f"{where}: latitude {items[i][1]} is outside [-90, 90]")
    summary.west = min(summary.west, float(lon.min()))
    summary.east = max(summary.east, float(lon.max()))
    summary.south = min(summary.south, float(lat.min()))
    summary.north = max(summary.north, float(lat.max()))
    return array


def _as_array(items: list[Any]) -> np.ndarray | None:
    """A float `(n, 2+)` array when every item is a list of 2 or 3 plain numbers, else None."""
    if not items:
        return np.empty((0, 2), dtype=np.float64)
    try:
        array = np.asarray(items)
    except (ValueError, TypeError):  # ragged
        return None
    if array.dtype.kind not in "iuf" or array.ndim != 2 or array.shape[1] not in (2, 3):
        return None
    return array.astype(np.float64, copy=False)


def _explain(items: list[Any], path: str, single: bool) -> GeoJsonError:
    """The error for the first malformed position (the slow path, only once a fault is known)."""
    for i, position in enumerate(items):
        where = path if single else f"{path}[{i}]"
        if not isinstance(position, list):
            return GeoJsonError(f"{where}: expected a position [lon, lat], got {_kind(position)}")
        if len(position) not in (2, 3):
            return GeoJsonError(
                f"{where}: a position has 2 or 3 numbers [lon, lat(, alt)], got {len(position)}"
            )
        for value in position:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return GeoJsonError(f"{where}: {_kind(value)} {value!r} is not a number")
    return GeoJsonError(f"{path}: positions are not all [lon, lat] number pairs")


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise GeoJsonError(f"{path}: expected a list, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
