"""`tomtom-traffic`: traffic incidents in a bounding box.

The model reads the worst `maxIncidents` as text; the widget gets every incident
as app data (ADR 0048): a FeatureCollection of `kind: "incident"` features with
TomTom's geometry (lines as e5 deltas, like every line) and compact properties
(category and magnitude codes, delay, from/to, roads, times), plus the requested
`area` and the `count`. It draws them over TomTom's live flow tiles when a key
exists. The `bbox` is a list `[minLon, minLat, maxLon, maxLat]`, or the TomTom MCP
server's `'minLon,minLat,maxLon,maxLat'` text, normalised here.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import BeforeValidator, Field

from server.runtime import Runtime
from server.tool_names import TRAFFIC
from server.tools._delivery import deliver
from server.tools._inputs import Language, ShowUi, caller_key, model_tool
from widgets import TRAFFIC_URI

MAX_AREA_KM2 = 10_000
"""TomTom's limit on the incidentDetails bounding box."""

_FIELDS = (
    "{incidents{type,geometry{type,coordinates},properties{id,iconCategory,magnitudeOfDelay,"
    "events{description,code},startTime,endTime,from,to,length,delay,roadNumbers,timeValidity}}}"
)
_CATEGORIES = {
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
_MAGNITUDES = {0: "unknown", 1: "minor", 2: "moderate", 3: "major", 4: "undefined"}


def _bbox(value: Any) -> Any:
    """Accept `[w, s, e, n]` or `'w,s,e,n'` and check it is a sensible, small enough box."""
    if isinstance(value, str):
        try:
            value = [float(part) for part in value.split(",")]
        except ValueError:
            raise ValueError(f"bbox {value!r} is not 'minLon,minLat,maxLon,maxLat'") from None
    if not isinstance(value, list | tuple) or len(value) != 4:
        raise ValueError("bbox needs four numbers: [minLon, minLat, maxLon, maxLat]")
    west, south, east, north = (float(v) for v in value)
    for name, lon in (("minLon", west), ("maxLon", east)):
        if not -180 <= lon <= 180:
            raise ValueError(f"bbox {name} {lon} is outside [-180, 180]")
    for name, lat in (("minLat", south), ("maxLat", north)):
        if not -90 <= lat <= 90:
            raise ValueError(f"bbox {name} {lat} is outside [-90, 90]")
    if west >= east or south >= north:
        raise ValueError("bbox must be [minLon, minLat, maxLon, maxLat] with min < max")
    area = _area_km2(west, south, east, north)
    if area > MAX_AREA_KM2:
        raise ValueError(
            f"bbox covers about {area:,.0f} km²; TomTom allows at most {MAX_AREA_KM2:,} km². "
            "Zoom in to a city or a stretch of road."
        )
    return [west, south, east, north]


def _area_km2(west: float, south: float, east: float, north: float) -> float:
    km_per_deg = 111.32
    mid = math.radians((south + north) / 2)
    return (east - west) * km_per_deg * math.cos(mid) * (north - south) * km_per_deg


BBox = Annotated[
    list[float] | str,
    BeforeValidator(_bbox),
    Field(
        description=(
            "Area as [minLon, minLat, maxLon, maxLat] (or the text 'minLon,minLat,maxLon,maxLat'),"
            f" at most {MAX_AREA_KM2:,} km². Example: [4.85, 52.34, 4.95, 52.40] for Amsterdam"
        )
    ),
]


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-traffic` to `apps`."""

    @model_tool(
        apps,
        TRAFFIC_URI,
        name=TRAFFIC,
        title="Traffic incidents",
        description=(
            "Current traffic incidents (jams, accidents, closures, road works) in a bounding "
            "box, worst first, with roads, delays and descriptions. The map draws every "
            "incident over live traffic flow."
        ),
    )
    async def traffic(
        bbox: BBox,
        ctx: Context,
        maxIncidents: Annotated[
            int, Field(ge=1, le=100, description="Incidents to describe, worst first (1-100)")
        ] = 20,
        categoryFilter: Annotated[
            list[int] | None,
            Field(
                max_length=14,
                description=(
                    "Only these incident categories: 0 unknown, 1 accident, 2 fog, 3 dangerous "
                    "conditions, 4 rain, 5 ice, 6 jam, 7 lane closed, 8 road closed, 9 road "
                    "works, 10 wind, 11 flooding, 14 broken-down vehicle"
                ),
            ),
        ] = None,
        timeValidityFilter: Annotated[
            list[Literal["present", "future"]] | None,
            Field(max_length=2, description="'present' (default), 'future' (planned) or both"),
        ] = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        params: list[tuple[str, Any]] = [("fields", _FIELDS)]
        if categoryFilter:
            unknown = sorted(set(categoryFilter) - set(_CATEGORIES))
            if unknown:
                raise ToolError(f"categoryFilter: unknown incident categories {unknown}")
            params.append(("categoryFilter", ",".join(map(str, sorted(set(categoryFilter))))))
        if timeValidityFilter:
            params.append(("timeValidityFilter", ",".join(dict.fromkeys(timeValidityFilter))))
        if language:
            params.append(("language", language))
        key = caller_key(ctx)
        body = await runtime.tomtom.incident_details(bbox, key=key, params=params)
        raw = [i for i in body.get("incidents") or [] if isinstance(i, dict)]
        incidents = [_incident(i.get("properties") or {}) for i in raw]
        order = sorted(
            range(len(raw)), key=lambda k: (-_severity(incidents[k]), -_delay(incidents[k]))
        )
        incidents = [incidents[k] for k in order]
        answer: dict[str, Any] = {
            "bbox": [round(v, 5) for v in bbox],
            "count": len(incidents),
            "incidents": incidents[:maxIncidents],
        }
        if len(incidents) > maxIncidents:
            answer["incidents_omitted"] = len(incidents) - maxIncidents
        if not incidents:
            answer["note"] = "No incidents reported in this area."
        data = incident_collection([raw[k] for k in order], bbox)
        return await deliver(
            runtime,
            tool=TRAFFIC,
            answer=answer,
            data=data,
            show_ui=show_ui,
            offline=runtime.tomtom.serves_offline(key),
        )


def _incident(props: dict[str, Any]) -> dict[str, Any]:
    events = props.get("events") or []
    out: dict[str, Any] = {
        "category": _CATEGORIES.get(props.get("iconCategory", 0), "unknown"),
        "magnitude": _MAGNITUDES.get(props.get("magnitudeOfDelay", 0), "unknown"),
        "description": "; ".join(e["description"] for e in events if e.get("description")),
    }
    for src, dst in (
        ("roadNumbers", "roads"),
        ("from", "from"),
        ("to", "to"),
        ("delay", "delay_s"),
        ("length", "length_m"),
        ("startTime", "start"),
        ("endTime", "end"),
        ("id", "id"),
    ):
        value = props.get(src)
        if value not in (None, [], ""):
            out[dst] = round(value) if src == "length" else value
    return out


def incident_collection(incidents: list[dict[str, Any]], bbox: list[float]) -> dict[str, Any]:
    """The widget's data: every incident with a usable geometry, worst first, in the `area`."""
    features = []
    for incident in incidents:
        geometry = _geometry(incident.get("geometry"))
        if geometry is None:
            continue
        props = incident.get("properties") or {}
        out: dict[str, Any] = {
            "kind": "incident",
            "category": _int(props.get("iconCategory")),
            "magnitude": _int(props.get("magnitudeOfDelay")),
        }
        events = [e.get("description") for e in props.get("events") or [] if isinstance(e, dict)]
        if any(isinstance(e, str) and e for e in events):
            out["description"] = "; ".join(e for e in events if isinstance(e, str) and e)[:300]
        for src, dst in (("delay", "delay_s"), ("length", "length_m")):
            if isinstance(props.get(src), int | float) and math.isfinite(props[src]):
                out[dst] = round(props[src])
        for src, dst in (("from", "from"), ("to", "to"), ("startTime", "start"),
                         ("endTime", "end"), ("id", "id")):  # fmt: skip
            if isinstance(props.get(src), str) and props[src]:
                out[dst] = props[src][:200]
        roads = [r for r in props.get("roadNumbers") or [] if isinstance(r, str)]
        if roads:
            out["roads"] = roads[:5]
        features.append({"type": "Feature", "geometry": geometry, "properties": out})
    return {
        "type": "FeatureCollection",
        "features": features,
        "area": [round(v, 6) for v in bbox],
        "count": len(incidents),
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
    distinct = {tuple(p) for p in positions}
    if not positions:
        return None
    if len(distinct) == 1:
        return {"type": "Point", "coordinates": positions[0]}
    return {"type": "LineString", "coordinates": positions}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _delay(incident: dict[str, Any]) -> float:
    delay = incident.get("delay_s")
    return delay if isinstance(delay, int | float) else 0


def _severity(incident: dict[str, Any]) -> int:
    order = {"major": 4, "undefined": 3, "moderate": 2, "minor": 1}
    return order.get(incident["magnitude"], 0)
