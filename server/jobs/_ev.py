"""EV results: charging stations with live availability, and long-distance EV routes.

Stations come from EV Search (or any Search answer with `chargingPark`), their live counts
from the Availability API by `dataSources.chargingAvailability.id`. An EV route's legs end
at its charging stops, and fitting keeps leg ends, so the drawn line passes through every
stop's marker exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tomtom_mcp_apps.server.bodies import Dropped, RawBody, count, entries, number, obj, text
from tomtom_mcp_apps.server.jobs._features import (
    collection,
    point_feature,
    result_position,
    result_summary,
    rounded,
    route_answer,
    route_feature,
    waypoint_features,
)
from tomtom_mcp_apps.server.jobs._image import ImageRequest
from tomtom_mcp_apps.server.jobs._result import Prepared, prepare
from tomtom_mcp_apps.server.jobs._routes import routes_of
from tomtom_mcp_apps.server.tool_names import EV_ROUTING

FREE = "#2f9e44"
BUSY = "#f76707"
BROKEN = "#e03131"
UNKNOWN = "#868e96"
_COUNTS = ("available", "occupied", "reserved", "unknown", "outOfService")


def availability_id(result: dict[str, Any]) -> str | None:
    """The id the availability API knows a search result's charging park by."""
    found = obj(obj(result.get("dataSources")).get("chargingAvailability")).get("id")
    return found if isinstance(found, str) and found else None


def connectors_of(result: dict[str, Any], dropped: Dropped | None = None) -> list[dict[str, Any]]:
    """A park's connectors as `{type, power_kw, current}`: from `chargingPark.connectors`
    (Search API: `connectorType`) or from its stations' charging points (EV Search:
    `chargingStations[].chargingPoints[].connectors[]`, `type`), once per type and power.
    Entries that are not objects are dropped and counted in `dropped`."""
    dropped = dropped if dropped is not None else Dropped()
    park = obj(result.get("chargingPark"))
    where = "results.chargingPark"
    raw = entries(park.get("connectors"), f"{where}.connectors", dropped)
    for station in entries(park.get("chargingStations"), f"{where}.chargingStations", dropped):
        for point in _points(station, dropped):
            raw += entries(point.get("connectors"), f"{_POINTS}.connectors", dropped)
    seen: dict[tuple[str, float | None], dict[str, Any]] = {}
    for connector in raw:
        kind = text(connector.get("connectorType")) or text(connector.get("type")) or "unknown"
        power = number(connector.get("ratedPowerKW"))
        entry: dict[str, Any] = {"type": kind, "power_kw": power}
        current = text(connector.get("currentType"))
        if current:
            entry["current"] = current
        seen.setdefault((kind, power), entry)
    return list(seen.values())


_POINTS = "results.chargingPark.chargingStations.chargingPoints"


def _points(station: dict[str, Any], dropped: Dropped) -> list[dict[str, Any]]:
    return entries(station.get("chargingPoints"), _POINTS, dropped)


_STATUSES = {
    "Available": "available",
    "Occupied": "occupied",
    "Reserved": "reserved",
    "Unknown": "unknown",
    "OutOfService": "outOfService",
}


def point_statuses(result: dict[str, Any], dropped: Dropped | None = None) -> dict[str, int]:
    """EV Search's per-charging-point `status`, counted, when the answer carries them (a
    status TomTom does not list counts as unknown)."""
    dropped = dropped if dropped is not None else Dropped()
    counts: dict[str, int] = {}
    park = obj(result.get("chargingPark"))
    for station in entries(park.get("chargingStations"), "", Dropped()):  # counted once above
        for point in _points(station, Dropped()):
            status = _STATUSES.get(text(point.get("status")) or "", "unknown")
            counts[status] = counts.get(status, 0) + 1
    return counts


def live_counts(
    availability: dict[str, Any] | None, dropped: Dropped | None = None
) -> tuple[dict[str, int], list[dict]]:
    """(totals over the park, per connector type) from a chargingAvailability answer;
    each type keeps its `perPowerLevel` counts as `{power_kw: counts}`. Connectors and
    power levels that are not objects, and counts that are not whole numbers of 0 or
    more, are left out and counted in `dropped`."""
    dropped = dropped if dropped is not None else Dropped()
    totals = dict.fromkeys(_COUNTS, 0)
    per_type: list[dict[str, Any]] = []
    where = "chargingAvailability.connectors"
    for connector in entries(obj(availability).get("connectors"), where, dropped):
        live = obj(connector.get("availability"))
        counts = _counted(live.get("current"), f"{where}.availability.current", dropped)
        for k, v in counts.items():
            totals[k] += v
        entry: dict[str, Any] = {"type": text(connector.get("type")) or "unknown", **counts}
        total = count(connector.get("total"))
        if total is not None:
            entry["total"] = total
        levels: dict[float, dict[str, int]] = {}
        for level in entries(live.get("perPowerLevel"), f"{where}.perPowerLevel", dropped):
            power = number(level.get("powerKW"))
            if power is None:
                dropped.add(f"{where}.perPowerLevel")
                continue
            levels[power] = _counted(level, f"{where}.perPowerLevel", dropped)
        entry["levels"] = levels
        per_type.append(entry)
    return totals, per_type


def _counted(counts: Any, where: str, dropped: Dropped) -> dict[str, int]:
    counts = obj(counts)
    out: dict[str, int] = {}
    for k in _COUNTS:
        value = counts.get(k)
        found = count(value)
        if found is None and value is not None:
            dropped.add(f"{where}.{k}")
        out[k] = found or 0
    return out


STATES = {"free": FREE, "busy": BUSY, "out of service": BROKEN, "unknown": UNKNOWN}
"""What the view's legend calls each colour of a station."""


def state_of(counts: dict[str, int] | None) -> str:
    """free with a free point, busy when all are taken, out of service when all are broken."""
    if not counts or not any(counts.values()):
        return "unknown"
    if counts.get("available"):
        return "free"
    if counts.get("occupied") or counts.get("reserved"):
        return "busy"
    if counts.get("outOfService") and not counts.get("unknown"):
        return "out of service"
    return "unknown"


def colour_of(counts: dict[str, int] | None) -> str:
    """Green when free, orange when busy, red when out of service, grey when unknown."""
    return STATES[state_of(counts)]


def stations(
    results: Sequence[Any],
    availability: dict[str, dict[str, Any] | None],
    dropped: Dropped | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(answer items for the model, `station` features for the view); `availability`
    maps a result's availability id to its chargingAvailability answer (None: failed).
    Malformed entries are left out and counted in `dropped` (`server.bodies`)."""
    dropped = dropped if dropped is not None else Dropped()
    items: list[dict[str, Any]] = []
    features: list[dict[str, Any]] = []
    for result in entries(list(results), "results", dropped):
        summary = result_summary(result)
        brands = entries(obj(result.get("poi")).get("brands"), "results.poi.brands", dropped)
        item: dict[str, Any] = {
            "name": summary["name"],
            "operator": text(brands[0].get("name")) if brands else None,
            "address": summary["address"],
        }
        if "distance_m" in summary:
            item["distance_m"] = summary["distance_m"]
        connectors = connectors_of(result, dropped)
        item["connectors"] = connectors
        powers = [c["power_kw"] for c in connectors if c["power_kw"] is not None]
        if powers:
            item["max_power_kw"] = max(powers)
        key = availability_id(result)
        counts: dict[str, int] | None = None
        statuses = point_statuses(result)
        if key is not None and key in availability:
            answer = availability[key]
            if answer is None:
                item["availability"] = "unavailable: the availability request failed"
            else:
                counts, per_type = live_counts(answer, dropped)
                item["availability"] = _said(counts)
                _add_counts(connectors, per_type)
        elif statuses:
            counts = statuses
            item["availability"] = _said(counts)
        else:
            item["availability"] = "not reported for this station"
        if summary.get("id") is not None:
            item["id"] = summary["id"]
        position = result_position(result)
        if position is None and result.get("position") is not None:
            dropped.add("results.position")
        if position is not None:
            item["position"] = rounded(position)
            features.append(
                point_feature(
                    position,
                    {
                        "kind": "station",
                        "name": item["name"],
                        "address": item["address"],
                        "category": _connectors_text(connectors),
                        "detail": item["availability"]
                        if isinstance(item["availability"], str)
                        else _availability_text(counts),
                        "color": colour_of(counts),
                        "state": state_of(counts),
                        "operator": item["operator"],
                        **({"distance_m": item["distance_m"]} if "distance_m" in item else {}),
                    },
                )
            )
        items.append(item)
    return items, features


def matches(result: dict[str, Any], match: str) -> bool:
    """Whether `match` (lower case) is in the result's name or one of its brands' names;
    an empty `match` takes every result."""
    if not match:
        return True
    poi = obj(result.get("poi"))
    brands = [b.get("name") for b in entries(poi.get("brands"), "", Dropped())]
    names = [n for n in [poi.get("name"), *brands] if isinstance(n, str)]
    return any(match in name.lower() for name in names)


def _said(counts: dict[str, int]) -> dict[str, int]:
    """Counts for the model, zeros left out (`free` is TomTom's `available`)."""
    names = {
        "available": "free",
        "occupied": "occupied",
        "reserved": "reserved",
        "unknown": "unknown",
        "outOfService": "out_of_service",
    }
    return {names[k]: v for k, v in counts.items() if v}


def _availability_text(counts: dict[str, int] | None) -> str:
    if not counts:
        return "Availability not reported"
    said = _said(counts)
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in said.items())


def _add_counts(connectors: list[dict[str, Any]], per_type: list[dict[str, Any]]) -> None:
    """Live counts onto each connector: its power level's when TomTom gives them per
    level, else its type's when it is the park's only connector of that type."""
    by_type = {entry["type"]: entry for entry in per_type}
    for connector in connectors:
        live = by_type.get(connector["type"])
        if live is None:
            continue
        level = live["levels"].get(connector["power_kw"])
        if level is not None:
            connector["count"] = sum(level.values())
            connector["free"] = level["available"]
        elif sum(1 for c in connectors if c["type"] == connector["type"]) == 1:
            connector["count"] = live.get("total", sum(live[k] for k in _COUNTS))
            connector["free"] = live["available"]


def _connectors_text(connectors: list[dict[str, Any]]) -> str:
    parts = []
    for c in connectors:
        power = f" {c['power_kw']:g} kW" if c["power_kw"] is not None else ""
        count = f" ×{c['count']}" if "count" in c else ""
        parts.append(f"{c['type']}{power}{count}")
    return ", ".join(parts)


# --- Long Distance EV routes ---------------------------------------------------------


def ev_route(
    raw: RawBody,
    locations: list[list[float]],
    battery: dict[str, float],
    show_ui: bool,
    budget: int,
    image: ImageRequest | None = None,
) -> Prepared:
    """`tomtom-ev-routing`: the route, its charging stops and the battery along it."""
    dropped = Dropped()
    route = routes_of(raw, dropped)[0]
    legs = route.get("legs") or []
    summary = obj(route.get("summary"))
    drive = route_answer(route, 0)
    drive.pop("legs", None)
    charging_s = int(number(summary.get("totalChargingTimeInSeconds")) or 0)
    answer: dict[str, Any] = {
        "length_km": drive.get("length_km"),
        "total_time": drive.get("travel_time"),
        "total_time_s": drive.get("travel_time_s"),
        "charging_time": _minutes(charging_s),
        "charging_time_s": charging_s,
        "stops_for_charging": 0,
        "departure_charge_kwh": battery["currentChargeInkWh"],
        "arrival_charge_kwh": number(summary.get("remainingChargeAtArrivalInkWh")),
        "battery_used_kwh": number(summary.get("batteryConsumptionInkWh")),
        "charging_stops": [],
    }
    for src in ("arrival", "departure", "traffic_delay_s", "instructions"):
        if src in drive:
            answer[src] = drive[src]
    features: list[dict[str, Any]] = []
    stops: list[dict[str, Any]] = []
    driven = 0.0
    for n, leg in enumerate(legs):
        leg_summary = obj(leg.get("summary"))
        driven += (number(leg_summary.get("lengthInMeters")) or 0) / 1000
        info = leg_summary.get("chargingInformationAtEndOfLeg")
        if not isinstance(info, dict):
            continue
        connection = obj(info.get("chargingConnectionInfo"))
        power = number(connection.get("chargingPowerInkW"))
        stop = {
            "stop": len(stops) + 1,
            "name": text(info.get("chargingParkName")) or "Charging stop",
            "operator": text(info.get("chargingParkOperatorName")),
            "after_km": round(driven, 1),
            "arrival_charge_kwh": number(leg_summary.get("remainingChargeAtArrivalInkWh")),
            "departure_charge_kwh": number(info.get("targetChargeInkWh")),
            "charging_minutes": round((number(info.get("chargingTimeInSeconds")) or 0) / 60),
            "power_kw": power or number(info.get("chargingParkPowerInkW")),
            "plug": text(connection.get("chargingPlugType")),
        }
        stops.append({k: v for k, v in stop.items() if v is not None})
        end = _leg_end(leg) if show_ui or image is not None else None
        if end is not None:
            detail = (
                f"Arrive {stop.get('arrival_charge_kwh', '?')} kWh, leave "
                f"{stop.get('departure_charge_kwh', '?')} kWh after {stop['charging_minutes']} min"
            )
            properties = {
                "kind": "charging_stop",
                "name": stop["name"],
                "label": f"Charging stop {stop['stop']}",
                "category": f"{stop.get('power_kw', '?')} kW",
                "detail": detail,
                "leg": n,
            }
            features.append(point_feature(end, properties))
    answer["charging_stops"] = stops
    answer["stops_for_charging"] = len(stops)
    if not stops:
        answer["note"] = "No charging stop is needed: the battery reaches the destination."
    data = None
    if show_ui or image is not None:
        drawn = [route_feature(route, 0), *waypoint_features(locations), *features]
        data = collection(drawn, summary={"charging_stops": len(stops)})
    return prepare(EV_ROUTING, dropped.report(answer), data, show_ui, budget, image)


def _leg_end(leg: dict[str, Any]) -> list[float] | None:
    points = leg.get("points")
    if points is None or len(points) == 0:
        return None
    last = points[-1]
    if isinstance(last, dict):
        return [float(last["longitude"]), float(last["latitude"])]
    return [float(last[0]), float(last[1])]


def _minutes(seconds: int) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
