"""incidentDetails answers (Traffic API v5): the model's incident list and the view's features.

One pass reads each incident into the model's summary and the view's feature (the codes the
view styles by, bounded text, the checked geometry). An incident whose geometry is unusable
is still counted and described, only not drawn.
"""

from __future__ import annotations

import math
from typing import Any

from tomtom_mcp_apps.server.bodies import (
    Dropped,
    entries,
    integer,
    number,
    obj,
    required_list,
    text,
)

CATEGORIES = {
    0: "unknown",
    1: "accident",
    2: "fog",
    3: "dangerous conditions",
    4: "rain",
    5: "ice",
    6: "jam",
    7: "lane closed",
    8: "road closed",
    9: "road works",
    10: "wind",
    11: "flooding",
    14: "broken-down vehicle",
}
MAGNITUDES = {0: "unknown", 1: "minor", 2: "moderate", 3: "major", 4: "undefined"}
_SEVERITY = {"major": 4, "undefined": 3, "moderate": 2, "minor": 1}
_MAX_TEXT = 200
_MAX_DESCRIPTION = 300
_MAX_ROADS = 5

Incident = tuple[dict[str, Any], dict[str, Any]]
"""(TomTom's incident, its summary for the model)."""


def incidents_of(body: dict[str, Any], dropped: Dropped) -> list[Incident]:
    """Every incident of `body` with usable properties, worst first (magnitude, then delay);
    malformed entries are dropped and counted in `dropped`."""
    found = []
    for entry in entries(required_list(body, "incidents"), "incidents", dropped):
        properties = entry.get("properties")
        if isinstance(properties, dict):
            found.append((entry, incident_summary(properties)))
        else:
            dropped.add("incidents")
    found.sort(key=lambda pair: (-_SEVERITY.get(pair[1]["magnitude"], 0), -_delay(pair[1])))
    return found


def incident_summary(props: dict[str, Any]) -> dict[str, Any]:
    """One incident for the model, from TomTom's `properties`; a member of the wrong type
    is left out (the incident itself is kept)."""
    events = props.get("events") if isinstance(props.get("events"), list) else []
    descriptions = (text(obj(e).get("description")) for e in events)
    out: dict[str, Any] = {
        "category": CATEGORIES.get(integer(props.get("iconCategory")) or 0, "unknown"),
        "magnitude": MAGNITUDES.get(integer(props.get("magnitudeOfDelay")) or 0, "unknown"),
        "description": "; ".join(d for d in descriptions if d),
    }
    roads = props.get("roadNumbers")
    if isinstance(roads, list) and (names := [r for r in roads if isinstance(r, str)]):
        out["roads"] = names
    for src, dst in (("from", "from"), ("to", "to"), ("startTime", "start"), ("endTime", "end")):
        if value := text(props.get(src)):
            out[dst] = value
    delay, length = number(props.get("delay")), number(props.get("length"))
    if delay is not None:
        out["delay_s"] = round(delay)
    if length is not None:
        out["length_m"] = round(length)
    identifier = props.get("id")
    if (isinstance(identifier, str) and identifier) or integer(identifier) is not None:
        out["id"] = identifier
    return out


def incident_collection(found: list[Incident], bbox: list[float]) -> dict[str, Any]:
    """The view's data: every incident with a usable geometry, worst first, in the `area`;
    `count` is every incident found, drawn or not."""
    features = []
    for entry, summary in found:
        geometry = _geometry(entry.get("geometry"))
        if geometry is None:
            continue
        props = obj(entry.get("properties"))
        out: dict[str, Any] = {
            "kind": "incident",
            "category": integer(props.get("iconCategory")) or 0,
            "magnitude": integer(props.get("magnitudeOfDelay")) or 0,
        }
        if summary["description"]:
            out["description"] = summary["description"][:_MAX_DESCRIPTION]
        for key in ("delay_s", "length_m"):
            if key in summary:
                out[key] = summary[key]
        for key in ("from", "to", "start", "end"):
            if key in summary:
                out[key] = summary[key][:_MAX_TEXT]
        if isinstance(summary.get("id"), str):
            out["id"] = summary["id"][:_MAX_TEXT]
        if summary.get("roads"):
            out["roads"] = summary["roads"][:_MAX_ROADS]
        features.append({"type": "Feature", "geometry": geometry, "properties": out})
    return {
        "type": "FeatureCollection",
        "features": features,
        "area": [round(v, 6) for v in bbox],
        "count": len(found),
    }


def _geometry(geometry: Any) -> dict[str, Any] | None:
    """TomTom's Point or LineString `[lon, lat]` geometry, checked; a one-place line is a Point."""
    if not isinstance(geometry, dict):
        return None
    kind, coords = geometry.get("type"), geometry.get("coordinates")
    if kind == "Point":
        coords = [coords]
    elif kind != "LineString" or not isinstance(coords, list):
        return None
    positions = []
    for position in coords:
        if not (isinstance(position, list | tuple) and len(position) >= 2):
            return None
        lon, lat = position[0], position[1]
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in (lon, lat)):
            return None
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            return None
        positions.append([round(float(lon), 6), round(float(lat), 6)])
    if not positions:
        return None
    if len({tuple(p) for p in positions}) == 1:
        return {"type": "Point", "coordinates": positions[0]}
    return {"type": "LineString", "coordinates": positions}


def _delay(summary: dict[str, Any]) -> float:
    delay = summary.get("delay_s")
    return delay if isinstance(delay, int | float) else 0
