"""A GPS trace snapped to roads: split as Snap to Roads' limits require, joined back, and
read for the model and the view.

One Snap to Roads request takes at most 5,000 points and 100 km of road (Freemium and
pay-as-you-grow), consecutive points at most 6 km of road apart. So a trace is first cut
where two points lie farther apart than `GAP_M` (the road between them is unknown: each
side is snapped on its own, and the gap reported), then each part into requests of at
most `CHUNK_POINTS` points and `CHUNK_M` of straight-line distance (road is longer than
the line between fixes), each request starting at the point the one before ended at, so
the snapped road is continuous and no distance is counted twice.

The answers are joined: road elements in order (an element cut by a seam is one
element again), each point's projection, and the distances. The model reads the
distance driven, the share of points matched, the roads taken and, with timestamps, the
time spent over the speed limit and where; the view gets the raw trace and the snapped
road, whose sections carry each stretch's speed limit and road, and the stretches over
the limit. Pure; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.bodies import RawBody, loads, number, obj, text
from tomtom_mcp_apps.server.errors import BadAnswer
from tomtom_mcp_apps.server.jobs._result import Prepared, prepare
from tomtom_mcp_apps.server.jobs._traces import Trace, iso
from tomtom_mcp_apps.server.tool_names import SNAP_TO_ROADS

CHUNK_POINTS = 5000
"""Points in one request (TomTom's limit)."""
CHUNK_M = 75_000.0
"""Straight-line metres in one request: TomTom takes 100 km of road, which winds."""
GAP_M = 5_000.0
"""Consecutive points farther apart than this are not snapped as one road (TomTom takes
6 km of road between them)."""
FIELDS = (
    "{projectedPoints{type,geometry{type,coordinates},properties{routeIndex,snapResult}},"
    "route{type,geometry{type,coordinates},properties{id,speedLimits{value,unit,type},"
    "address{roadName,roadNumbers}}},distances{total,road,offRoad}}"
)
"""What the answers hold: each point's projection, each road element's line, speed
limit and names, and the distances."""
SPEEDING_MARGIN_KMH = 5.0
"""Over the limit means more than this over it: speeds from fixes a second apart carry a
few km/h of error."""
LONGEST_STEP_S = 120.0
"""Fixes farther apart in time than this give no speed (the device paused)."""
ROADS = 20
"""Roads the model reads by name, in the order first driven."""
STRETCHES = 10
"""Stretches over the limit the model reads, longest first."""
_MPH = 1.609344


@dataclass(frozen=True)
class Chunk:
    """Points `start` to `stop` (both included) of a trace, one request."""

    start: int
    stop: int
    part: int
    """The unbroken part of the trace it belongs to (parts are split at gaps)."""


def chunks_of(lonlat: np.ndarray) -> tuple[list[Chunk], list[int]]:
    """The requests a trace takes, and the points after which it is split by a gap."""
    steps = haversine_m(lonlat[:-1, 0], lonlat[:-1, 1], lonlat[1:, 0], lonlat[1:, 1])
    gaps = np.flatnonzero(steps > GAP_M).tolist()
    chunks: list[Chunk] = []
    starts = [0, *(g + 1 for g in gaps)]
    ends = [*gaps, len(lonlat) - 1]
    for part, (first, last) in enumerate(zip(starts, ends, strict=True)):
        if first == last:
            continue  # a lone fix between two gaps: nothing to follow
        along = np.concatenate(([0.0], np.cumsum(steps[first:last])))
        start = first
        while start < last:
            by_points = min(last, start + CHUNK_POINTS - 1)
            by_length = (
                first + int(np.searchsorted(along, along[start - first] + CHUNK_M, "right")) - 1
            )
            stop = max(start + 1, min(by_points, by_length))
            chunks.append(Chunk(start, stop, part))
            start = stop
    return chunks, gaps


def request_body(trace: Trace, chunk: Chunk) -> bytes:
    """The POST body of `chunk`: its points as GeoJSON Point features, with `timestamp`
    and `heading` properties where known."""
    features = []
    for i in range(chunk.start, chunk.stop + 1):
        properties: dict[str, Any] = {}
        if math.isfinite(trace.times[i]):
            properties["timestamp"] = iso(float(trace.times[i]))
        if math.isfinite(trace.headings[i]):
            properties["heading"] = round(float(trace.headings[i]), 1)
        lon, lat = float(trace.lonlat[i, 0]), float(trace.lonlat[i, 1])
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [round(lon, 7), round(lat, 7)]},
                "properties": properties,
            }
        )
    return orjson.dumps({"points": features})


@dataclass
class Element:
    """A road element of the joined answer."""

    id: str
    line: np.ndarray
    limit_kmh: float | None
    road: str
    start: int = 0
    """Its first vertex in its part's snapped line."""
    end: int = 0


@dataclass
class Joined:
    """The answers joined: elements per part, each point's element and projection."""

    parts: list[list[Element]] = field(default_factory=list)
    element_of: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    """Each point's element (index into `all_elements`), -1 when not matched."""
    projected: np.ndarray = field(default_factory=lambda: np.empty((0, 2)))
    all_elements: list[Element] = field(default_factory=list)
    road_m: float = 0.0
    off_road_m: float = 0.0
    dropped: int = 0


def join(trace: Trace, chunks: list[Chunk], answers: list[RawBody]) -> Joined:
    """TomTom's answers, one per chunk, joined into one snapped trace."""
    n = len(trace)
    joined = Joined(
        element_of=np.full(n, -1, dtype=np.int64), projected=np.array(trace.lonlat, copy=True)
    )
    part_of_element: list[int] = []
    for k, (chunk, raw) in enumerate(zip(chunks, answers, strict=True)):
        body = loads(raw)
        elements, dropped = _elements(body.get("route"), f"answers[{k}].route")
        joined.dropped += dropped
        projected = body.get("projectedPoints")
        size = chunk.stop - chunk.start + 1
        if not isinstance(projected, list) or len(projected) != size:
            got = len(projected) if isinstance(projected, list) else "none"
            raise BadAnswer(
                f"answers[{k}].projectedPoints", f"expected {size}, one per point, got {got}"
            )
        count = len(elements)
        merge = bool(
            elements
            and joined.all_elements
            and part_of_element[-1] == chunk.part
            and joined.all_elements[-1].id == elements[0].id
        )
        shift = len(joined.all_elements) - int(merge)  # local element j is global shift + j
        if merge:  # the seam cut one element in two: one element again
            last = joined.all_elements[-1]
            last.line = np.concatenate((last.line, elements[0].line[1:]))
            elements = elements[1:]
        joined.all_elements.extend(elements)
        part_of_element.extend([chunk.part] * len(elements))
        seam = k > 0 and chunks[k - 1].stop == chunk.start  # its first point: the last one's
        for i in range(chunk.start + int(seam), chunk.stop + 1):
            entry = obj(projected[i - chunk.start])
            properties = obj(entry.get("properties"))
            index = properties.get("routeIndex")
            if properties.get("snapResult") != "Matched":
                continue
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
                joined.dropped += 1
                continue
            joined.element_of[i] = shift + index
            coords = obj(entry.get("geometry")).get("coordinates")
            if isinstance(coords, list) and len(coords) >= 2:
                lon, lat = number(coords[0]), number(coords[1])
                if lon is not None and lat is not None and abs(lon) <= 180 and abs(lat) <= 90:
                    joined.projected[i] = (lon, lat)
        distances = obj(body.get("distances"))
        joined.road_m += number(distances.get("road")) or 0.0
        joined.off_road_m += number(distances.get("offRoad")) or 0.0
    joined.parts = _parts(joined.all_elements, part_of_element)
    return joined


def _elements(route: Any, where: str) -> tuple[list[Element], int]:
    if not isinstance(route, list):
        raise BadAnswer(where, "expected a list of road elements")
    found: list[Element] = []
    dropped = 0
    for entry in route:
        entry = obj(entry)
        coords = obj(entry.get("geometry")).get("coordinates")
        line = _line(coords)
        properties = obj(entry.get("properties"))
        if line is None:
            dropped += 1
            line = np.empty((0, 2))  # kept, so the indices of the rest hold
        address = obj(properties.get("address"))
        numbers = address.get("roadNumbers")
        numbers = [n for n in numbers if isinstance(n, str)] if isinstance(numbers, list) else []
        name = text(address.get("roadName")) or ""
        road = " ".join(p for p in (", ".join(numbers[:2]), name) if p) or "unnamed road"
        found.append(
            Element(
                id=text(properties.get("id")) or f"#{len(found)}",
                line=line,
                limit_kmh=_limit(properties.get("speedLimits")),
                road=road,
            )
        )
    return found, dropped


def _line(coords: Any) -> np.ndarray | None:
    if not isinstance(coords, list) or len(coords) < 2:
        return None
    try:
        line = np.array([[float(c[0]), float(c[1])] for c in coords], dtype=np.float64)
    except (TypeError, ValueError, IndexError):
        return None
    valid = np.isfinite(line).all() and (np.abs(line[:, 0]) <= 180).all()
    return line if valid and (np.abs(line[:, 1]) <= 90).all() else None


def _limit(value: Any) -> float | None:
    """A speed limit in km/h from TomTom's `speedLimits` (an object; a list, the Maximum
    one); None for none, or for a recommended speed, which is no limit."""
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, dict) and v.get("type") == "Maximum"), None)
    value = obj(value)
    speed = number(value.get("value"))
    if speed is None or speed <= 0 or value.get("type") not in (None, "Maximum"):
        return None
    return speed * _MPH if value.get("unit") == "mph" else speed


def _parts(elements: list[Element], part_of: list[int]) -> list[list[Element]]:
    parts: list[list[Element]] = []
    previous = None
    for element, part in zip(elements, part_of, strict=True):
        if part != previous:
            parts.append([])
            previous = part
        parts[-1].append(element)
    return parts


def snapped_line(elements: list[Element]) -> np.ndarray:
    """A part's elements as one line, each element's vertex range noted on it."""
    pieces: list[np.ndarray] = []
    count = 0
    for element in elements:
        line = element.line
        if len(line) == 0:
            element.start = element.end = max(0, count - 1)
            continue
        if pieces and np.allclose(pieces[-1][-1], line[0], atol=1e-7):
            line = line[1:]
            element.start = count - 1
        else:
            element.start = count
        pieces.append(line)
        count += len(line)
        element.end = count - 1
    return np.concatenate(pieces) if pieces else np.empty((0, 2))


@dataclass(frozen=True)
class Stretch:
    """A run of consecutive steps over the speed limit."""

    first: int
    last: int
    seconds: float
    metres: float
    max_kmh: float
    limit_kmh: float
    road: str


def speeding(trace: Trace, joined: Joined) -> tuple[list[Stretch], float, float]:
    """Stretches over the limit (by more than `SPEEDING_MARGIN_KMH`), the seconds spent
    over it, and the seconds of driving with a known speed and limit."""
    times, at = trace.times, joined.projected
    element_of = joined.element_of
    a, b = np.arange(len(trace) - 1), np.arange(1, len(trace))
    dt = times[b] - times[a]
    usable = (
        np.isfinite(dt)
        & (dt > 0)
        & (dt <= LONGEST_STEP_S)
        & (element_of[a] >= 0)
        & (element_of[b] >= 0)
    )
    metres = haversine_m(at[a, 0], at[a, 1], at[b, 0], at[b, 1])
    limits = np.array(
        [e.limit_kmh if e.limit_kmh is not None else np.nan for e in joined.all_elements] + [np.nan]
    )[element_of[a]]
    usable &= np.isfinite(limits)
    speed = np.where(usable, metres / np.where(dt > 0, dt, 1) * 3.6, 0.0)
    over = usable & (speed > limits + SPEEDING_MARGIN_KMH)
    stretches: list[Stretch] = []
    i = 0
    steps = np.flatnonzero(over).tolist()
    while i < len(steps):
        j = i
        while j + 1 < len(steps) and steps[j + 1] == steps[j] + 1:
            j += 1
        run = steps[i : j + 1]
        element = joined.all_elements[int(element_of[run[0]])]
        stretches.append(
            Stretch(
                first=run[0],
                last=run[-1] + 1,
                seconds=float(dt[run].sum()),
                metres=float(metres[run].sum()),
                max_kmh=float(speed[run].max()),
                limit_kmh=float(limits[run[0]]),
                road=element.road,
            )
        )
        i = j + 1
    return stretches, float(dt[over].sum()), float(dt[usable].sum())


def snap_result(
    trace: Trace,
    chunks: list[Chunk],
    gaps: list[int],
    answers: list[RawBody],
    show_ui: bool,
    budget: int,
) -> Prepared:
    """`tomtom-snap-to-roads`'s result from TomTom's answers, one per chunk."""
    joined = join(trace, chunks, answers)
    n = len(trace)
    matched = int((joined.element_of >= 0).sum())
    lines = [snapped_line(part) for part in joined.parts]
    answer: dict[str, Any] = {
        "points": n,
        "matched_share": round(matched / n, 3),
        "distance_km": round((joined.road_m + joined.off_road_m) / 1000, 2),
        "off_road_km": round(joined.off_road_m / 1000, 2),
        "tomtom_requests": len(chunks),
    }
    if trace.timed:
        finite = trace.times[np.isfinite(trace.times)]
        answer["started"] = iso(float(finite[0]))
        answer["duration_min"] = round(float(finite[-1] - finite[0]) / 60, 1)
    if gaps:
        answer["gaps"] = [
            {
                "after_point": g + 1,
                "km": round(float(haversine_m(*trace.lonlat[g], *trace.lonlat[g + 1])) / 1000, 1),
            }
            for g in gaps[:10]
        ]
        answer["note"] = (
            "the trace has gaps of more than 5 km between fixes; each side was snapped on its "
            "own and the distance does not count the gaps"
        )
    answer.update(_roads(joined))
    stretches: list[Stretch] = []
    if trace.timed:
        stretches, over_s, driven_s = speeding(trace, joined)
        answer["speeding"] = _speeding_answer(trace, joined, stretches, over_s, driven_s)
    if joined.dropped:
        answer["tomtom_entries_dropped"] = {"route": joined.dropped}
    data = _view_data(trace, joined, lines, stretches)
    data["summary"] = {k: answer[k] for k in ("distance_km", "matched_share")}
    return prepare(SNAP_TO_ROADS, answer, data, show_ui, budget)


def _roads(joined: Joined) -> dict[str, Any]:
    """Roads driven, in the order first driven, with the kilometres on each."""
    km: dict[str, float] = {}
    for element in joined.all_elements:
        if len(element.line) >= 2:
            line = element.line
            length = float(haversine_m(line[:-1, 0], line[:-1, 1], line[1:, 0], line[1:, 1]).sum())
            km[element.road] = km.get(element.road, 0.0) + length / 1000
    listed = [{"road": road, "km": round(k, 2)} for road, k in list(km.items())[:ROADS]]
    said: dict[str, Any] = {"roads": listed}
    if len(km) > ROADS:
        said["roads_more"] = len(km) - ROADS
    return said


def _speeding_answer(
    trace: Trace, joined: Joined, stretches: list[Stretch], over_s: float, driven_s: float
) -> dict[str, Any]:
    along = np.concatenate(
        ([0.0], np.cumsum(haversine_m(
            joined.projected[:-1, 0], joined.projected[:-1, 1],
            joined.projected[1:, 0], joined.projected[1:, 1],
        )))
    )  # fmt: skip
    worst = sorted(stretches, key=lambda s: -s.seconds)[:STRETCHES]
    said: dict[str, Any] = {
        "seconds_over_limit": round(over_s),
        "share_of_driving_time": round(over_s / driven_s, 4) if driven_s else 0.0,
        "margin_kmh": SPEEDING_MARGIN_KMH,
        "stretches": [
            {
                "road": s.road,
                "limit_kmh": round(s.limit_kmh),
                "max_kmh": round(s.max_kmh),
                "seconds": round(s.seconds),
                "from": iso(float(trace.times[s.first])),
                "km_from_start": round(float(along[s.first]) / 1000, 2),
            }
            for s in worst
        ],
    }
    if len(stretches) > STRETCHES:
        said["stretches_more"] = len(stretches) - STRETCHES
    return said


def _view_data(
    trace: Trace, joined: Joined, lines: list[np.ndarray], stretches: list[Stretch]
) -> dict[str, Any]:
    features: list[dict[str, Any]] = [
        {
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": trace.lonlat.tolist()},
            "properties": {"kind": "trace"},
        }
    ]
    element_part: dict[int, int] = {}
    for p, part in enumerate(joined.parts):
        for element in part:
            element_part[id(element)] = p
    over_by_part: dict[int, list[dict[str, Any]]] = {}
    for s in stretches:
        first = joined.all_elements[int(joined.element_of[s.first])]
        last = joined.all_elements[int(joined.element_of[s.last])]
        p = element_part[id(first)]
        if element_part[id(last)] != p:
            continue
        over_by_part.setdefault(p, []).append(
            {
                "startPointIndex": first.start,
                "endPointIndex": max(last.end, first.start + 1),
                "sectionType": "SPEEDING",
                "limit": round(s.limit_kmh),
                "max": round(s.max_kmh),
                "seconds": round(s.seconds),
                "road": s.road,
            }
        )
    for p, (part, line) in enumerate(zip(joined.parts, lines, strict=True)):
        if len(line) < 2:
            continue
        sections = _limit_sections(part, len(line)) + over_by_part.get(p, [])
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "LineString", "coordinates": line.tolist()},
                "properties": {"kind": "snapped", "part": p, "sections": sections},
            }
        )
    west, south = trace.lonlat.min(axis=0)
    east, north = trace.lonlat.max(axis=0)
    return {
        "type": "FeatureCollection",
        "features": features,
        "bbox": [round(float(v), 5) for v in (west, south, east, north)],
    }


def _limit_sections(elements: list[Element], vertices: int) -> list[dict[str, Any]]:
    """Runs of elements with the same road and speed limit, as sections of the line."""
    sections: list[dict[str, Any]] = []
    for element in elements:
        if len(element.line) == 0:
            continue
        limit = round(element.limit_kmh) if element.limit_kmh is not None else None
        if sections and sections[-1]["limit"] == limit and sections[-1]["road"] == element.road:
            sections[-1]["endPointIndex"] = element.end
            continue
        sections.append(
            {
                "startPointIndex": element.start,
                "endPointIndex": element.end,
                "sectionType": "SPEED_LIMIT",
                "limit": limit,
                "road": element.road,
            }
        )
    for section in sections:
        section["endPointIndex"] = min(
            max(section["endPointIndex"], section["startPointIndex"] + 1), vertices - 1
        )
    return sections
