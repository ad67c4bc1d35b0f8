"""Parameter types shared by the tools: validated positions, `show_ui`, the caller's key.

Validation lives in the types so that every tool reports a bad input the same
way, naming the argument and what is wrong with it (pydantic prefixes the
path, e.g. `locations.1`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import AfterValidator, BeforeValidator, Field

KEY_HEADER = "tomtom-api-key"
_F = TypeVar("_F", bound=Callable[..., Any])

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=True, idempotent_hint=True)
"""Every TomTom tool reads from TomTom and changes nothing."""


def model_tool(apps: Apps, view: str, **kwargs: Any) -> Callable[[_F], _F]:
    """`apps.tool` for a model-visible TomTom tool shown in `view`: linked for MCP Apps hosts
    (`_meta.ui.resourceUri`) and for older ChatGPT builds (`openai/outputTemplate`)."""
    return apps.tool(
        resource_uri=view, meta={"openai/outputTemplate": view}, annotations=READ_ONLY, **kwargs
    )


def check_position(value: Sequence[float]) -> list[float]:
    """A `[lon, lat]` pair inside the WGS84 ranges, or a ValueError saying which is off."""
    lon, lat = value
    if not (math.isfinite(lon) and -180 <= lon <= 180):
        raise ValueError(f"longitude {lon} is outside [-180, 180] (positions are [lon, lat])")
    if not (math.isfinite(lat) and -90 <= lat <= 90):
        raise ValueError(f"latitude {lat} is outside [-90, 90] (positions are [lon, lat])")
    return [float(lon), float(lat)]


def _from_object(value: Any) -> Any:
    """`{"lat": .., "lon": ..}` (TomTom's own MCP server's form) as `[lon, lat]`: the keys
    name the axes, so the order cannot be mistaken."""
    if isinstance(value, dict) and set(value) == {"lat", "lon"}:
        return [value["lon"], value["lat"]]
    return value


Position = Annotated[
    list[float],
    BeforeValidator(_from_object),
    Field(
        min_length=2,
        max_length=2,
        description="[longitude, latitude] in degrees (GeoJSON order), e.g. [4.8897, 52.3740]",
    ),
    AfterValidator(check_position),
]
"""A plain two-number array in the schema (no `prefixItems`, which some hosts do not read)."""

Locations = Annotated[
    list[Position],
    Field(
        min_length=2,
        max_length=150,
        description=(
            "Route stops in order, origin first and destination last, each [longitude, latitude]: "
            "at least 2, at most 150. Example: [[4.8897, 52.3740], [13.4050, 52.5200]]"
        ),
    ),
]

ShowUi = Annotated[
    bool,
    Field(
        description=(
            "Show the interactive map widget. Set false for intermediate steps (e.g. geocoding "
            "before routing): no map data is sent. Default true."
        )
    ),
]

Language = Annotated[
    str | None,
    Field(
        max_length=20,
        pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
        description="IETF language tag for names and messages, e.g. 'en-GB', 'de-DE'",
    ),
]

_ROUTE_TYPE_ALIASES = {"fast": "fastest", "efficient": "eco"}


def _route_type(value: Any) -> Any:
    """The TomTom MCP server's Orbis names (`fast`, `efficient`) mapped to Routing API v1's."""
    return _ROUTE_TYPE_ALIASES.get(value, value) if isinstance(value, str) else value


RouteType = Annotated[
    Literal["fastest", "shortest", "short", "eco", "thrilling"], BeforeValidator(_route_type)
]
TravelMode = Literal["car", "truck", "taxi", "bus", "van", "motorcycle", "bicycle", "pedestrian"]
TrafficMode = Literal["live", "historical"]
Avoid = Literal[
    "tollRoads",
    "motorways",
    "ferries",
    "unpavedRoads",
    "carpools",
    "alreadyUsedRoads",
    "borderCrossings",
    "tunnels",
    "carTrains",
    "lowEmissionZones",
]
_SECTION_TYPES = (
    "carTrain",
    "country",
    "ferry",
    "motorway",
    "pedestrian",
    "tollRoad",
    "tollVignette",
    "traffic",
    "travelMode",
    "tunnel",
    "carpool",
    "urban",
    "unpaved",
    "lowEmissionZone",
    "roadShields",
    "handsFreeDriving",
)
_SECTION_ALIASES = {name.lower(): name for name in _SECTION_TYPES} | {
    "toll": "tollRoad",
    "tollroads": "tollRoad",
    "travel_mode": "travelMode",
}


def _section_type(value: Any) -> Any:
    """TomTom's section names, also accepted in lower or snake case (`toll_road`), or `toll`."""
    if isinstance(value, str):
        folded = value.strip().lower()
        return _SECTION_ALIASES.get(folded, _SECTION_ALIASES.get(folded.replace("_", ""), value))
    return value


SectionType = Annotated[Literal[_SECTION_TYPES], BeforeValidator(_section_type)]  # type: ignore[valid-type]


def caller_key(ctx: Context[Any, Any]) -> str | None:
    """The caller's TomTom key from the `tomtom-api-key` header, if the transport has headers."""
    try:
        headers = ctx.headers
    except ValueError:  # called outside a request (direct calls in tests)
        return None
    if not headers:
        return None
    key = headers.get(KEY_HEADER)
    return key.strip() or None if key else None
