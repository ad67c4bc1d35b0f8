"""GPS traces from what callers have: points, GeoJSON or GPX, as arrays in time order.

A trace is its positions ((n, 2) [lon, lat]), each point's time (unix seconds, NaN when
not given) and heading (degrees, NaN when not given). Read from:

- points: `{position, timestamp?, heading?}` objects, already checked by the tool's
  input types;
- GeoJSON: Point features in order (time in a `time` or `timestamp` property, heading
  in `heading` or `course`), or LineStrings and MultiLineStrings, whose times may be in
  `properties.coordTimes` or `properties.coordinateProperties.times` (as GPX converters
  write them);
- GPX: every `trkpt` (else `rtept`) in document order, its `time` and `course`. A
  document type declaration is refused unread: a GPX file has none, and entities are
  how XML is made to explode.

Refused in plain words: fewer than two points, more than `MAX_POINTS`, positions out
of range, times that cannot be read or that go back. Pure; no I/O.
"""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.server.errors import JobError

MAX_POINTS = 100_000
"""Points one call snaps: 20 requests to TomTom or more, a few at a time."""


@dataclass(frozen=True)
class Trace:
    lonlat: np.ndarray
    times: np.ndarray
    headings: np.ndarray

    def __len__(self) -> int:
        return int(self.lonlat.shape[0])

    @property
    def timed(self) -> bool:
        return bool(np.isfinite(self.times).any())


def trace_of_points(points: list[tuple[float, float, str | float | None, float | None]]) -> Trace:
    """A trace from (lon, lat, timestamp, heading) tuples, the tool's checked points."""
    return _checked(
        [(lon, lat) for lon, lat, _, _ in points],
        [_time(t, i) for i, (_, _, t, _) in enumerate(points)],
        [math.nan if h is None else float(h) for *_, h in points],
    )


def trace_of_text(body: bytes, where: str) -> Trace:
    """A trace from a GPX or GeoJSON document (`where` names it in refusals)."""
    start = body.lstrip()[:1]
    if start == b"<":
        return _gpx(body, where)
    if start in (b"{", b"["):
        return _geojson(body, where)
    raise JobError(
        f"{where} is neither GPX (XML starting with '<') nor GeoJSON (JSON starting with "
        "'{'): give a GPX track, GeoJSON points or a GeoJSON line."
    )


def _gpx(body: bytes, where: str) -> Trace:
    head = body[:4096].upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in body.upper():
        raise JobError(f"{where}: GPX with a document type declaration is refused.")
    found: dict[str, tuple[list[tuple[float, float]], list[float], list[float]]] = {
        "trkpt": ([], [], []),
        "rtept": ([], [], []),
    }
    try:
        for _, element in ET.iterparse(io.BytesIO(body), events=("end",)):
            tag = element.tag.rsplit("}", 1)[-1]
            if tag not in found:
                continue
            positions, times, headings = found[tag]
            i = len(positions)
            try:
                lon, lat = float(element.get("lon") or "x"), float(element.get("lat") or "x")
            except ValueError:
                raise JobError(
                    f"{where}: point {i + 1} has no numeric lat and lon attributes."
                ) from None
            positions.append((lon, lat))
            times.append(_time(_child(element, "time"), i))
            headings.append(_number(_child(element, "course"), i, "course"))
            element.clear()
    except ET.ParseError as exc:
        raise JobError(f"{where} is not well-formed GPX: {exc}.") from None
    positions, times, headings = found["trkpt"] if found["trkpt"][0] else found["rtept"]
    return _checked(positions, times, headings)


def _child(element: ET.Element, name: str) -> str | None:
    for child in element:
        if child.tag.rsplit("}", 1)[-1] == name:
            return (child.text or "").strip() or None
    return None


def _geojson(body: bytes, where: str) -> Trace:
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise JobError(f"{where} is not valid JSON: {exc}.") from None
    features = _features(doc)
    positions: list[tuple[float, float]] = []
    times: list[float] = []
    headings: list[float] = []
    for feature in features:
        geometry = feature.get("geometry") if isinstance(feature, dict) else None
        properties = feature.get("properties") if isinstance(feature, dict) else None
        properties = properties if isinstance(properties, dict) else {}
        kind = geometry.get("type") if isinstance(geometry, dict) else None
        coords = geometry.get("coordinates") if isinstance(geometry, dict) else None
        if kind == "Point":
            i = len(positions)
            positions.append(_pair(coords, i))
            times.append(_time(properties.get("time", properties.get("timestamp")), i))
            heading = properties.get("heading", properties.get("course"))
            headings.append(_number(heading, i, "heading"))
        elif kind in ("LineString", "MultiLineString"):
            lines = [coords] if kind == "LineString" else coords
            stamps = _line_times(properties)
            flat = [c for line in lines or () for c in (line if isinstance(line, list) else ())]
            for k, c in enumerate(flat):
                i = len(positions)
                positions.append(_pair(c, i))
                times.append(_time(stamps[k] if k < len(stamps) else None, i))
                headings.append(math.nan)
    if not positions:
        raise JobError(
            f"{where} holds no trace: give Point features in order, or a LineString "
            "(a GPX track converted to GeoJSON is one)."
        )
    return _checked(positions, times, headings)


def _features(doc: Any) -> list[Any]:
    if isinstance(doc, list):
        return doc
    if not isinstance(doc, dict):
        return []
    if doc.get("type") == "FeatureCollection" and isinstance(doc.get("features"), list):
        return doc["features"]
    if doc.get("type") == "Feature":
        return [doc]
    if doc.get("type") in ("Point", "LineString", "MultiLineString"):
        return [{"type": "Feature", "geometry": doc, "properties": {}}]
    return []


def _line_times(properties: dict[str, Any]) -> list[Any]:
    stamps = properties.get("coordTimes")
    if stamps is None:
        nested = properties.get("coordinateProperties")
        stamps = nested.get("times") if isinstance(nested, dict) else None
    if isinstance(stamps, list) and stamps and isinstance(stamps[0], list):
        stamps = [t for part in stamps for t in part]
    return stamps if isinstance(stamps, list) else []


def _pair(value: Any, i: int) -> tuple[float, float]:
    if (
        not isinstance(value, list | tuple)
        or len(value) < 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value[:2])
    ):
        raise JobError(f"trace point {i + 1} is not a [longitude, latitude] position.")
    return float(value[0]), float(value[1])


def _number(value: Any, i: int, what: str) -> float:
    if value is None or value == "":
        return math.nan
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise JobError(
            f"trace point {i + 1}: {what} {str(value)[:30]!r} is not a number."
        ) from None
    if not (math.isfinite(number) and 0 <= number <= 360):
        raise JobError(f"trace point {i + 1}: {what} {number:g} is outside 0-360 degrees.")
    return number


def _time(value: Any, i: int) -> float:
    """Unix seconds from an ISO 8601 text or a number of seconds (milliseconds when it is
    too large to be seconds); NaN when not given."""
    if value is None or value == "":
        return math.nan
    if isinstance(value, bool):
        raise JobError(f"trace point {i + 1}: timestamp {value!r} is not a time.")
    if isinstance(value, int | float):
        seconds = float(value) / (1000.0 if abs(value) > 1e11 else 1.0)
        if not math.isfinite(seconds):
            raise JobError(f"trace point {i + 1}: timestamp {value!r} is not a time.")
        return seconds
    try:
        moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        raise JobError(
            f"trace point {i + 1}: timestamp {str(value)[:40]!r} is not ISO 8601 (such as "
            "2024-05-01T08:30:00Z) nor seconds since 1970."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _checked(
    positions: Iterable[tuple[float, float]], times: list[float], headings: list[float]
) -> Trace:
    lonlat = np.array(list(positions), dtype=np.float64).reshape(-1, 2)
    n = lonlat.shape[0]
    if n < 2:
        raise JobError(f"a trace needs at least 2 points to follow a road; it has {n}.")
    if n > MAX_POINTS:
        raise JobError(
            f"the trace has {n:,} points; this server snaps at most {MAX_POINTS:,} in one "
            "call: split it (by day, or by trip) and snap each part."
        )
    bad = np.flatnonzero(
        ~(np.isfinite(lonlat).all(axis=1))
        | (np.abs(lonlat[:, 0]) > 180)
        | (np.abs(lonlat[:, 1]) > 90)
    )
    if bad.size:
        i = int(bad[0])
        raise JobError(
            f"trace point {i + 1} is outside [-180, 180] x [-90, 90] (positions are "
            "[longitude, latitude])."
        )
    stamps = np.array(times, dtype=np.float64)
    known = np.flatnonzero(np.isfinite(stamps))
    back = np.flatnonzero(np.diff(stamps[known]) < 0)
    if back.size:
        a, b = int(known[back[0]]), int(known[back[0] + 1])
        raise JobError(
            f"timestamps out of order: point {b + 1} ({iso(stamps[b])}) comes before point "
            f"{a + 1} ({iso(stamps[a])}); give the points in the order they were recorded."
        )
    return Trace(lonlat, stamps, np.array(headings, dtype=np.float64))


def iso(seconds: float) -> str:
    """Unix seconds as ISO 8601 UTC, to the second (TomTom's and the model's form)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
