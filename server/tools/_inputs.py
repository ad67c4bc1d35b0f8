"""Every tool's input types, in one place: positions, route options, search filters, map
shapes, bounding boxes, the data-viz input.

Validation lives in the types, so every tool names the argument and what is wrong with it
alike; the vehicles are `_vehicle.py`'s and `_ev_vehicle.py`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from tomtom_mcp_apps.fitting.geo import M_PER_DEG_LON_EQUATOR
from tomtom_mcp_apps.server.tools._vehicle import Vehicle

# --- positions, and what every tool takes -----------------------------------------------------


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
    name the axes, so the order cannot be mistaken. A position of any other shape is
    refused here, in words about positions rather than about lists."""
    if isinstance(value, dict):
        if set(value) != {"lat", "lon"}:
            keys = ", ".join(sorted(map(str, value))[:4]) or "none"
            raise ValueError(
                f"a position is [lon, lat] or {{lat, lon}}; this object has keys {keys}"
            )
        return [value["lon"], value["lat"]]
    if isinstance(value, list | tuple) and len(value) != 2:
        raise ValueError(f"a position is two numbers, [lon, lat]; got {len(value)}")
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

# --- route options ----------------------------------------------------------------------------

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


def _check_time(value: str | None) -> str | None:
    if value is None or value == "now":
        return value
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an ISO 8601 date-time such as '2026-06-24T14:30:00Z' (or 'now')"
        ) from None
    return value


When = Annotated[str | None, AfterValidator(_check_time)]
DepartAt = Annotated[
    When,
    Field(description="Departure time, ISO 8601 ('2026-06-24T14:30:00+02:00') or 'now'"),
]
ArriveAt = Annotated[When, Field(description="Arrival time, ISO 8601; not together with departAt")]
RouteTypeParam = Annotated[
    RouteType,
    Field(
        description=(
            "'fastest' (least time), 'shortest' (least distance), 'short' (short but quick), "
            "'eco' (economical), 'thrilling' (winding roads); 'fast' and 'efficient' also accepted"
        )
    ),
]
TravelModeParam = Annotated[
    TravelMode,
    Field(
        description=(
            "car, truck, taxi, bus, van, motorcycle, bicycle or pedestrian; with truck, give "
            "the truck's dimensions, weights and cargo (vehicleHeight, vehicleLoadType...)"
        )
    ),
]
TrafficParam = Annotated[
    TrafficMode,
    Field(description="'live' uses current traffic; 'historical' ignores live incidents"),
]
MatrixAvoid = Annotated[
    list[Literal["tollRoads", "unpavedRoads"]] | None,
    Field(max_length=2, description="Road features Matrix Routing avoids: tollRoads, unpavedRoads"),
]
AvoidParam = Annotated[
    list[Avoid] | None, Field(max_length=10, description="Road features to avoid")
]

# --- search -----------------------------------------------------------------------------------

Query = Annotated[
    str,
    Field(min_length=1, max_length=500, description="What to look for, in free text"),
]
Limit = Annotated[int, Field(ge=1, le=100, description="Maximum number of results (1-100)")]
CountrySet = Annotated[
    str | None,
    Field(
        pattern=r"^[A-Za-z]{2,3}(,[A-Za-z]{2,3})*$",
        description="Restrict to countries, comma-separated ISO codes, e.g. 'NL' or 'FR,BE'",
    ),
]
Bias = Annotated[
    Position | None,
    Field(description="Bias results towards this [longitude, latitude] (optional)"),
]
Radius = Annotated[
    int | None,
    Field(ge=1, le=50_000, description="With a position: search radius in metres (1-50,000)"),
]
CategorySet = Annotated[
    str | None,
    Field(
        pattern=r"^\d+(,\d+)*$",
        description=(
            "Comma-separated TomTom POI category ids, e.g. '7315' restaurant, '7311' petrol "
            "station, '7309' EV charging, '7314' hotel, '9376' cafe/pub, '7321' hospital"
        ),
    ),
]

# --- map shapes: markers, routes to draw, areas -----------------------------------------------

Color = Annotated[
    str | None,
    Field(
        pattern=r"^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{8}|[a-zA-Z]{3,20})$",
        description="CSS colour: '#e33', '#0066cc' or a name such as 'red'",
    ),
]
Label = Annotated[str | None, Field(max_length=100, description="Text shown on the map")]


class Marker(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: Position
    label: Label = None
    color: Color = None


class MapRoute(Vehicle):
    """A route to calculate: its stops, label, colour, mode and (for trucks) the vehicle."""

    model_config = ConfigDict(extra="forbid")
    locations: Locations
    label: Label = None
    color: Color = None
    routeType: RouteType = "fastest"
    travelMode: TravelMode = "car"


class Area(BaseModel):
    """A polygon (`coordinates`, one ring) or a circle (`center` and `radius`)."""

    model_config = ConfigDict(extra="forbid")
    coordinates: Annotated[
        list[Position] | None,
        Field(
            min_length=3,
            max_length=5000,
            description="Polygon ring as [longitude, latitude] positions (closed automatically)",
        ),
    ] = None
    center: Annotated[Position | None, Field(description="Circle centre [longitude, latitude]")] = (
        None
    )
    radius: Annotated[
        float | None, Field(gt=0, le=1_000_000, description="Circle radius in metres")
    ] = None
    label: Label = None
    color: Color = None

    @model_validator(mode="after")
    def _one_shape(self) -> Area:
        polygon = self.coordinates is not None
        circle = self.center is not None or self.radius is not None
        if polygon == circle:
            raise ValueError("give either coordinates (a polygon) or center and radius (a circle)")
        if circle and (self.center is None or self.radius is None):
            raise ValueError("a circle needs both center and radius")
        return self


MAX_AREAS = 20
"""Areas one area search takes."""


class Corner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lat: Annotated[float, Field(ge=-90, le=90)]
    lon: Annotated[float, Field(ge=-180, le=180)]


class BoundingBox(BaseModel):
    """TomTom MCP's rectangle: its top-left and bottom-right corners."""

    model_config = ConfigDict(extra="forbid")
    topLeft: Corner
    bottomRight: Corner


# --- traffic ----------------------------------------------------------------------------------

MAX_AREA_KM2 = 10_000
"""TomTom's limit on the incidentDetails bounding box."""


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
    km_per_deg = M_PER_DEG_LON_EQUATOR / 1000
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


# --- EV search --------------------------------------------------------------------------------

ConnectorType = Literal[
    "StandardHouseholdCountrySpecific",
    "IEC62196Type1",
    "IEC62196Type1CCS",
    "IEC62196Type2CableAttached",
    "IEC62196Type2Outlet",
    "IEC62196Type2CCS",
    "IEC62196Type3",
    "Chademo",
    "GBT20234Part2",
    "GBT20234Part3",
    "IEC60309AC3PhaseRed",
    "IEC60309AC1PhaseBlue",
    "IEC60309DCWhite",
    "Tesla",
]


# --- data viz ---------------------------------------------------------------------------------

MAX_LAYERS = 10
_PAINT_PREFIX = {
    "fill": ("fill-",),
    "line": ("line-",),
    "circle": ("circle-",),
    "heatmap": ("heatmap-",),
    "symbol": ("text-", "icon-"),
}


class Layer(BaseModel):
    """One MapLibre layer over the data."""

    model_config = ConfigDict(extra="forbid")
    type: Annotated[
        Literal["fill", "line", "circle", "heatmap", "symbol"],
        Field(
            description="fill (polygons), line, circle (points), heatmap (points), symbol "
            "(text labels)"
        ),
    ]
    paint: Annotated[
        dict[str, Any] | None,
        Field(
            description="MapLibre paint properties of this type, e.g. {'circle-color': "
            "'#e33', 'circle-radius': 6} or {'fill-opacity': 0.4}"
        ),
    ] = None
    filter: Annotated[
        list[Any] | None,
        Field(description="MapLibre filter expression, e.g. ['==', ['get', 'kind'], 'park']"),
    ] = None
    label: Annotated[
        str | None,
        Field(
            max_length=100,
            description="Feature property shown as text (symbol) or in the popup, e.g. 'name'",
        ),
    ] = None
    name: Annotated[str | None, Field(max_length=100, description="Legend entry")] = None
    color: Annotated[
        str | None, Field(max_length=50, description="Shorthand for the layer's main colour")
    ] = None
    opacity: Annotated[float | None, Field(ge=0, le=1, description="Shorthand opacity")] = None
    radius: Annotated[
        float | None, Field(gt=0, le=200, description="Circle or heatmap radius in pixels")
    ] = None
    width: Annotated[float | None, Field(gt=0, le=50, description="Line width in pixels")] = None
    minzoom: Annotated[float | None, Field(ge=0, le=24)] = None
    maxzoom: Annotated[float | None, Field(ge=0, le=24)] = None

    @model_validator(mode="after")
    def _paint_matches_type(self) -> Layer:
        prefixes = _PAINT_PREFIX[self.type]
        for name in self.paint or {}:
            if not name.startswith(prefixes):
                raise ValueError(
                    f"paint property {name!r} does not apply to a {self.type} layer "
                    f"(expected names starting with {' or '.join(prefixes)})"
                )
        if self.type == "symbol" and not self.label:
            raise ValueError("a symbol layer needs label: the property whose text it shows")
        return self


GeoJsonInput = Annotated[
    dict[str, Any] | str | None,
    Field(
        description="Inline GeoJSON: a FeatureCollection, Feature or geometry (object or "
        "JSON text). Not together with data_url."
    ),
]
DataUrl = Annotated[
    str | None,
    Field(
        max_length=2048,
        description="Public http(s) URL of a GeoJSON file. Not together with geojson.",
    ),
]
Layers = Annotated[
    list[Layer] | None,
    Field(
        max_length=MAX_LAYERS,
        description="Up to 10 layers, drawn in order. Default: one "
        "circle, line or fill layer per geometry kind.",
    ),
]
Title = Annotated[str | None, Field(max_length=200, description="Title shown on the map")]


class DataVizArgs(BaseModel):
    """The data-viz tool input, validated the same way whoever sends it."""

    model_config = ConfigDict(extra="ignore")
    data_url: DataUrl = None
    geojson: GeoJsonInput = None
    layers: Layers = None
    title: Title = None

    @field_validator("geojson", mode="before")
    @classmethod
    def _parse_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"geojson text is not valid JSON: {exc}") from None
        return value

    @model_validator(mode="after")
    def _one_source(self) -> DataVizArgs:
        if (self.data_url is None) == (self.geojson is None):
            raise ValueError("give exactly one of data_url or geojson")
        return self


class PageRange(BaseModel):
    """One page of a data-viz plan, as the plan gave it: features `from` to `to` (excluded)
    of the data whose digest the plan names."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    start: Annotated[int, Field(alias="from", ge=0, description="The page's first feature")]
    stop: Annotated[int, Field(alias="to", ge=1, description="The feature after the page")]
    digest: Annotated[str, Field(max_length=64, description="The plan's digest of the data")]


class ByteSpan(BaseModel):
    """Where a page's features lie in the file at `data_url`, as the plan gave it: bytes
    `from` to `to` (excluded) and their CRC-32; fields a later release adds are ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    start: Annotated[int, Field(alias="from", ge=0, description="The page's first byte")]
    stop: Annotated[int, Field(alias="to", ge=1, description="The byte after the page")]
    crc32: Annotated[
        str, Field(pattern=r"^[0-9a-f]{8}$", description="The CRC-32 of those bytes, in hex")
    ]


# --- many places: batch geocoding, traces, long jobs ---------------------------------------

MAX_BATCH_ROWS = 10_000
"""Rows one batch takes: TomTom's asynchronous Batch Search limit."""

Addresses = Annotated[
    list[Annotated[str, Field(max_length=500)]] | None,
    Field(
        max_length=MAX_BATCH_ROWS,
        description=(
            "The addresses to geocode, one per row, in order (at most 10,000). Not together "
            "with data_url."
        ),
    ),
]
RowsUrl = Annotated[
    str | None,
    Field(
        max_length=2048,
        description=(
            "Public http(s) URL of a CSV or text file of addresses (one per line, or a "
            "column: see column and header). Not together with addresses."
        ),
    ),
]
ColumnName = Annotated[str | int, Field(description="A column's header name, or its number from 1")]
Column = Annotated[
    ColumnName | list[ColumnName] | None,
    Field(
        description=(
            "With a CSV data_url: the column holding the address (header name, or number "
            "from 1), or several to join with ', ' (e.g. ['street', 'city', 'postcode']). "
            "Default: the column whose header says address, else one address per line."
        ),
    ),
]
Header = Annotated[
    bool | None,
    Field(
        description=(
            "With data_url: whether the first line names the columns. Default: true when "
            "column is a name, else false."
        )
    ),
]

TraceVehicle = Literal["PassengerCar", "Truck", "Bus", "Van", "Motorcycle", "Taxi"]


class TracePoint(BaseModel):
    """One GPS fix of a trace."""

    model_config = ConfigDict(extra="forbid")
    position: Position
    timestamp: Annotated[
        str | float | None,
        Field(description="When it was recorded: ISO 8601 (2024-05-01T08:30:00Z) or unix seconds"),
    ] = None
    heading: Annotated[
        float | None, Field(ge=0, le=360, description="Direction of travel, degrees from north")
    ] = None


TracePoints = Annotated[
    list[TracePoint] | None,
    Field(
        min_length=2,
        description=(
            "The trace, in the order recorded: [{position: [lon, lat], timestamp?, heading?}]. "
            "Or give data_url, gpx or geojson instead."
        ),
    ),
]
TraceUrl = Annotated[
    str | None,
    Field(max_length=2048, description="Public http(s) URL of a GPX or GeoJSON trace"),
]
Gpx = Annotated[
    str | None,
    Field(max_length=4_000_000, description="Inline GPX text (trkpt with time and course)"),
]
TraceGeoJson = Annotated[
    dict[str, Any] | str | None,
    Field(
        description=(
            "Inline GeoJSON: Point features in order (time/timestamp, heading properties) or a "
            "LineString (coordTimes)"
        )
    ),
]
JobHandle = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1500,
        description="The job a tool answered with (its 'job' value), exactly as given",
    ),
]


class RowsPage(BaseModel):
    """Rows `from` + 1 to `to` of a finished batch, as its page plan gave them."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    start: Annotated[int, Field(alias="from", ge=0, description="Rows before the page")]
    stop: Annotated[int, Field(alias="to", ge=1, description="The page's last row")]


# --- plans of many stops ----------------------------------------------------------------------


def _offset_time(value: Any) -> Any:
    """An ISO 8601 date-time that names its UTC offset (`Z` or `+02:00`)."""
    if not isinstance(value, str):
        raise ValueError(
            "a time is an ISO 8601 date-time with an offset, e.g. '2026-06-24T09:00:00+02:00'"
        )
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{value[:40]!r} is not an ISO 8601 date-time such as '2026-06-24T09:00:00+02:00'"
        ) from None
    if when.tzinfo is None:
        raise ValueError(f"{value[:40]!r} has no UTC offset: add one, e.g. '+02:00' or 'Z'")
    return value


OffsetTime = Annotated[
    str,
    BeforeValidator(_offset_time),
    Field(description="ISO 8601 date-time with its UTC offset, e.g. '2026-06-24T09:00:00+02:00'"),
]


class TimeSpan(BaseModel):
    """From `start` to `end`, both with an offset; `end` may not be before `start`."""

    model_config = ConfigDict(extra="forbid")
    start: OffsetTime
    end: OffsetTime

    @model_validator(mode="after")
    def _ordered(self) -> TimeSpan:
        if datetime.fromisoformat(self.end) < datetime.fromisoformat(self.start):
            raise ValueError(f"ends ({self.end}) before it starts ({self.start})")
        return self


class StopInput(BaseModel):
    """A stop to serve."""

    model_config = ConfigDict(extra="forbid")
    position: Position
    serviceMinutes: float = Field(0, ge=0, le=24 * 60, description="Minutes spent at the stop")
    timeWindow: TimeSpan | None = Field(
        None, description="When service may start: {start, end}, ISO 8601 with offsets"
    )
    demand: int = Field(0, ge=0, le=1_000_000, description="Units delivered (against capacity)")
    optional: bool = Field(
        False, description="May be left out when not every stop fits (others come first)"
    )


class VehicleInput(BaseModel):
    """A vehicle of the fleet."""

    model_config = ConfigDict(extra="forbid")
    start: Position
    end: Position | None = Field(
        None, description="Where it must finish; default: back at its start"
    )
    shift: TimeSpan | None = Field(
        None, description="When it may work: {start, end}, ISO 8601 with offsets"
    )
    capacity: int | None = Field(None, ge=0, le=1_000_000, description="Units it can carry")
