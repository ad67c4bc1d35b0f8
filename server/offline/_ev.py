"""EV answers: EV Search, EV Charging Stations Availability, Long Distance EV Routing.

A charging park derives from the seed its availability id encodes, so its availability
agrees with the search result that named it. An EV route is the ordinary offline route
drained by TomTom's constant-speed consumption model, a leg ending at each charging stop,
placed where the charge would fall below `minChargeAtChargingStopsInkWh`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _geo, _search
from tomtom_mcp_apps.server.offline._errors import ROUTING_FORMAT_VERSION
from tomtom_mcp_apps.server.offline._query import Query, parse_number
from tomtom_mcp_apps.server.offline._routing import (
    leg_speeds,
    parse_request,
    route_from,
    route_legs,
)

CONNECTOR_TYPES = (
    "StandardHouseholdCountrySpecific", "IEC62196Type1", "IEC62196Type1CCS",
    "IEC62196Type2CableAttached", "IEC62196Type2Outlet", "IEC62196Type2CCS", "IEC62196Type3",
    "Chademo", "GBT20234Part2", "GBT20234Part3", "IEC60309AC3PhaseRed",
    "IEC60309AC1PhaseBlue", "IEC60309DCWhite", "Tesla",
)  # fmt: skip
STATUSES = ("Available", "Reserved", "Occupied", "OutOfService", "Unknown")
OPERATORS = ("Fastned", "Ionity", "Allego", "Shell Recharge", "EnBW", "Vattenfall InCharge",
             "Tesla", "TotalEnergies")  # fmt: skip
_OFFERS: tuple[tuple[str, float, int, int, str], ...] = (
    # type, kW, V, A, current
    ("IEC62196Type2Outlet", 11.0, 400, 16, "AC3"),
    ("IEC62196Type2Outlet", 22.0, 400, 32, "AC3"),
    ("IEC62196Type2CableAttached", 22.0, 400, 32, "AC3"),
    ("IEC62196Type2CCS", 50.0, 500, 100, "DC"),
    ("IEC62196Type2CCS", 150.0, 920, 200, "DC"),
    ("IEC62196Type2CCS", 300.0, 920, 400, "DC"),
    ("Chademo", 50.0, 500, 125, "DC"),
    ("Tesla", 250.0, 480, 520, "DC"),
)
_ID_PREFIX = "0ff11e00"


@dataclass(frozen=True)
class Park:
    seed: int
    lon: float
    lat: float
    name: str
    operator: str
    connectors: tuple[tuple[str, float, int, int, str, int], ...]  # + count

    @property
    def availability_id(self) -> str:
        digits = f"{self.seed:016x}"
        return f"{_ID_PREFIX}-{digits[:4]}-{digits[4:8]}-{digits[8:12]}-{digits[12:16]}0000"


def _park(seed: int, lon: float, lat: float) -> Park:
    rng = np.random.default_rng(seed)
    operator = OPERATORS[int(rng.integers(len(OPERATORS)))]
    root = _geo.NAME_ROOTS[int(rng.integers(len(_geo.NAME_ROOTS)))]
    picks = sorted(rng.choice(len(_OFFERS), size=int(rng.integers(1, 4)), replace=False))
    connectors = tuple((*_OFFERS[i], int(rng.integers(1, 7))) for i in picks)
    return Park(seed, lon, lat, f"{operator} {root}", operator, connectors)


def _seed_of_id(text: str) -> int:
    parts = text.split("-")
    if len(parts) != 5 or parts[0] != _ID_PREFIX or not parts[4].endswith("0000"):
        raise OfflineBadRequest(
            f"Invalid value for 'chargingAvailability': {text!r} is not a charging availability "
            "id from a search result.",
            target="chargingAvailability",
        )
    try:
        return int("".join(parts[1:4]) + parts[4][:4], 16)
    except ValueError:
        raise OfflineBadRequest(
            f"Invalid value for 'chargingAvailability': {text!r} is not hexadecimal.",
            target="chargingAvailability",
        ) from None


# --- EV Search -------------------------------------------------------------------------


def ev_search(q: Query) -> dict[str, Any]:
    """`/search/2/evsearch.json`: parks within `radius` of `lat`,`lon`, nearest first,
    filtered by connector type and power as TomTom's EV Search filters them."""
    lat = q.number("lat", low=-90, high=90, required=True)
    lon = q.number("lon", low=-180, high=180, required=True)
    assert lat is not None and lon is not None
    radius = q.integer("radius", low=1, high=50_000, default=5_000)
    limit = q.integer("limit", low=1, high=100, default=10)
    assert radius is not None and limit is not None
    wanted = q.choices("connector", CONNECTOR_TYPES)
    low = q.number("minPowerKW", low=0, high=10_000, default=0.0) or 0.0
    high = q.number("maxPowerKW", low=0, high=10_000, default=math.inf) or math.inf
    statuses = q.choices("status", STATUSES)
    q.language()
    rng = _geo.rng_for("evsearch", round(lon, 5), round(lat, 5), radius)
    results = []
    for _ in range(max(limit * 3, 12)):
        r = radius * math.sqrt(rng.uniform(0.0, 0.95))
        angle = rng.uniform(0.0, 2 * math.pi)
        plon, plat = _geo.offset(lon, lat, r * math.cos(angle), r * math.sin(angle))
        park = _park(int(rng.integers(1, 2**63)), plon, plat)
        offered = [
            c for c in park.connectors if (not wanted or c[0] in wanted) and low <= c[1] <= high
        ]
        if not offered:
            continue
        if statuses and not _has_status(park, statuses):
            continue
        results.append(_result(park, rng))
    _search._add_dist(results, (lon, lat))
    results.sort(key=lambda r: r["dist"])
    results = results[:limit]
    return {
        "summary": {
            "queryType": "NEARBY",
            "queryTime": 4 + len(results),
            "numResults": len(results),
            "offset": 0,
            "totalResults": len(results),
            "fuzzyLevel": 1,
            "geoBias": {"lat": lat, "lon": lon},
        },
        "results": results,
    }


def _has_status(park: Park, statuses: list[str]) -> bool:
    counts = _counts(park)
    field = {"Available": "available", "Reserved": "reserved", "Occupied": "occupied",
             "OutOfService": "outOfService", "Unknown": "unknown"}  # fmt: skip
    return any(c[field[s]] for _, c in counts for s in statuses)


def _result(park: Park, rng: np.random.Generator) -> dict[str, Any]:
    country = _geo.country_of(park.lon, park.lat)
    category = _search.Category(7309, "electric vehicle station", "Charging", ())
    base = _search._poi(rng, park.lon, park.lat, category, None, score=10.0)
    base["poi"]["name"] = park.name
    base["poi"]["brands"] = [{"name": park.operator}]
    base["id"] = _search._id("ev", park.seed)
    base["address"] = _search._address(park.lon, park.lat, country, rng)
    base["chargingPark"] = {
        "connectors": [
            {"connectorType": t, "ratedPowerKW": kw, "voltageV": v, "currentA": a, "currentType": c}
            for t, kw, v, a, c, _n in park.connectors
        ]
    }
    base["dataSources"] = {"chargingAvailability": {"id": park.availability_id}}
    return base


# --- EV Charging Stations Availability ------------------------------------------------


def charging_availability(q: Query) -> dict[str, Any]:
    """`/search/2/chargingAvailability.json`: live counts per connector type and power."""
    text = q.text("chargingAvailability")
    if text is None:
        raise OfflineBadRequest(
            "Missing required parameter 'chargingAvailability'.", target="chargingAvailability"
        )
    park = _park(_seed_of_id(text), 0.0, 0.0)
    by_type: dict[str, dict[str, Any]] = {}
    for (kind, kw, _v, _a, _c, total), counts in _counts(park):
        entry = by_type.setdefault(
            kind,
            {"type": kind, "total": 0, "availability": {
                "current": dict.fromkeys(counts, 0), "perPowerLevel": []}},
        )  # fmt: skip
        entry["total"] += total
        for name, value in counts.items():
            entry["availability"]["current"][name] += value
        entry["availability"]["perPowerLevel"].append({"powerKW": kw, **counts})
    connectors = list(by_type.values())
    return {"connectors": connectors, "chargingAvailability": text}


def _counts(park: Park) -> list[tuple[tuple[str, float, int, int, str, int], dict[str, int]]]:
    """Per connector: available, occupied, reserved, unknown, out of service, summing to
    its count; the same park always reports the same (the upstream's clock stands still)."""
    rng = np.random.default_rng([park.seed, 1])
    out = []
    for connector in park.connectors:
        total = connector[5]
        shares = rng.multinomial(total, [0.5, 0.3, 0.05, 0.1, 0.05])
        names = ("available", "occupied", "reserved", "unknown", "outOfService")
        out.append((connector, {n: int(v) for n, v in zip(names, shares, strict=True)}))
    return out


# --- Long Distance EV Routing ----------------------------------------------------------

PLUG_TYPES = (
    "Small_Paddle_Inductive", "Large_Paddle_Inductive", "IEC_60309_1_Phase",
    "IEC_60309_3_Phase", "IEC_62196_Type_1_Outlet", "IEC_62196_Type_2_Outlet",
    "IEC_62196_Type_3_Outlet", "IEC_62196_Type_1_Connector_Cable_Attached",
    "IEC_62196_Type_2_Connector_Cable_Attached", "IEC_62196_Type_3_Connector_Cable_Attached",
    "Combo_to_IEC_62196_Type_1_Base", "Combo_to_IEC_62196_Type_2_Base",
    "Type_E_French_Standard_CEE_7_5", "Type_F_Schuko_CEE_7_4", "Type_G_British_Standard_BS_1363",
    "Type_J_Swiss_Standard_SEV_1011", "China_GB_Part_2", "China_GB_Part_3", "IEC_309_DC_Plug",
    "AVCON_Connector", "Tesla_Connector", "NEMA_5_20", "CHAdeMO", "SAE_J1772",
    "TEPCO", "Better_Place_Socket", "Marechal_Socket", "Standard_Household_Country_Specific",
)  # fmt: skip
CURRENT_TYPES = ("AC1", "AC3", "DC")
_PLUG_OF = {"AC3": "IEC_62196_Type_2_Outlet", "DC": "Combo_to_IEC_62196_Type_2_Base"}


@dataclass(frozen=True)
class _Battery:
    curve: list[tuple[float, float]]  # (speed km/h, kWh/100 km)
    current: float
    maximum: float
    at_destination: float
    at_stops: float
    auxiliary_kw: float
    battery_curve: list[tuple[float, float]]  # (state of charge kWh, max power kW)
    connector_kw: float
    current_type: str
    offset_s: float


def long_distance_ev_route(locations: str, q: Query, body: bytes) -> bytes:
    """`POST /routing/1/calculateLongDistanceEVRoute/{locations}/json`."""
    req = parse_request(locations, q, body)
    if q.text("vehicleEngineType") != "electric":
        raise OfflineBadRequest("Long Distance EV Routing requires vehicleEngineType=electric.")
    if req.travel_mode not in ("car", "motorcycle", "bus", "van", "truck"):
        raise OfflineBadRequest(
            f"travelMode {req.travel_mode!r} is not supported by Long Distance EV Routing; "
            "use car, motorcycle, bus, van or truck."
        )
    battery = _battery(q, body)
    legs = route_legs(req)
    seg_len, speed = leg_speeds(req, legs)
    seg_kwh = seg_len / 1000 * np.interp(speed * 3.6, *zip(*battery.curve, strict=True)) / 100
    seg_kwh += battery.auxiliary_kw * seg_len / speed / 3600
    stops = _plan(legs, seg_kwh, battery)
    pieces, spans = _split(legs, sorted(stops))
    route = route_from(req, pieces)
    _add_energy(route, stops, spans, seg_kwh, battery)
    return orjson.dumps({"formatVersion": ROUTING_FORMAT_VERSION, "routes": [route]})


def _battery(q: Query, body: bytes) -> _Battery:
    curve = _consumption_curve(q.text("constantSpeedConsumptionInkWhPerHundredkm"))
    maximum = q.number("maxChargeInkWh", low=0.01, high=10_000, required=True)
    assert maximum is not None
    current = q.number("currentChargeInkWh", low=0, high=maximum, required=True)
    at_destination = q.number("minChargeAtDestinationInkWh", low=0, high=maximum, required=True)
    at_stops = q.number("minChargeAtChargingStopsInkWh", low=0, high=maximum, required=True)
    auxiliary = q.number("auxiliaryPowerInkW", low=0, high=100, default=0.0)
    assert current is not None and at_destination is not None and at_stops is not None
    try:
        doc = orjson.loads(body or b"null")
    except orjson.JSONDecodeError:
        doc = None
    charging = doc.get("chargingParameters") if isinstance(doc, dict) else None
    if not isinstance(charging, dict):
        raise OfflineBadRequest(
            'The request body must hold the charging model: {"chargingParameters": '
            '{"batteryCurve": [...], "chargingConnectors": [...]}}.'
        )
    battery_curve = []
    for i, point in enumerate(charging.get("batteryCurve") or []):
        if not isinstance(point, dict):
            raise OfflineBadRequest(f"batteryCurve[{i}] must be an object.")
        soc = parse_number(
            str(point.get("stateOfChargeInkWh")),
            f"batteryCurve[{i}].stateOfChargeInkWh",
            0,
            maximum,
        )
        power = parse_number(
            str(point.get("maxPowerInkW")), f"batteryCurve[{i}].maxPowerInkW", 0.01, 10_000
        )
        battery_curve.append((soc, power))
    if not battery_curve:
        raise OfflineBadRequest("chargingParameters.batteryCurve needs at least one point.")
    if any(b[0] <= a[0] for a, b in itertools.pairwise(battery_curve)):
        raise OfflineBadRequest(
            "chargingParameters.batteryCurve must be sorted by increasing stateOfChargeInkWh."
        )
    connectors = charging.get("chargingConnectors") or []
    if not isinstance(connectors, list) or not connectors:
        raise OfflineBadRequest(
            "chargingParameters.chargingConnectors needs at least one connector."
        )
    best_kw, best_type = 0.0, "AC3"
    for i, connector in enumerate(connectors):
        if not isinstance(connector, dict) or connector.get("currentType") not in CURRENT_TYPES:
            raise OfflineBadRequest(
                f"chargingConnectors[{i}].currentType must be one of {', '.join(CURRENT_TYPES)}."
            )
        plugs = connector.get("plugTypes")
        if not isinstance(plugs, list) or not plugs or any(p not in PLUG_TYPES for p in plugs):
            raise OfflineBadRequest(
                f"chargingConnectors[{i}].plugTypes must list TomTom plug types."
            )
        kw = parse_number(
            str(connector.get("maxPowerInkW", 350)),
            f"chargingConnectors[{i}].maxPowerInkW",
            0.01,
            10_000,
        )
        if kw > best_kw:
            best_kw, best_type = kw, connector["currentType"]
    offset = parse_number(
        str(charging.get("chargingTimeOffsetInSec", 60)), "chargingTimeOffsetInSec", 0, 3600
    )
    return _Battery(
        curve=curve,
        current=current,
        maximum=maximum,
        at_destination=at_destination,
        at_stops=at_stops,
        auxiliary_kw=auxiliary or 0.0,
        battery_curve=battery_curve,
        connector_kw=best_kw,
        current_type=best_type,
        offset_s=offset,
    )


def _consumption_curve(text: str | None) -> list[tuple[float, float]]:
    """`speed,kWh/100km:speed,kWh/100km...`: 1 to 25 pairs, speeds strictly increasing."""
    name = "constantSpeedConsumptionInkWhPerHundredkm"
    if not text:
        raise OfflineBadRequest(f"Missing required parameter '{name}'.", target=name)
    pairs = text.split(":")
    if len(pairs) > 25:
        raise OfflineBadRequest(
            f"Invalid value for '{name}': at most 25 speed,consumption pairs.", target=name
        )
    curve = []
    for pair in pairs:
        parts = pair.split(",")
        if len(parts) != 2:
            raise OfflineBadRequest(
                f"Invalid value for '{name}': {pair!r} is not 'speed,consumption'.", target=name
            )
        curve.append((parse_number(parts[0], f"{name} speed", 1, 250),
                      parse_number(parts[1], f"{name} consumption", 0.01, 100_000)))  # fmt: skip
    if any(b[0] <= a[0] for a, b in itertools.pairwise(curve)):
        raise OfflineBadRequest(
            f"Invalid value for '{name}': speeds must increase strictly.", target=name
        )
    return curve


def _plan(
    legs: list[np.ndarray], seg_kwh: np.ndarray, battery: _Battery
) -> dict[int, tuple[float, float]]:
    """Charging stops as {global vertex index: (arrival charge, target charge)}: a stop
    where the next segment would take the charge below the floor and the rest of the
    trip cannot be finished above `minChargeAtDestinationInkWh` from here."""
    sizes = [len(leg) for leg in legs]
    joints = set((np.cumsum(sizes)[:-1] - 1).tolist())  # the repeated waypoint: no cost
    cost = seg_kwh.copy()
    cost[list(joints)] = 0.0
    left = np.concatenate([np.cumsum(cost[::-1])[::-1], [0.0]])
    ceiling = min(battery.maximum, 0.8 * battery.maximum + battery.at_stops)
    charge = battery.current
    stops: dict[int, tuple[float, float]] = {}
    for i, used in enumerate(cost.tolist()):
        if i in joints or i == 0:
            charge -= used
            continue
        if charge - used < battery.at_stops and charge - left[i] < battery.at_destination:
            target = min(ceiling, float(left[i]) + battery.at_destination + 0.05 * battery.maximum)
            if target - charge < 0.1:
                raise OfflineBadRequest(
                    "Engine error while executing route request: NO_ROUTE_FOUND (with this "
                    "battery and consumption model the route cannot be driven between stops).",
                    code="NO_ROUTE_FOUND",
                )
            stops[i] = (charge, target)
            charge = target
        charge -= used
    if charge < 0:
        raise OfflineBadRequest("Engine error: NO_ROUTE_FOUND (the battery runs empty).",
                         code="NO_ROUTE_FOUND")  # fmt: skip
    return stops


def _split(
    legs: list[np.ndarray], cuts: list[int]
) -> tuple[list[np.ndarray], list[tuple[int, int]]]:
    """`legs` with a new boundary at each cut vertex (kept in both legs, as TomTom repeats
    a leg's end as the next leg's start), and each piece's global vertex range."""
    pieces: list[np.ndarray] = []
    spans: list[tuple[int, int]] = []
    start = 0
    for leg in legs:
        end = start + len(leg) - 1
        first = start
        for cut in cuts:
            if start < cut < end:
                pieces.append(leg[first - start : cut - start + 1])
                spans.append((first, cut))
                first = cut
        pieces.append(leg[first - start :])
        spans.append((first, end))
        start = end + 1
    return pieces, spans


def _add_energy(
    route: dict[str, Any],
    stops: dict[int, tuple[float, float]],
    spans: list[tuple[int, int]],
    seg_kwh: np.ndarray,
    battery: _Battery,
) -> None:
    """Battery figures on every leg and the route, and each charging stop's details."""
    rng = _geo.rng_for("ldevr", len(seg_kwh), round(float(seg_kwh.sum()), 3))
    charge = battery.current
    charging_s = 0
    used_total = 0.0
    for leg, (first, last) in zip(route["legs"], spans, strict=True):
        summary = leg["summary"]
        used = float(seg_kwh[first:last].sum())
        used_total += used
        charge -= used
        summary["batteryConsumptionInkWh"] = round(used, 2)
        summary["remainingChargeAtArrivalInkWh"] = round(max(charge, 0.0), 2)
        if last not in stops:
            continue
        target = stops[last][1]
        seconds = round(_charging_seconds(charge, target, battery) + battery.offset_s)
        charging_s += seconds
        park = _park(int(rng.integers(1, 2**63)), 0.0, 0.0)
        dc = battery.current_type == "DC"
        summary["chargingInformationAtEndOfLeg"] = {
            "targetChargeInkWh": round(target, 2),
            "chargingTimeInSeconds": seconds,
            "chargingParkUuid": park.availability_id,
            "chargingParkExternalId": f"offline-{park.seed % 10**8:08d}",
            "chargingParkName": park.name,
            "chargingParkOperatorName": park.operator,
            "chargingParkPowerInkW": battery.connector_kw,
            "chargingConnectionInfo": {
                "chargingVoltageInV": 800 if dc else 400,
                "chargingCurrentInA": 250 if dc else 32,
                "chargingCurrentType": "Direct_Current" if dc else "Alternating_Current_3_Phase",
                "chargingPlugType": _PLUG_OF["DC" if dc else "AC3"],
                "chargingPowerInkW": battery.connector_kw,
            },
            "chargingStopType": "Auto_Generated",
        }
        charge = target
    summary = route["summary"]
    summary["batteryConsumptionInkWh"] = round(used_total, 2)
    summary["remainingChargeAtArrivalInkWh"] = round(max(charge, 0.0), 2)
    summary["totalChargingTimeInSeconds"] = charging_s
    summary["travelTimeInSeconds"] += charging_s
    arrival = datetime.fromisoformat(summary["arrivalTime"]) + timedelta(seconds=charging_s)
    summary["arrivalTime"] = arrival.isoformat(timespec="seconds")


def _charging_seconds(start: float, target: float, battery: _Battery) -> float:
    """Time to charge from `start` to `target` kWh: the battery curve's power, linear
    between its points and flat beyond them, capped by the connector's."""
    levels = np.linspace(start, target, 64)
    soc, power = zip(*battery.battery_curve, strict=True)
    kw = np.minimum(np.interp(levels, soc, power), battery.connector_kw)
    return float(np.trapezoid(1.0 / kw, levels)) * 3600
