"""calculateRoute answers: road-like legs with TomTom's sections, guidance and progress.

Everything derives from the geometry (motorways from `roads.py`'s sparse stretches,
countries from the box lookup, times from per-segment speeds), so indices, lengths and
times agree. Indices count all legs' points concatenated, each leg keeping both ends, as
TomTom indexes them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _geo
from tomtom_mcp_apps.server.offline._errors import ROUTING_FORMAT_VERSION
from tomtom_mcp_apps.server.offline._query import Query, parse_latlon
from tomtom_mcp_apps.server.offline.roads import road_like_legs

TRAVEL_MODES = ("car", "truck", "taxi", "bus", "van", "motorcycle", "bicycle", "pedestrian")
ROUTE_TYPES = ("fastest", "shortest", "short", "eco", "thrilling")
AVOIDS = (
    "tollRoads", "motorways", "ferries", "unpavedRoads", "carpools", "alreadyUsedRoads",
    "borderCrossings", "tunnels", "carTrains", "lowEmissionZones",
)  # fmt: skip
# TomTom's sectionType values -> the section type reported (None: accepted, none emulated).
SECTION_TYPES: dict[str, str | None] = {
    "travelMode": "TRAVEL_MODE", "traffic": "TRAFFIC", "toll": "TOLL_ROAD",
    "tollRoad": "TOLL_ROAD", "country": "COUNTRY", "motorway": "MOTORWAY", "tunnel": "TUNNEL",
    "carTrain": None, "ferry": None, "pedestrian": None, "tollVignette": None, "carpool": None,
    "urban": None, "unpaved": None, "lowEmissionZone": None, "speedLimit": None,
    "roadShields": None, "handsFreeDriving": None,
}  # fmt: skip
_SECTION_ORDER = {"TRAVEL_MODE": 0, "COUNTRY": 1, "MOTORWAY": 2, "TOLL_ROAD": 3, "TUNNEL": 4,
                  "TRAFFIC": 5}  # fmt: skip
_MAX_WAYPOINTS = 150
_MAX_ALTERNATIVES = 5
# Bounds one answer to about 400,000 points (20 MB): beyond, TomTom finds no road either.
_MAX_CROW_KM = 20_000
# Toll share of motorway stretches per country (the rest is free or vignette).
_TOLL_SHARE = {"FRA": 1.0, "PRT": 1.0, "ITA": 1.0, "HRV": 1.0, "GRC": 1.0, "SRB": 1.0,
               "ESP": 0.5, "POL": 0.5, "NOR": 0.6}  # fmt: skip
_MOTORWAY_PREFIX = {"DEU": "A", "FRA": "A", "ESP": "A-", "PRT": "A", "POL": "A", "NLD": "A",
                    "ITA": "A", "AUT": "A", "CHE": "A", "GBR": "M"}  # fmt: skip
_MOTORWAY_SPACING_M = 75.0  # rolling mean vertex spacing above this is a motorway stretch
_LEFT_HAND = {"GBR", "IRL"}


@dataclass(frozen=True)
class RouteRequest:
    waypoints: tuple[tuple[float, float], ...]  # (lon, lat)
    travel_mode: str
    route_type: str
    traffic: bool
    avoid: frozenset[str]
    sections: frozenset[str]  # reported section types, TRAVEL_MODE always among them
    instructions: str | None
    extended: tuple[str, ...]
    alternatives: int
    departure: datetime | None  # exactly one of departure and arrival is set
    arrival: datetime | None
    max_speed_kmh: float | None = None
    best_order: bool = False


LOAD_TYPES = (
    *(f"USHazmatClass{i}" for i in range(1, 10)),
    "otherHazmatExplosive", "otherHazmatGeneral", "otherHazmatHarmfulToWater",
)  # fmt: skip


def _vehicle(q: Query) -> float | None:
    """Validates the truck profile as TomTom does (each parameter's type and range) and
    returns the top speed; the rest shapes no offline geometry."""
    for name in ("vehicleLength", "vehicleWidth", "vehicleHeight"):
        q.number(name, low=0, high=1_000)
    for name in ("vehicleWeight", "vehicleAxleWeight"):
        q.integer(name, low=0, high=1_000_000)
    q.integer("vehicleNumberOfAxles", low=0, high=100)
    q.flag("vehicleCommercial", False)
    q.choices("vehicleLoadType", LOAD_TYPES)
    q.choice("vehicleAdrTunnelRestrictionCode", ("B", "C", "D", "E"), "")
    return q.integer("vehicleMaxSpeed", low=0, high=250, default=0) or None


def parse_request(locations: str, q: Query, body: bytes) -> RouteRequest:
    """Validate everything first: a bad request is refused before any geometry is made."""
    parts = locations.split(":")
    if len(parts) < 2 or any(not p.strip() for p in parts):
        raise OfflineBadRequest(
            f"Invalid locations {locations!r}: a route needs at least 2 locations, "
            "given as lat,lon:lat,lon[:...]."
        )
    if len(parts) > _MAX_WAYPOINTS:
        raise OfflineBadRequest(f"Too many locations ({len(parts)}); at most {_MAX_WAYPOINTS}.")
    waypoints = tuple(parse_latlon(p, f"location {i}") for i, p in enumerate(parts))
    lon, lat = np.array(waypoints).T
    crow_km = float(haversine_m(lon[:-1], lat[:-1], lon[1:], lat[1:]).sum()) / 1000
    if crow_km > _MAX_CROW_KM:
        raise OfflineBadRequest(
            f"Engine error while executing route request: NO_ROUTE_FOUND (the locations are "
            f"{crow_km:,.0f} km apart as the crow flies; the offline upstream routes up to "
            f"{_MAX_CROW_KM:,} km).",
            code="NO_ROUTE_FOUND",
        )
    if body.strip():
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise OfflineBadRequest(f"The request body is not valid JSON ({exc}).") from None
        if not isinstance(doc, dict):
            raise OfflineBadRequest("The request body must be a JSON object.")
    requested = (SECTION_TYPES[s] for s in q.choices("sectionType", tuple(SECTION_TYPES)))
    sections = frozenset(s for s in requested if s is not None) | {"TRAVEL_MODE"}
    instructions = q.raw("instructionsType")
    if instructions is not None and instructions not in ("coded", "text", "tagged"):
        raise OfflineBadRequest(
            f"Invalid value for 'instructionsType': {instructions!r}; allowed: coded, text, tagged."
        )
    q.language()
    depart_at, arrive_at = q.text("departAt"), q.text("arriveAt")
    if depart_at and arrive_at:
        raise OfflineBadRequest("departAt and arriveAt cannot be used together.")
    return RouteRequest(
        waypoints=waypoints,
        travel_mode=q.choice("travelMode", TRAVEL_MODES, "car"),
        route_type=q.choice("routeType", ROUTE_TYPES, "fastest"),
        traffic=q.flag("traffic", True),
        avoid=frozenset(q.choices("avoid", AVOIDS)),
        sections=sections,
        instructions=instructions,
        extended=tuple(q.choices("extendedRouteRepresentation", ("distance", "travelTime"))),
        alternatives=q.integer("maxAlternatives", low=0, high=_MAX_ALTERNATIVES, default=0) or 0,
        departure=None if arrive_at else _instant(depart_at or "now", "departAt", q.now),
        arrival=_instant(arrive_at, "arriveAt", q.now) if arrive_at else None,
        max_speed_kmh=_vehicle(q),
        best_order=q.flag("computeBestOrder", False),
    )


def calculate_route(req: RouteRequest) -> bytes:
    """The whole response body; points are pre-serialized fragments (the bulk of the bytes).
    With `computeBestOrder` the stops are visited nearest first and the body says how,
    in TomTom's `optimizedWaypoints` (indices of the intermediate stops only)."""
    body: dict[str, Any] = {"formatVersion": ROUTING_FORMAT_VERSION}
    if req.best_order and len(req.waypoints) > 2:
        order = _nearest_first(req.waypoints)
        body["optimizedWaypoints"] = [
            {"providedIndex": given - 1, "optimizedIndex": at - 1}
            for at, given in sorted(
                ((at, given) for at, given in enumerate(order) if 0 < given < len(order) - 1),
                key=lambda pair: pair[1],
            )
        ]
        req = replace(req, waypoints=tuple(req.waypoints[i] for i in order))
    body["routes"] = [_route(req, alt) for alt in range(req.alternatives + 1)]
    return orjson.dumps(body)


def _nearest_first(waypoints: tuple[tuple[float, float], ...]) -> list[int]:
    """Origin, then always the nearest unvisited intermediate stop, then the destination."""
    left = list(range(1, len(waypoints) - 1))
    order = [0]
    while left:
        here = waypoints[order[-1]]
        nearest = min(left, key=lambda i: float(haversine_m(*here, *waypoints[i])))
        order.append(nearest)
        left.remove(nearest)
    return [*order, len(waypoints) - 1]


class _Geometry:
    """Per-vertex and per-segment arrays of one route, all legs concatenated."""

    def __init__(self, legs: list[np.ndarray]) -> None:
        self.legs = [np.round(leg, 5) for leg in legs]
        self.points = np.concatenate(self.legs)
        self.leg_start = np.cumsum([0] + [len(leg) for leg in self.legs[:-1]])
        self.leg_end = self.leg_start + np.array([len(leg) for leg in self.legs]) - 1
        lon, lat = self.points[:, 0], self.points[:, 1]
        self.seg_len = haversine_m(lon[:-1], lat[:-1], lon[1:], lat[1:])
        self.cum = np.concatenate([[0.0], np.cumsum(self.seg_len)])
        self.countries = _geo.countries_of(lon, lat)

    @property
    def n(self) -> int:
        return len(self.points)


def route_seed(req: RouteRequest) -> int:
    return _geo.seed_of("route", tuple((round(x, 6), round(y, 6)) for x, y in req.waypoints))


def route_legs(req: RouteRequest, alternative: int = 0) -> list[np.ndarray]:
    """The road-like legs of a route (an alternative is another seed's road)."""
    return road_like_legs(req.waypoints, seed=route_seed(req) + alternative)


def leg_speeds(req: RouteRequest, legs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(segment lengths in metres, free-flow speeds in m/s) of the legs concatenated, as
    the route's travel times use them (EV consumption is computed from these)."""
    geo = _Geometry(legs)
    fast = req.travel_mode not in ("bicycle", "pedestrian")
    motorway = _motorway_runs(geo) if fast and "motorways" not in req.avoid else []
    return geo.seg_len, _free_speed(req, geo, motorway)


def route_from(req: RouteRequest, legs: list[np.ndarray], alternative: int = 0
               ) -> dict[str, Any]:  # fmt: skip
    """One route object over the given legs."""
    rng = np.random.default_rng([route_seed(req), alternative])
    return _route_on(req, _Geometry(legs), rng)


def _route(req: RouteRequest, alternative: int) -> dict[str, Any]:
    return route_from(req, route_legs(req, alternative), alternative)


def _route_on(req: RouteRequest, geo: _Geometry, rng: np.random.Generator) -> dict[str, Any]:
    total_km = geo.cum[-1] / 1000.0

    fast = req.travel_mode not in ("bicycle", "pedestrian")
    motorway = _motorway_runs(geo) if fast and "motorways" not in req.avoid else []
    free_speed = _free_speed(req, geo, motorway)
    tunnels = (
        []
        if "tunnels" in req.avoid
        else _pick_stretches(
            geo, rng, count=int(total_km / 120 + rng.random()), low_m=150, high_m=2_500
        )
    )
    jams = _jams(geo, rng, total_km) if req.traffic else []
    speed = free_speed.copy()
    for s, e, _mag, kmh in jams:
        speed[s:e] = np.minimum(speed[s:e], kmh / 3.6)
    seg_time = geo.seg_len / speed
    seg_delay = seg_time - geo.seg_len / free_speed
    cum_time = np.concatenate([[0.0], np.cumsum(seg_time)])
    if req.arrival is not None:
        start = req.arrival - timedelta(seconds=round(float(cum_time[-1])))
    else:
        assert req.departure is not None
        start = req.departure
    jam_mask = np.zeros(geo.n - 1, dtype=bool)
    for s, e, _mag, _kmh in jams:
        jam_mask[s:e] = True

    sections = _sections(req, geo, rng, motorway, tunnels, jams, seg_delay)
    legs = []
    for j, leg in enumerate(geo.legs):
        a, b = int(geo.leg_start[j]), int(geo.leg_end[j])
        summary = _summary(start, geo, cum_time, seg_delay, jam_mask, a, b)
        legs.append({"summary": summary, "points": orjson.Fragment(_points_json(leg))})
    route: dict[str, Any] = {
        "summary": _summary(start, geo, cum_time, seg_delay, jam_mask, 0, geo.n - 1),
        "legs": legs,
        "sections": sections,
    }
    if req.instructions is not None:
        route["guidance"] = _guidance(req, geo, rng, cum_time, motorway)
    if req.extended:
        route["progress"] = _progress(req, geo, cum_time, speed)
    return route


def _points_json(leg: np.ndarray) -> bytes:
    """`[{"latitude":..,"longitude":..}, ...]` from one vectorized dump and three byte
    replacements (not a list of dicts: far cheaper), same bytes."""
    flat = orjson.dumps(np.ascontiguousarray(leg[:, ::-1]), option=orjson.OPT_SERIALIZE_NUMPY)
    body = flat[2:-2].replace(b"],[", b"|").replace(b",", b',"longitude":')
    return b'[{"latitude":' + body.replace(b"|", b'},{"latitude":') + b"}]"


def _motorway_runs(geo: _Geometry) -> list[tuple[int, int]]:
    """Vertex ranges [start, end] of motorway stretches: sparse spacing, gaps under 300 m
    bridged, stretches under 2 km dropped."""
    if geo.n < 8:
        return []
    window = 7
    csum = np.concatenate([[0.0], np.cumsum(geo.seg_len)])
    mean = (csum[window:] - csum[:-window]) / window
    pad = window // 2
    mean = np.concatenate(
        [np.full(pad, mean[0]), mean, np.full(geo.n - 1 - len(mean) - pad, mean[-1])]
    )
    runs = _runs(mean > _MOTORWAY_SPACING_M)
    merged: list[list[int]] = []
    for s, e in runs:
        if merged and geo.cum[s] - geo.cum[merged[-1][1]] < 300.0:
            merged[-1][1] = e
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged if geo.cum[e] - geo.cum[s] >= 2_000.0]


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) index ranges where `mask` holds; over segments these are vertex
    ranges [start, end]."""
    padded = np.concatenate([[False], mask, [False]])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def _free_speed(req: RouteRequest, geo: _Geometry, motorway: list[tuple[int, int]]) -> np.ndarray:
    """Metres per second per segment with no traffic."""
    kmh = {
        "pedestrian": (5.0, 5.0),
        "bicycle": (16.0, 16.0),
        "truck": (80.0, 45.0),
        "bus": (85.0, 45.0),
    }.get(req.travel_mode, (120.0, 65.0))
    fast, slow = kmh
    if req.route_type == "eco":
        fast = min(fast, 100.0)
    elif req.route_type in ("shortest", "short", "thrilling"):
        slow *= 0.9
    speed = np.full(geo.n - 1, slow / 3.6)
    for s, e in motorway:
        speed[s:e] = fast / 3.6
    if req.max_speed_kmh:
        speed = np.minimum(speed, req.max_speed_kmh / 3.6)
    return speed


def _pick_stretches(
    geo: _Geometry, rng: np.random.Generator, *, count: int, low_m: float, high_m: float
) -> list[tuple[int, int]]:
    """`count` non-overlapping vertex ranges of `low_m` to `high_m` metres each."""
    total = geo.cum[-1]
    if count <= 0 or total < 2 * low_m:
        return []
    out: list[tuple[int, int]] = []
    for at in np.sort(rng.uniform(0.02, 0.98, size=count)) * total:
        length = float(rng.uniform(low_m, high_m))
        s = int(np.searchsorted(geo.cum, at))
        e = int(np.searchsorted(geo.cum, at + length))
        s, e = min(s, geo.n - 2), min(max(e, s + 1), geo.n - 1)
        if out and s <= out[-1][1]:
            continue
        out.append((s, e))
    return out


def _jams(
    geo: _Geometry, rng: np.random.Generator, total_km: float
) -> list[tuple[int, int, int, float]]:
    """(start, end, magnitudeOfDelay, effective km/h): a few jams, about one per 250 km."""
    count = 1 + int(total_km / 250) if total_km > 5 else 0
    stretches = _pick_stretches(geo, rng, count=count, low_m=300, high_m=8_000)
    out = []
    for s, e in stretches:
        magnitude = int(rng.choice([1, 2, 3, 4], p=[0.35, 0.35, 0.2, 0.1]))
        kmh = {1: 45.0, 2: 25.0, 3: 12.0, 4: 6.0}[magnitude] * float(rng.uniform(0.8, 1.1))
        out.append((s, e, magnitude, round(kmh, 1)))
    return out


def _sections(
    req: RouteRequest,
    geo: _Geometry,
    rng: np.random.Generator,
    motorway: list[tuple[int, int]],
    tunnels: list[tuple[int, int]],
    jams: list[tuple[int, int, int, float]],
    seg_delay: np.ndarray,
) -> list[dict[str, Any]]:
    wanted = req.sections
    out: list[dict[str, Any]] = [
        {"startPointIndex": 0, "endPointIndex": geo.n - 1, "sectionType": "TRAVEL_MODE",
         "travelMode": req.travel_mode}
    ]  # fmt: skip
    if "COUNTRY" in wanted:
        change = (np.flatnonzero(geo.countries[1:] != geo.countries[:-1]) + 1).tolist()
        starts = [0, *change]
        ends = [*change, geo.n - 1]
        for s, e in zip(starts, ends, strict=True):
            out.append({"startPointIndex": s, "endPointIndex": e, "sectionType": "COUNTRY",
                        "countryCode": str(geo.countries[s])})  # fmt: skip
    if "MOTORWAY" in wanted:
        out.extend(
            {"startPointIndex": s, "endPointIndex": e, "sectionType": "MOTORWAY"}
            for s, e in motorway
        )
    if "TOLL_ROAD" in wanted and "tollRoads" not in req.avoid:
        out.extend(
            {"startPointIndex": s, "endPointIndex": e, "sectionType": "TOLL_ROAD"}
            for s, e in _toll_runs(geo, rng, motorway)
        )
    if "TUNNEL" in wanted:
        out.extend(
            {"startPointIndex": s, "endPointIndex": e, "sectionType": "TUNNEL"} for s, e in tunnels
        )
    if "TRAFFIC" in wanted:
        for s, e, magnitude, kmh in jams:
            category = "ROAD_WORK" if magnitude == 4 else "JAM"
            out.append({
                "startPointIndex": s,
                "endPointIndex": e,
                "sectionType": "TRAFFIC",
                "simpleCategory": category,
                "effectiveSpeedInKmh": round(kmh),
                "delayInSeconds": round(float(seg_delay[s:e].sum())),
                "magnitudeOfDelay": magnitude,
                "tec": {"effectCode": 4 if magnitude < 4 else 7,
                        "causes": [{"mainCauseCode": 1 if category == "JAM" else 11}]},
                "eventId": f"TTI-offline-{_geo.seed_of('jam', s, e) % 10**8:08d}-TTR1",
            })  # fmt: skip
    out.sort(key=lambda sec: (sec["startPointIndex"], _SECTION_ORDER[sec["sectionType"]]))
    return out


def _toll_runs(
    geo: _Geometry, rng: np.random.Generator, motorway: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    toll = np.zeros(geo.n - 1, dtype=bool)
    for s, e in motorway:
        codes = geo.countries[s:e]
        change = (np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist()
        for a, b in zip([0, *change], [*change, e - s], strict=True):
            share = _TOLL_SHARE.get(str(codes[a]), 0.0)
            if share and rng.random() < share:
                toll[s + a : s + b] = True
    return [(s, e) for s, e in _runs(toll) if geo.cum[e] - geo.cum[s] >= 1_000.0]


def _summary(
    start: datetime,
    geo: _Geometry,
    cum_time: np.ndarray,
    seg_delay: np.ndarray,
    jam_mask: np.ndarray,
    a: int,
    b: int,
) -> dict[str, Any]:
    depart = start + timedelta(seconds=round(float(cum_time[a])))
    seconds = round(float(cum_time[b] - cum_time[a]))
    return {
        "lengthInMeters": round(float(geo.cum[b] - geo.cum[a])),
        "travelTimeInSeconds": seconds,
        "trafficDelayInSeconds": round(float(seg_delay[a:b].sum())),
        "trafficLengthInMeters": round(float(geo.seg_len[a:b][jam_mask[a:b]].sum())),
        "departureTime": depart.isoformat(timespec="seconds"),
        "arrivalTime": (depart + timedelta(seconds=seconds)).isoformat(timespec="seconds"),
    }


def _progress(
    req: RouteRequest, geo: _Geometry, cum_time: np.ndarray, speed: np.ndarray
) -> list[dict[str, Any]]:
    """Entries at key points (ends, leg ends, every speed change): between two entries
    distance and time grow linearly, as in TomTom's progress."""
    keys = {0, geo.n - 1, *geo.leg_start.tolist(), *geo.leg_end.tolist()}
    keys.update((np.flatnonzero(speed[1:] != speed[:-1]) + 1).tolist())
    out = []
    for i in sorted(keys):
        entry: dict[str, Any] = {"pointIndex": i}
        if "distance" in req.extended:
            entry["distanceInMeters"] = round(float(geo.cum[i]))
        if "travelTime" in req.extended:
            entry["travelTimeInSeconds"] = round(float(cum_time[i]))
        out.append(entry)
    return out


def _guidance(
    req: RouteRequest,
    geo: _Geometry,
    rng: np.random.Generator,
    cum_time: np.ndarray,
    motorway: list[tuple[int, int]],
) -> dict[str, Any]:
    """Depart, arrive, waypoints, motorway entries and exits, and the sharpest turns."""
    events: dict[int, tuple[str, str, str, float | None]] = {}  # index -> type, maneuver, road

    def add(i: int, kind: str, maneuver: str, road: str, angle: float | None = None) -> None:
        events.setdefault(i, (kind, maneuver, road, angle))

    last = geo.n - 1
    add(0, "LOCATION_DEPARTURE", "DEPART", "")
    add(last, "LOCATION_ARRIVAL", "ARRIVE", "")
    for j, b in enumerate(geo.leg_end[:-1].tolist()):
        add(b, "LOCATION_WAYPOINT", "WAYPOINT_REACHED", str(j + 1))
    for s, e in motorway:
        prefix = _MOTORWAY_PREFIX.get(str(geo.countries[s]), "E")
        road = f"{prefix}{int(rng.integers(1, 99))}"
        add(s, "ROAD_CHANGE", "ENTER_MOTORWAY", road)
        add(e, "TURN", "TAKE_EXIT", road)
    for i, angle in _turns(geo, motorway):
        add(i, "TURN", _turn_maneuver(angle), "", angle)

    instructions = []
    for i in sorted(events):
        kind, maneuver, road, angle = events[i]
        country = _geo.COUNTRIES.get(str(geo.countries[i]), _geo.COUNTRIES["DEU"])
        street = _geo.street_name(country, rng)
        item: dict[str, Any] = {
            "routeOffsetInMeters": round(float(geo.cum[i])),
            "travelTimeInSeconds": round(float(cum_time[i])),
            "point": {"latitude": float(geo.points[i, 1]), "longitude": float(geo.points[i, 0])},
            "pointIndex": i,
            "instructionType": kind,
            "street": road if maneuver == "ENTER_MOTORWAY" else street,
            "countryCode": country.iso3,
            "drivingSide": "LEFT" if country.iso3 in _LEFT_HAND else "RIGHT",
            "maneuver": maneuver,
            "possibleCombineWithNext": False,
        }
        if maneuver == "ENTER_MOTORWAY":
            item["roadNumbers"] = [road]
        if angle is not None:
            item["turnAngleInDecimalDegrees"] = round(angle)
        if req.instructions in ("text", "tagged"):
            item["message"] = _message(maneuver, street, road, req.instructions == "tagged")
        instructions.append(item)

    groups = []
    for j in range(len(geo.legs)):
        a, b = int(geo.leg_start[j]), int(geo.leg_end[j])
        members = [k for k, ins in enumerate(instructions) if a <= ins["pointIndex"] <= b]
        if not members:
            continue
        groups.append({
            "firstInstructionIndex": members[0],
            "lastInstructionIndex": members[-1],
            "groupLengthInMeters": round(float(geo.cum[b] - geo.cum[a])),
            "groupMessage": f"Leg {j + 1}: {len(members)} instructions",
        })  # fmt: skip
    return {"instructions": instructions, "instructionGroups": groups}


def _turns(geo: _Geometry, motorway: list[tuple[int, int]]) -> list[tuple[int, float]]:
    """Vertices off motorways where the heading turns by more than 40 degrees over a few
    vertices: the first in each stretch of `spacing` metres, so a long route carries at
    most about 200 of them."""
    k = 3
    if geo.n < 2 * k + 2:
        return []
    lat0 = np.radians(geo.points[:, 1])
    x = np.radians(geo.points[:, 0]) * np.cos(lat0)
    y = np.radians(geo.points[:, 1])
    on_motorway = np.zeros(geo.n, dtype=bool)
    for s, e in motorway:
        on_motorway[s : e + 1] = True
    idx = np.flatnonzero(~on_motorway[k : geo.n - k]) + k
    h_in = np.arctan2(y[idx] - y[idx - k], x[idx] - x[idx - k])
    h_out = np.arctan2(y[idx + k] - y[idx], x[idx + k] - x[idx])
    angle = np.degrees((h_in - h_out + np.pi) % (2 * np.pi) - np.pi)  # right turns positive
    sharp = np.flatnonzero(np.abs(angle) > 40.0)
    spacing = max(1_000.0, geo.cum[-1] / 200.0)
    _, first = np.unique((geo.cum[idx[sharp]] // spacing).astype(np.int64), return_index=True)
    chosen = sharp[first]
    return list(zip(idx[chosen].tolist(), angle[chosen].tolist(), strict=True))


def _turn_maneuver(angle: float) -> str:
    side = "RIGHT" if angle > 0 else "LEFT"
    size = abs(angle)
    if size < 60:
        return f"BEAR_{side}"
    if size < 130:
        return f"TURN_{side}"
    return f"SHARP_{side}"


def _message(maneuver: str, street: str, road: str, tagged: bool) -> str:
    s = f"<street>{street}</street>" if tagged else street
    r = f"<roadNumber>{road}</roadNumber>" if tagged else road
    if maneuver == "DEPART":
        return f"Leave from {s}"
    if maneuver == "ARRIVE":
        return f"You have arrived at {s}"
    if maneuver == "WAYPOINT_REACHED":
        return f"You have reached waypoint {road}"
    if maneuver == "ENTER_MOTORWAY":
        return f"Take the motorway {r}"
    if maneuver == "TAKE_EXIT":
        return f"Leave the {r} at the exit onto {s}"
    verb, side = maneuver.split("_")
    verb = {"BEAR": "Bear", "TURN": "Turn", "SHARP": "Make a sharp"}[verb]
    return f"{verb} {side.lower()} onto {s}"


def _instant(text: str, name: str, now: datetime) -> datetime:
    """`departAt`/`arriveAt` as given (UTC when no offset is given); `now` is the minute
    the request is answered in."""
    if text == "now" and name == "departAt":
        return now
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise OfflineBadRequest(
            f"Invalid value for '{name}': {text!r}; use an ISO 8601 date-time"
            + (" or now." if name == "departAt" else ".")
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=now.tzinfo)
