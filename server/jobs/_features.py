"""TomTom answers turned into the view's features (docs/result.md, The envelope) and the
compact summaries the model reads in their place.

Route lines are float64 `(n, 2)` arrays: cheap to build and to pickle into the fitting pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.bodies import (
    Dropped,
    entries,
    indexed_entries,
    integer,
    line_points,
    number,
    obj,
    plain,
    position,
    text,
)
from tomtom_mcp_apps.server.errors import BadAnswer

_MAX_INSTRUCTIONS = 25
"""Guidance messages quoted to the model; the widget gets them all."""


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
    """[west, south, east, north] over every coordinate of `features`. Points (a search's
    places) are compared as numbers: an array for one position costs more than the rest.
    A line's columns are reduced one by one: numpy reduces an `(n, 2)` array along its
    first axis far slower (docs/runtime.md, Per-call overhead)."""
    lows: list[Sequence[float]] = []
    highs: list[Sequence[float]] = []
    xs: list[float] = []
    ys: list[float] = []
    for feature in features:
        geometry = feature["geometry"]
        if geometry["type"] == "Point":
            xs.append(float(geometry["coordinates"][0]))
            ys.append(float(geometry["coordinates"][1]))
            continue
        for part in _parts(geometry):
            if len(part):
                x, y = part[:, 0], part[:, 1]
                lows.append((x.min(), y.min()))
                highs.append((x.max(), y.max()))
    if xs:
        lows.append((min(xs), min(ys)))
        highs.append((max(xs), max(ys)))
    if not lows:
        return None
    west, south = (min(low[i] for low in lows) for i in (0, 1))
    east, north = (max(high[i] for high in highs) for i in (0, 1))
    return [round(float(v), 6) for v in (west, south, east, north)]


def _parts(geometry: dict[str, Any]) -> Iterable[np.ndarray]:
    kind, coords = geometry["type"], geometry["coordinates"]
    if kind == "LineString":
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
    """`[lon, lat]` of a search or reverse-geocode result (the latter gives "lat,lon" text),
    or None when it has none usable."""
    place = result.get("position")
    if isinstance(place, dict):
        return position(place.get("lon"), place.get("lat"))
    if isinstance(place, str) and "," in place:
        lat, lon = place.split(",", 1)
        try:
            return position(float(lon), float(lat))
        except ValueError:
            return None
    return None


def result_summary(result: dict[str, Any]) -> dict[str, Any]:
    """What the model and the widget both show for one search result."""
    poi = obj(result.get("poi"))
    address = text(obj(result.get("address")).get("freeformAddress"))
    listed = poi.get("categories")
    categories = [c for c in listed if isinstance(c, str)] if isinstance(listed, list) else []
    kind = text(result.get("type"))
    summary: dict[str, Any] = {
        "name": text(poi.get("name")) or address or kind,
        "address": address,
        "category": categories[0] if categories else kind,
    }
    for src, dst, digits in (("score", "score", 3), ("dist", "distance_m", 1)):
        value = number(result.get(src))
        if value is not None:
            summary[dst] = round(value, digits)
    detour = number(result.get("detourTime"))
    if detour is not None:
        summary["detour_s"] = result["detourTime"]
    identifier = result.get("id")
    if isinstance(identifier, str) or integer(identifier) is not None:
        summary["id"] = identifier
    return summary


def search_results(
    results: Any, dropped: Dropped | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(answer items for the model, `result` features for the widget). Entries that are not
    objects are dropped; a result whose position is unusable is listed without a point."""
    dropped = dropped if dropped is not None else Dropped()
    items: list[dict[str, Any]] = []
    features: list[dict[str, Any]] = []
    for result in entries(results, "results", dropped):
        place = result_position(result)
        summary = result_summary(result)
        if place is None:
            if result.get("position") is not None:
                dropped.add("results.position")
            items.append(summary)
            continue
        items.append({**summary, "position": rounded(place)})
        features.append(point_feature(place, {"kind": "result", **summary}))
    return items, features


# --- routes ---------------------------------------------------------------------------------


def checked_route(
    route: Any, where: str, dropped: Dropped, *, as_parsed: bool = False
) -> dict[str, Any]:
    """`route` (TomTom's `routes[i]`, as parsed) with what the features and summaries use:
    leg points as float64 `[lon, lat]` arrays, and every index-bearing list (sections,
    progress, guidance instructions) holding only entries whose indices fall on the line.

    An empty leg adds no point, so it is dropped without moving any index; a malformed
    point would move every index after it, so it raises `BadAnswer`. Objects copied to the
    widget are `plain` copies, or (`as_parsed`: the route was parsed from JSON that
    `plain_json` found plain) the objects themselves."""
    if not isinstance(route, dict):
        raise BadAnswer(where, "expected a route object")
    legs_in = route.get("legs")
    if not isinstance(legs_in, list) or not legs_in:
        raise BadAnswer(f"{where}.legs", "expected a non-empty list of legs")
    copy = obj if as_parsed else _plain_object
    legs: list[dict[str, Any]] = []
    for i, leg in enumerate(legs_in):
        if not isinstance(leg, dict):
            raise BadAnswer(f"{where}.legs[{i}]", "expected a leg object")
        points = line_points(leg.get("points"), f"{where}.legs[{i}].points")
        if not len(points):
            dropped.add(f"{where}.legs")
            continue
        legs.append({"points": points, "summary": copy(leg.get("summary"))})
    count = sum(len(leg["points"]) for leg in legs)
    if count < 2:
        raise BadAnswer(f"{where}.legs", f"the route has {count} point(s), a line needs 2")
    guidance = obj(route.get("guidance"))
    return {
        "summary": copy(route.get("summary")),
        "legs": legs,
        "sections": indexed_entries(
            route.get("sections"), f"{where}.sections", dropped,
            ("startPointIndex", "endPointIndex"), count, as_parsed=as_parsed,
        ),
        "progress": indexed_entries(
            route.get("progress"), f"{where}.progress", dropped, ("pointIndex",), count,
            as_parsed=as_parsed,
        ),
        "guidance": {
            "instructions": indexed_entries(
                guidance.get("instructions"), f"{where}.guidance.instructions", dropped,
                ("pointIndex",), count, required=False, as_parsed=as_parsed,
            )
        },
    }  # fmt: skip


def _plain_object(value: Any) -> dict[str, Any]:
    """`value` as a JSON-safe copy (`plain`) if it is an object, else an empty one."""
    copied: dict[str, Any] = plain(obj(value))
    return copied


def route_line(route: dict[str, Any]) -> np.ndarray:
    """All leg points of a checked route, concatenated, as TomTom's indices count them."""
    arrays = [leg["points"] for leg in route["legs"]]
    return np.concatenate(arrays) if len(arrays) > 1 else arrays[0]


def route_feature(
    route: dict[str, Any], index: int, *, guidance: bool = True, **extra: Any
) -> dict[str, Any]:
    """One `route` feature of a checked route (`checked_route`).

    `guidance=False` leaves out the instructions and progress points: a composed map of
    many long routes shows no turn-by-turn, and their thousands of anchored vertices
    and messages alone would overflow the budget."""
    leg_props: list[dict[str, Any]] = []
    start = 0
    for leg in route["legs"]:
        end = start + len(leg["points"])
        leg_props.append(
            {"startPointIndex": start, "endPointIndex": end - 1, "summary": leg["summary"]}
        )
        start = end
    properties: dict[str, Any] = {
        "kind": "route",
        "route_index": index,
        "summary": route["summary"],
        "legs": leg_props,
        "sections": route["sections"],
    }
    if guidance:
        properties["guidance"] = {"instructions": route["guidance"]["instructions"]}
        properties["progress"] = route["progress"]
    properties.update({k: v for k, v in extra.items() if v is not None})
    return {
        "type": "Feature",
        "geometry": {"type": "LineString", "coordinates": route_line(route)},
        "properties": properties,
    }


def waypoint_features(
    locations: Sequence[Sequence[float]], labels: Sequence[str | None] | None = None
) -> list[dict[str, Any]]:
    last = len(locations) - 1
    features = []
    for i, place in enumerate(locations):
        given = labels[i] if labels and i < len(labels) else None
        default = "Start" if i == 0 else "End" if i == last else f"Stop {i}"
        features.append(
            point_feature(place, {"kind": "waypoint", "index": i, "label": given or default})
        )
    return features


def route_answer(route: dict[str, Any], index: int) -> dict[str, Any]:
    """The model's view of a checked route: figures, legs, section summaries, the first
    instructions."""
    answer: dict[str, Any] = {"route_index": index, **_trip(route["summary"])}
    if len(route["legs"]) > 1:
        answer["legs"] = [_trip(leg["summary"]) for leg in route["legs"]]
    sections = _sections_summary(route)
    if sections:
        answer["sections"] = sections
    messages = [m for i in route["guidance"]["instructions"] if (m := text(i.get("message")))]
    if messages:
        answer["instructions"] = messages[:_MAX_INSTRUCTIONS]
        if len(messages) > _MAX_INSTRUCTIONS:
            answer["instructions_omitted"] = len(messages) - _MAX_INSTRUCTIONS
    return answer


def _trip(summary: dict[str, Any]) -> dict[str, Any]:
    trip: dict[str, Any] = {}
    length = number(summary.get("lengthInMeters"))
    if length is not None:
        trip["length_km"] = round(length / 1000, 2)
    seconds = number(summary.get("travelTimeInSeconds"))
    if seconds is not None:
        trip["travel_time_s"] = summary["travelTimeInSeconds"]
        trip["travel_time"] = _duration(seconds)
    delay = number(summary.get("trafficDelayInSeconds"))
    if delay is not None:
        trip["traffic_delay_s"] = summary["trafficDelayInSeconds"]
    for src, dst in (("departureTime", "departure"), ("arrivalTime", "arrival")):
        if text(summary.get(src)) is not None:
            trip[dst] = summary[src]
    return trip


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def _sections_summary(route: dict[str, Any]) -> dict[str, Any]:
    """Per section type: how many, and how far (`_metres_at`)."""
    sections = [
        (kind, section)
        for section in route["sections"]
        if (kind := text(section.get("sectionType")) or "UNKNOWN") != "TRAVEL_MODE"
    ]
    ends = [section[key] for _, section in sections for key in _SECTION_ENDS]
    metres = _metres_at(route, ends)
    out: dict[str, Any] = {}
    for n, (kind, section) in enumerate(sections):
        entry = out.setdefault(kind, {"count": 0})
        entry["count"] += 1
        length = metres[2 * n + 1] - metres[2 * n]
        entry["length_km"] = round(entry.get("length_km", 0) + length / 1000, 2)
        country = text(section.get("countryCode"))
        if kind == "COUNTRY" and country:
            entry.setdefault("countries", []).append(country)
        if kind == "TRAFFIC":
            entry["delay_s"] = entry.get("delay_s", 0) + (
                number(section.get("delayInSeconds")) or 0
            )
            magnitude = integer(section.get("magnitudeOfDelay"))
            if magnitude is not None:
                entry["worst_magnitude"] = max(entry.get("worst_magnitude", 0), magnitude)
    return out


_SECTION_ENDS = ("startPointIndex", "endPointIndex")


def _metres_at(route: dict[str, Any], indices: list[int]) -> list[float]:
    """Metres along the route at each of the point `indices`, all at once.

    TomTom's own `progress` distances are used where they reach; past its last entry (or
    before its first, or without any) the line's great-circle length carries on from
    there, so a `progress` that ends early does not make later sections 0 km long. The
    line is measured only then."""
    if not indices:
        return []
    at = np.array(indices, dtype=np.int64)
    points: dict[int, float] = {}
    for entry in route["progress"]:
        metres = number(entry.get("distanceInMeters"))
        if metres is not None:
            points.setdefault(entry["pointIndex"], metres)
    if not points:
        along_all: list[float] = _cumulative_metres(route_line(route))[at].tolist()
        return along_all
    index = np.array(sorted(points), dtype=np.float64)
    metres = np.array([points[int(i)] for i in index], dtype=np.float64)
    first, last = int(index[0]), int(index[-1])
    found = np.interp(at, index, metres)
    before, after = at < first, at > last
    if before.any() or after.any():
        along = _cumulative_metres(route_line(route))
        found[before] = metres[0] - (along[first] - along[at[before]])
        found[after] = metres[-1] + (along[at[after]] - along[last])
    measured: list[float] = found.tolist()
    return measured


def _cumulative_metres(line: np.ndarray) -> np.ndarray:
    """Great-circle metres from the first vertex to each vertex of `line` (`[lon, lat]`)."""
    steps = haversine_m(line[:-1, 0], line[:-1, 1], line[1:, 0], line[1:, 1])
    return np.concatenate([[0.0], np.cumsum(steps)])


def area_points(points: Any, where: str, dropped: Dropped) -> np.ndarray:
    """An outline's `[{latitude, longitude}, ...]` (a reachable range's boundary) as a float64
    `(n, 2)` `[lon, lat]` array. Nothing indexes an outline's vertices, so a malformed one
    is dropped and counted rather than failing the answer."""
    kept = []
    for point in entries(points, where, dropped):
        place = position(point.get("longitude"), point.get("latitude"))
        if place is None:
            dropped.add(where)
        else:
            kept.append(place)
    return np.array(kept, dtype=np.float64).reshape(-1, 2)
