"""Snap to Roads in TomTom's shapes: a GPS trace matched to (invented) roads.

`GET /snapToRoads/1?points=lon,lat;...&headings=...&timestamps=...` or `POST` with
`{"points": [GeoJSON Point features, with timestamp and heading properties]}`; both take
`fields` (`{route{...},projectedPoints{...},distances{...}}`, only what it names comes
back), `vehicleType`, `measurementSystem` and `offroadMargin`. A request holds 2 to
5,000 points, consecutive points at most 6 km apart and 100 km of road in all (TomTom's
limits on Freemium and pay-as-you-grow keys), timestamps in order.

The roads are the trace itself, smoothed by a running median (which a lone jump does not
move): each point is projected onto the smoothed line (`snapResult` `Matched`), unless
it lies farther than `offroadMargin` from it (`NotMatched`: a GPS jump, which the road
runs on past). The matched line is cut into road elements of a few hundred metres, each
with an id, a name and numbers, a municipality and a speed limit that depend only on
where the element starts (one road for about 10 km), so the same stretch of road is the
same road in every request; `distances` add the elements' lengths (`road`) and the
trace before its first and after its last matched point (`offRoad`).
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _geo
from tomtom_mcp_apps.server.offline._query import Query, parse_number

MAX_POINTS = 5000
MAX_GAP_M = 6000.0
MAX_ROAD_M = 100_000.0
VEHICLE_TYPES = ("PassengerCar", "Truck", "Bus", "Van", "Motorcycle", "Taxi", "Emergency")
_SMOOTHING = 2
"""Points on each side averaged into the road's line."""
_LIMITS_KMH = (30, 50, 50, 50, 70, 80, 80, 100, 100, 120)
"""Speed limits an element may have, drawn by where it starts (urban roads most often)."""
_MPH = 1.609344


def snap_to_roads(q: Query, body: bytes) -> dict[str, Any]:
    """The answer to one Snap to Roads request (GET parameters or POST body)."""
    if body:
        points, times, headings = _posted(body)
    else:
        points, times, headings = _parameters(q)
    q.choice("vehicleType", VEHICLE_TYPES, "PassengerCar")
    system = q.choice("measurementSystem", ("metric", "imperial", "auto"), "metric")
    margin = q.integer("offroadMargin", low=1, high=1000, default=50)
    assert margin is not None
    fields = parse_fields(q.text("fields"))
    _check(points, times, headings)
    answer = _snap(points, float(margin), system)
    return _only(answer, fields) if fields is not None else answer


def _parameters(q: Query) -> tuple[np.ndarray, list[str | None], list[str | None]]:
    text = q.text("points")
    if text is None:
        raise OfflineBadRequest("Missing required parameter 'points'.", target="points")
    points = []
    for i, pair in enumerate(text.split(";")):
        parts = pair.split(",")
        if len(parts) != 2:
            raise OfflineBadRequest(
                f"Invalid points[{i}] {pair[:40]!r}: expected 'longitude,latitude'.",
                target="points",
            )
        lon = parse_number(parts[0].strip(), "points longitude", -180.0, 180.0)
        lat = parse_number(parts[1].strip(), "points latitude", -90.0, 90.0)
        points.append((lon, lat))
    return np.array(points, dtype=np.float64), _listed(q, "timestamps"), _listed(q, "headings")


def _listed(q: Query, name: str) -> list[str | None]:
    text = q.text(name)
    return [] if text is None else [v.strip() or None for v in text.split(";")]


def _posted(body: bytes) -> tuple[np.ndarray, list[str | None], list[str | None]]:
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise OfflineBadRequest("The request body is not valid JSON.") from None
    features = parsed.get("points") if isinstance(parsed, dict) else None
    if not isinstance(features, list):
        raise OfflineBadRequest(
            "The request body must be an object with a 'points' list of GeoJSON Point features.",
            target="points",
        )
    points, times, headings = [], [], []
    for i, feature in enumerate(features):
        geometry = feature.get("geometry") if isinstance(feature, dict) else None
        coordinates = geometry.get("coordinates") if isinstance(geometry, dict) else None
        if (
            not isinstance(coordinates, list)
            or len(coordinates) < 2
            or not all(isinstance(v, int | float) for v in coordinates[:2])
        ):
            raise OfflineBadRequest(
                f"points[{i}] is not a GeoJSON Point feature with [longitude, latitude].",
                target=f"points[{i}]",
            )
        lon, lat = float(coordinates[0]), float(coordinates[1])
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            raise OfflineBadRequest(
                f"points[{i}] has a position out of range.", target=f"points[{i}]"
            )
        properties = feature.get("properties") or {}
        points.append((lon, lat))
        times.append(properties.get("timestamp"))
        heading = properties.get("heading")
        headings.append(None if heading is None else str(heading))
    array = np.array(points, dtype=np.float64).reshape(-1, 2)
    return array, times, headings


def _check(points: np.ndarray, times: list[str | None], headings: list[str | None]) -> None:
    n = len(points)
    if not 2 <= n <= MAX_POINTS:
        raise OfflineBadRequest(
            f"The number of points must be between 2 and {MAX_POINTS}; got {n}.", target="points"
        )
    for name, values in (("timestamps", times), ("headings", headings)):
        if any(v is not None for v in values) and len(values) != n:
            raise OfflineBadRequest(
                f"'{name}' has {len(values)} values for {n} points.", target=name
            )
    for i, value in enumerate(headings):
        if value is not None:
            parse_number(value, f"headings[{i}]", 0.0, 360.0)
    stamps = [_timestamp(v, i) for i, v in enumerate(times)]
    known = [t for t in stamps if t is not None]
    if any(b < a for a, b in itertools.pairwise(known)):
        raise OfflineBadRequest("Timestamps must be in ascending order.", target="timestamps")
    gaps = haversine_m(points[:-1, 0], points[:-1, 1], points[1:, 0], points[1:, 1])
    far = np.flatnonzero(gaps > MAX_GAP_M)
    if far.size:
        i = int(far[0])
        raise OfflineBadRequest(
            f"Points {i} and {i + 1} are {gaps[i]:.0f} m apart; consecutive points may be "
            f"at most {MAX_GAP_M:.0f} m apart.",
            target="points",
        )
    if gaps.sum() > MAX_ROAD_M:
        raise OfflineBadRequest(
            f"The points span {gaps.sum() / 1000:.1f} km of road; one request takes at most "
            f"{MAX_ROAD_M / 1000:.0f} km.",
            target="points",
        )


def _timestamp(value: str | None, i: int) -> float | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise OfflineBadRequest(
            f"Invalid timestamps[{i}] {value[:40]!r}: expected ISO 8601, such as "
            "2021-01-01T00:00:00Z.",
            target="timestamps",
        ) from None


def _snap(points: np.ndarray, margin: float, system: str) -> dict[str, Any]:
    n = len(points)
    padded = np.pad(points, ((_SMOOTHING, _SMOOTHING), (0, 0)), mode="edge")
    smooth = np.median([padded[i : i + n] for i in range(2 * _SMOOTHING + 1)], axis=0)
    off = haversine_m(points[:, 0], points[:, 1], smooth[:, 0], smooth[:, 1])
    matched = off <= margin
    if matched.sum() < 2:
        matched[:] = True  # nothing to snap against: the trace is the road
    projected = np.where(matched[:, None], smooth, points)
    elements, index_of = _elements(projected, matched)
    route = [_element(projected, run, system) for run in elements]
    road = sum(_length(projected[run]) for run in elements)
    ends = np.flatnonzero(matched)[[0, -1]]
    off_road = _length(points[: ends[0] + 1]) + _length(points[ends[1] :])
    projected_points = []
    for i in range(n):
        properties: dict[str, Any] = {"snapResult": "Matched" if matched[i] else "NotMatched"}
        if matched[i]:
            properties["routeIndex"] = index_of[i]
        projected_points.append(_point(projected[i], properties))
    total = road + off_road
    return {
        "route": route,
        "projectedPoints": projected_points,
        "distances": {
            "total": round(total, 2),
            "ferry": 0.0,
            "publicRoad": round(road, 2),
            "privateRoad": 0.0,
            "road": round(road, 2),
            "offRoad": round(off_road, 2),
        },
    }


def _elements(projected: np.ndarray, matched: np.ndarray) -> tuple[list[list[int]], list[int]]:
    """Road elements as runs of matched point indices, and each point's element. A run's
    line also holds the next run's first point, so the road is continuous."""
    indices = np.flatnonzero(matched).tolist()
    cores: list[list[int]] = []
    core = [indices[0]]
    length, goal = 0.0, _element_length(projected[indices[0]])
    for i in indices[1:]:
        if length >= goal:
            cores.append(core)
            core, length, goal = [], 0.0, _element_length(projected[i])
        else:
            a = projected[core[-1]]
            length += float(haversine_m(a[0], a[1], projected[i, 0], projected[i, 1]))
        core.append(i)
    cores.append(core)
    if len(cores) > 1 and len(cores[-1]) < 2:
        cores[-2].extend(cores.pop())
    index_of = [-1] * len(projected)
    for r, members in enumerate(cores):
        for i in members:
            index_of[i] = r
    lines = [[*c, cores[r + 1][0]] if r + 1 < len(cores) else c for r, c in enumerate(cores)]
    return lines, index_of


def _element_length(start: np.ndarray) -> float:
    return float(_geo.rng_for("element", *_cell(start, 3)).uniform(250.0, 900.0))


def _cell(position: np.ndarray, decimals: int) -> tuple[float, float]:
    return round(float(position[0]), decimals), round(float(position[1]), decimals)


def _element(projected: np.ndarray, run: list[int], system: str) -> dict[str, Any]:
    line = projected[run]
    start = line[0]
    road = _geo.rng_for("road", *_cell(start, 1))  # a road is the same for ~10 km
    country = _geo.country_of(float(start[0]), float(start[1]))
    limit = _LIMITS_KMH[int(road.integers(len(_LIMITS_KMH)))]
    numbers = [f"{'A' if limit >= 100 else 'N'}{int(road.integers(1, 400))}"] if limit >= 80 else []
    city, _ = _geo.nearest_place(float(start[0]), float(start[1]))
    imperial = system == "imperial" or (system == "auto" and country.iso3 in ("GBR", "USA"))
    speed: dict[str, Any] = {"value": limit, "unit": "kmph", "type": "Maximum"}
    if imperial:
        speed = {"value": int(5 * round(limit / _MPH / 5)), "unit": "mph", "type": "Maximum"}
    element_id = _geo.seed_of("element", *_cell(start, 5), len(run))
    return {
        "type": "Feature",
        "geometry": {
            "type": "LineString",
            "coordinates": [[round(float(x), 7), round(float(y), 7)] for x, y in line],
        },
        "properties": {
            "id": f"{element_id:016x}",
            "speedLimits": speed,
            "address": {
                "roadName": _geo.street_name(country, road),
                "roadNumbers": numbers,
                "municipality": city.name,
                "countryName": country.name,
                "countryCode": country.iso3,
            },
        },
    }


def _point(position: np.ndarray, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "Feature",
        "geometry": {
            "type": "Point",
            "coordinates": [round(float(position[0]), 7), round(float(position[1]), 7)],
        },
        "properties": properties,
    }


def _length(line: np.ndarray) -> float:
    return float(haversine_m(line[:-1, 0], line[:-1, 1], line[1:, 0], line[1:, 1]).sum())


Fields = dict[str, "Fields | None"]


def parse_fields(text: str | None) -> Fields | None:
    """`{route{type,properties{id}},distances{total}}` as nested dicts (a leaf is None);
    None when no `fields` was given (the whole answer)."""
    if text is None:
        return None
    tree, end = _fields(text.strip(), 0)
    if end != len(text.strip()) or tree is None:
        raise OfflineBadRequest(
            f"Invalid value for 'fields': {text[:80]!r}; expected a form such as "
            "{route{properties{speedLimits{value,unit}}}}.",
            target="fields",
        )
    return tree


def _fields(text: str, at: int) -> tuple[Fields | None, int]:
    if at >= len(text) or text[at] != "{":
        return None, at
    tree: Fields = {}
    at += 1
    while at < len(text):
        start = at
        while at < len(text) and (text[at].isalnum() or text[at] == "_"):
            at += 1
        name = text[start:at]
        if not name:
            return None, at
        sub, at = _fields(text, at) if at < len(text) and text[at] == "{" else (None, at)
        if at < len(text) and text[at - 1] != "}" and sub is None and text[at] == "{":
            return None, at
        tree[name] = sub
        if at < len(text) and text[at] == ",":
            at += 1
            continue
        if at < len(text) and text[at] == "}":
            return tree, at + 1
        return None, at
    return None, at


def _only(value: Any, fields: Fields) -> Any:
    """`value` with only what `fields` names (applied to each member of a list)."""
    if isinstance(value, list):
        return [_only(v, fields) for v in value]
    if not isinstance(value, dict):
        return value
    kept = {}
    for name, sub in fields.items():
        if name in value:
            kept[name] = value[name] if sub is None else _only(value[name], sub)
    return kept
