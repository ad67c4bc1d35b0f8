"""incidentDetails (Traffic API v5) answers: incidents fixed to a global grid.

Incidents are seeded per 0.1-degree cell, not per request, so overlapping boxes agree on
what they share, as live data would; busier near the gazetteer's cities. `fields` is
honoured as TomTom does, its default included.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from tomtom_mcp_apps.fitting.geo import M_PER_DEG_LAT_EQUATOR, M_PER_DEG_LON_EQUATOR, haversine_m
from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _geo
from tomtom_mcp_apps.server.offline._query import Query, parse_bbox

MAX_AREA_KM2 = 10_000.0
DEFAULT_FIELDS = "{incidents{type,geometry{type,coordinates},properties{iconCategory}}}"
_CELL = 0.1
_KM_PER_DEG_LON = M_PER_DEG_LON_EQUATOR / 1000
_KM_PER_DEG_LAT = M_PER_DEG_LAT_EQUATOR / 1000
CITY_POPULATION = 500_000
"""Incidents gather around places this large (Natural Earth's `POP_MAX`)."""
# iconCategory -> (weight, event code, description, delay magnitudes)
_KINDS = {
    6: (0.40, 101, "Stationary traffic", (1, 2, 3)),
    9: (0.18, 701, "Roadworks", (0, 1, 2)),
    1: (0.10, 201, "Accident", (2, 3)),
    7: (0.10, 500, "Lane closed", (1, 2)),
    8: (0.05, 401, "Closed", (4,)),
    14: (0.07, 211, "Broken down vehicle", (1, 2)),
    3: (0.05, 904, "Dangerous situation", (0, 1)),
    5: (0.05, 1036, "Icy road", (0, 1)),
}
_ICONS = list(_KINDS)
_WEIGHTS = np.array([k[0] for k in _KINDS.values()]) / sum(k[0] for k in _KINDS.values())


def incident_details(q: Query) -> dict[str, Any]:
    w, s, e, n = parse_bbox(q.text("bbox"))
    area = area_km2(w, s, e, n)
    if area > MAX_AREA_KM2:
        raise OfflineBadRequest(
            f"The bounding box covers {area:,.0f} km², above the limit of "
            f"{MAX_AREA_KM2:,.0f} km²: request a smaller area."
        )
    fields = parse_fields(q.text("fields", DEFAULT_FIELDS) or DEFAULT_FIELDS)
    categories = set(q.integers("categoryFilter"))
    time_filter = set(q.choices("timeValidityFilter", ("present", "future")) or ["present"])
    q.language()
    incidents = []
    for i in range(math.floor(w / _CELL), math.floor(e / _CELL) + 1):
        for j in range(math.floor(s / _CELL), math.floor(n / _CELL) + 1):
            for incident in _cell(i, j, q.now):
                p = incident["properties"]
                if categories and p["iconCategory"] not in categories:
                    continue
                if p["timeValidity"] not in time_filter:
                    continue
                if _intersects(incident["geometry"]["coordinates"], (w, s, e, n)):
                    incidents.append(incident)
    return project({"incidents": incidents}, fields)


def area_km2(w: float, s: float, e: float, n: float) -> float:
    mid = math.radians((s + n) / 2)
    return (e - w) * _KM_PER_DEG_LON * math.cos(mid) * (n - s) * _KM_PER_DEG_LAT


def _cell(i: int, j: int, now: datetime) -> list[dict[str, Any]]:
    """The incidents of one 0.1° cell: where and what from its seed, when relative to `now`."""
    rng = _geo.rng_for("traffic", i, j)
    lon0, lat0 = i * _CELL, j * _CELL
    city, far = _geo.nearest_place(lon0 + _CELL / 2, lat0 + _CELL / 2, CITY_POPULATION)
    count = int(rng.poisson(0.3 + 4.0 * math.exp(-far / 20_000.0)))
    out = []
    for k in range(count):
        lon = lon0 + float(rng.uniform(0, _CELL))
        lat = lat0 + float(rng.uniform(0, _CELL))
        icon = int(rng.choice(_ICONS, p=_WEIGHTS))
        _w, code, description, magnitudes = _KINDS[icon]
        magnitude = int(rng.choice(magnitudes))
        country = _geo.country_of(lon, lat)
        if icon in (6, 9, 7, 8) or rng.random() < 0.5:
            coordinates = _road(rng, lon, lat)
            geometry = {"type": "LineString", "coordinates": coordinates}
        else:
            coordinates = [[round(lon, 6), round(lat, 6)]]
            geometry = {"type": "Point", "coordinates": coordinates[0]}
        length = _length(coordinates)
        start = now - timedelta(minutes=int(rng.integers(5, 600)))
        future = rng.random() < 0.1
        if future:
            start = now + timedelta(hours=int(rng.integers(2, 72)))
        end = start + timedelta(minutes=int(rng.integers(30, 1440)))
        speed = {0: 40.0, 1: 30.0, 2: 15.0, 3: 6.0, 4: 0.0}[magnitude]
        delay = None if magnitude == 4 else round(length / (speed / 3.6) - length / (50 / 3.6))
        out.append({
            "type": "Feature",
            "properties": {
                "id": f"offline-{i}-{j}-{k}",
                "iconCategory": icon,
                "magnitudeOfDelay": magnitude,
                "events": [{"description": description, "code": code, "iconCategory": icon}],
                "startTime": start.isoformat().replace("+00:00", "Z"),
                "endTime": end.isoformat().replace("+00:00", "Z"),
                "from": _geo.street_name(country, rng),
                "to": f"{_geo.street_name(country, rng)} ({city.name})"
                if far < 30_000 else _geo.street_name(country, rng),
                "length": round(length, 1),
                "delay": max(delay, 0) if delay is not None else None,
                "roadNumbers": [f"{'A' if rng.random() < 0.5 else 'N'}{int(rng.integers(1, 99))}"],
                "timeValidity": "future" if future else "present",
                "probabilityOfOccurrence": "certain",
                "numberOfReports": None,
                "lastReportTime": (min(start, now)).isoformat().replace("+00:00", "Z"),
            },
            "geometry": geometry,
        })  # fmt: skip
    return out


def _road(rng: np.random.Generator, lon: float, lat: float) -> list[list[float]]:
    """A wiggly stretch of road, 200 m to 5 km, a vertex every 40 to 150 m."""
    target = float(rng.uniform(200, 5_000))
    heading = float(rng.uniform(0, 2 * math.pi))
    points = [[round(lon, 6), round(lat, 6)]]
    done = 0.0
    while done < target:
        step = float(rng.uniform(40, 150))
        heading += float(rng.normal(0, 0.15))
        lon, lat = _geo.offset(lon, lat, step * math.cos(heading), step * math.sin(heading))
        points.append([round(lon, 6), round(lat, 6)])
        done += step
    return points


def _length(coordinates: list[list[float]]) -> float:
    if len(coordinates) < 2:
        return 0.0
    a = np.asarray(coordinates)
    return float(haversine_m(a[:-1, 0], a[:-1, 1], a[1:, 0], a[1:, 1]).sum())


def _intersects(coordinates: Any, box: tuple[float, float, float, float]) -> bool:
    a = np.asarray(coordinates, dtype=np.float64).reshape(-1, 2)
    w, s, e, n = box
    return bool(a[:, 0].min() <= e and a[:, 0].max() >= w and a[:, 1].min() <= n
                and a[:, 1].max() >= s)  # fmt: skip


Fields = dict[str, "Fields | None"]


def parse_fields(text: str) -> Fields:
    """TomTom's `fields` selection, e.g. `{incidents{type,properties{id,events{code}}}}`."""
    pos = 0

    def expect(ch: str) -> None:
        nonlocal pos
        if pos >= len(text) or text[pos] != ch:
            raise OfflineBadRequest(
                f"Invalid value for 'fields': expected {ch!r} at position {pos} of {text!r}."
            )
        pos += 1

    def block() -> Fields:
        nonlocal pos
        expect("{")
        out: Fields = {}
        while True:
            start = pos
            while pos < len(text) and (text[pos].isalnum() or text[pos] == "_"):
                pos += 1
            name = text[start:pos]
            if not name:
                raise OfflineBadRequest(
                    f"Invalid value for 'fields': a field name is missing at position {pos}."
                )
            out[name] = block() if pos < len(text) and text[pos] == "{" else None
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            expect("}")
            return out

    text = "".join(text.split())
    fields = block()
    if pos != len(text):
        raise OfflineBadRequest(
            f"Invalid value for 'fields': unexpected text after position {pos}."
        )
    return fields


def project(value: Any, fields: Fields | None) -> Any:
    """Keep only the selected keys, applying a selection to every item of a list."""
    if fields is None:
        return value
    if isinstance(value, list):
        return [project(v, fields) for v in value]
    if isinstance(value, dict):
        return {k: project(value[k], sub) for k, sub in fields.items() if k in value}
    return value
