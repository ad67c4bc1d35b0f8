"""TomTom responses turned into the features of docs/adr/0001-app-data-shape.md,
and the compact summaries the model reads in their place.

Route lines are float64 `(n, 2)` arrays built column by column from TomTom's
point objects (no per-point tuple or list), so that a long route is cheap to
build here and pickles cheaply into the fitting pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

import numpy as np

_LON = itemgetter("longitude")
_LAT = itemgetter("latitude")
_MAX_INSTRUCTIONS = 25
"""Guidance messages quoted to the model; the widget gets them all."""


def point_array(points: Sequence[dict[str, float]] | np.ndarray | None) -> np.ndarray:
    """TomTom `[{latitude, longitude}, ...]` as a float64 `(n, 2)` `[lon, lat]` array
    (already one when the client parsed a route body: `server.tomtom.parse_route_body`)."""
    if isinstance(points, np.ndarray):
        return points
    points = points or []
    n = len(points)
    out = np.empty((n, 2), dtype=np.float64)
    out[:, 0] = np.fromiter(map(_LON, points), dtype=np.float64, count=n)
    out[:, 1] = np.fromiter(map(_LAT, points), dtype=np.float64, count=n)
    return out


def rounded(position: Sequence[float]) -> list[float]:
    return [round(float(position[0]), 6), round(float(position[1]), 6)]


def point_feature(position: Sequence[float], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": rounded(position)},
        "properties": properties,
    }


def collection(features: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A FeatureCollection with its bbox and any extra top-level keys (`title`, `summary`)."""
    data: dict[str, Any] = {"type": "FeatureCollection", "features": features}
    box = bbox_of(features)
    if box is not None:
        data["bbox"] = box
    data.update({k: v for k, v in extra.items() if v is not None})
    return data


def bbox_of(features: Iterable[dict[str, Any]]) -> list[float] | None:
    """[west, south, east, north] over every coordinate of `features`."""
    lows: list[np.ndarray] = []
    highs: list[np.ndarray] = []
    for feature in features:
        for part in _parts(feature["geometry"]):
            if len(part):
                lows.append(part.min(axis=0))
                highs.append(part.max(axis=0))
    if not lows:
        return None
    low = np.min(lows, axis=0)
    high = np.max(highs, axis=0)
    return [round(float(v), 6) for v in (low[0], low[1], high[0], high[1])]


def _parts(geometry: dict[str, Any]) -> Iterable[np.ndarray]:
    kind, coords = geometry["type"], geometry["coordinates"]
    if kind == "Point":
        yield np.asarray([coords], dtype=np.float64)
    elif kind == "LineString":
        yield np.asarray(coords, dtype=np.float64)
    elif kind in ("Polygon", "MultiLineString"):
        for ring in coords:
            yield np.asarray(ring, dtype=np.float64)
    elif kind == "MultiPolygon":
        for polygon in coords:
            for ring in polygon:
                yield np.asarray(ring, dtype=np.float64)


# --- search results -------------------------------------------------------------------------


def result_position(result: dict[str, Any]) -> tuple[float, float] | None:
    """`[lon, lat]` of a search or reverse-geocode result (the latter gives "lat,lon" text)."""
    position = result.get("position")
    if isinstance(position, dict) and "lat" in position and "lon" in position:
        return float(position["lon"]), float(position["lat"])
    if isinstance(position, str) and "," in position:
        lat, lon = position.split(",", 1)
        return float(lon), float(lat)
    return None


def result_summary(result: dict[str, Any]) -> dict[str, Any]:
    """What the model and the widget both show for one search result."""
    poi = result.get("poi") or {}
    address = (result.get("address") or {}).get("freeformAddress")
    categories = poi.get("categories") or []
    summary: dict[str, Any] = {
        "name": poi.get("name") or address or result.get("type"),
        "address": address,
        "category": categories[0] if categories else result.get("type"),
    }
    if "score" in result:
        summary["score"] = round(float(result["score"]), 3)
    if "dist" in result:
        summary["distance_m"] = round(float(result["dist"]), 1)
    if "detourTime" in result:
        summary["detour_s"] = result["detourTime"]
    if result.get("id") is not None:
        summary["id"] = result["id"]
    return summary


def search_results(results: Sequence[dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    """(answer items for the model, `result` features for the widget)."""
    items: list[dict[str, Any]] = []
    features: list[dict[str, Any]] = []
    for result in results:
        position = result_position(result)
        summary = result_summary(result)
        if position is None:
            items.append(summary)
            continue
        items.append({**summary, "position": rounded(position)})
        features.append(point_feature(position, {"kind": "result", **summary}))
    return items, features


# --- routes ---------------------------------------------------------------------------------


def route_feature(
    route: dict[str, Any], index: int, *, guidance: bool = True, **extra: Any
) -> dict[str, Any]:
    """One `route` feature: all leg points concatenated, as TomTom's indices count them.

    `guidance=False` leaves out the instructions and progress points: a composed map of
    many long routes shows no turn-by-turn, and their thousands of anchored vertices
    and messages alone would overflow the budget."""
    legs = route.get("legs") or []
    arrays = [point_array(leg.get("points")) for leg in legs]
    line = np.concatenate(arrays) if arrays else np.empty((0, 2), dtype=np.float64)
    leg_props: list[dict[str, Any]] = []
    start = 0
    for leg, points in zip(legs, arrays, strict=True):
        leg_props.append(
            {
                "startPointIndex": start,
                "endPointIndex": start + len(points) - 1,
                "summary": leg.get("summary") or {},
            }
        )
        start += len(points)
    properties: dict[str, Any] = {
        "kind": "route",
        "route_index": index,
        "summary": route.get("summary") or {},
        "legs": leg_props,
        "sections": route.get("sections") or [],
    }
    if guidance:
        instructions = (route.get("guidance") or {}).get("instructions") or []
        properties["guidance"] = {"instructions": instructions}
        properties["progress"] = route.get("progress") or []
    properties.update({k: v for k, v in extra.items() if v is not None})
    return {
        "type": "Feature",
        "geometry": {"type": "LineString", "coordinates": line},
        "properties": properties,
    }


def waypoint_features(
    locations: Sequence[Sequence[float]], labels: Sequence[str | None] | None = None
) -> list[dict[str, Any]]:
    last = len(locations) - 1
    features = []
    for i, position in enumerate(locations):
        given = labels[i] if labels and i < len(labels) else None
        default = "Start" if i == 0 else "End" if i == last else f"Stop {i}"
        features.append(
            point_feature(position, {"kind": "waypoint", "index": i, "label": given or default})
        )
    return features


def route_answer(route: dict[str, Any], index: int) -> dict[str, Any]:
    """The model's view of a route: figures, legs, section summaries, the first instructions."""
    summary = route.get("summary") or {}
    answer: dict[str, Any] = {"route_index": index, **_trip(summary)}
    legs = route.get("legs") or []
    if len(legs) > 1:
        answer["legs"] = [_trip(leg.get("summary") or {}) for leg in legs]
    sections = _sections_summary(route.get("sections") or [], route)
    if sections:
        answer["sections"] = sections
    instructions = (route.get("guidance") or {}).get("instructions") or []
    messages = [i["message"] for i in instructions if i.get("message")]
    if messages:
        answer["instructions"] = messages[:_MAX_INSTRUCTIONS]
        if len(messages) > _MAX_INSTRUCTIONS:
            answer["instructions_omitted"] = len(messages) - _MAX_INSTRUCTIONS
    return answer


def _trip(summary: dict[str, Any]) -> dict[str, Any]:
    trip: dict[str, Any] = {}
    if "lengthInMeters" in summary:
        trip["length_km"] = round(summary["lengthInMeters"] / 1000, 2)
    if "travelTimeInSeconds" in summary:
        trip["travel_time_s"] = summary["travelTimeInSeconds"]
        trip["travel_time"] = _duration(summary["travelTimeInSeconds"])
    for src, dst in (
        ("trafficDelayInSeconds", "traffic_delay_s"),
        ("departureTime", "departure"),
        ("arrivalTime", "arrival"),
    ):
        if src in summary:
            trip[dst] = summary[src]
    return trip


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def _sections_summary(sections: list[dict[str, Any]], route: dict[str, Any]) -> dict[str, Any]:
    """Per section type: how many, and how far (from the progress distances when present)."""
    distance_at = _distance_lookup(route.get("progress") or [])
    out: dict[str, Any] = {}
    for section in sections:
        kind = section.get("sectionType", "UNKNOWN")
        if kind == "TRAVEL_MODE":
            continue
        entry = out.setdefault(kind, {"count": 0})
        entry["count"] += 1
        if distance_at is not None:
            length = distance_at(section.get("endPointIndex", 0)) - distance_at(
                section.get("startPointIndex", 0)
            )
            entry["length_km"] = round(entry.get("length_km", 0) + length / 1000, 2)
        if kind == "COUNTRY" and section.get("countryCode"):
            entry.setdefault("countries", []).append(section["countryCode"])
        if kind == "TRAFFIC":
            delay = section.get("delayInSeconds") or 0
            entry["delay_s"] = entry.get("delay_s", 0) + delay
            magnitude = section.get("magnitudeOfDelay")
            if magnitude is not None:
                entry["worst_magnitude"] = max(entry.get("worst_magnitude", 0), magnitude)
    return out


def _distance_lookup(progress: list[dict[str, Any]]) -> Any:
    """A function from point index to metres along the route, interpolated from `progress`."""
    if len(progress) < 2:
        return None
    index = np.fromiter((p.get("pointIndex", 0) for p in progress), np.float64, len(progress))
    metres = np.fromiter(
        (p.get("distanceInMeters", 0) for p in progress), np.float64, len(progress)
    )
    return lambda i: float(np.interp(i, index, metres))
