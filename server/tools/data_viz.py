"""`tomtom-data-viz`: the caller's GeoJSON (by `data_url` or inline) drawn in styled layers.

The data is validated and summarised but never altered: the widget draws it
exactly as given. When it does not fit in the tool result, the widget fetches
it with `tomtom-get-app-data`, which runs it again from the same tool input
(app_only.py), validated by the same `DataVizArgs`; parsing, validation and
encoding are `server.jobs`' (`_data_viz.py`).

Layers (docs/adr/0022-data-viz-layers.md): up to 10, each
`{"type": "fill"|"line"|"circle"|"heatmap"|"symbol", "paint"?, "filter"?, "label"?, ...}`
where `paint` holds MapLibre paint properties of that layer type, `filter` a
MapLibre filter expression, and `label` a feature property shown as text (symbol)
or in the popup; `name`, `color`, `opacity`, `radius`, `width`, `minzoom` and
`maxzoom` are shorthands the widget applies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import orjson
from mcp.server.apps import Apps
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from server import jobs
from server.downloads import download
from server.jobs import Prepared
from server.runtime import Runtime
from server.tool_names import DATA_VIZ
from server.tools._delivery import deliver_job
from server.tools._inputs import ShowUi, model_tool
from widgets import DATA_VIZ_URI

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


async def geojson_text(runtime: Runtime, args: DataVizArgs) -> tuple[str, bytes]:
    """("data_url" or "inline", the GeoJSON as JSON text): downloaded, or the inline value
    written back to text, so that it crosses to a fitting worker as bytes."""
    if args.data_url is not None:
        return "data_url", await download(runtime.downloads, args.data_url, runtime.settings)
    return "inline", orjson.dumps(args.geojson)


async def deliver_data_viz(
    runtime: Runtime, tool: str, args: DataVizArgs, job: Callable[..., Prepared], *extra: Any
) -> CallToolResult:
    """`job` (`jobs.data_viz` or `jobs.data_viz_page`) over the data of `args`, in a fitting
    worker when the GeoJSON is large."""
    source, text = await geojson_text(runtime, args)
    layers = [layer.model_dump(exclude_none=True) for layer in args.layers or ()] or None
    return await deliver_job(
        runtime,
        tool,
        runtime.placement.for_bytes(len(text)),
        job,
        source,
        text,
        layers,
        args.title,
        *extra,
        runtime.settings.budget,
        offline=False,  # the caller's own data: never TomTom's, never offline demo data
    )


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-data-viz` to `apps`."""

    @model_tool(
        apps,
        DATA_VIZ_URI,
        name=DATA_VIZ,
        title="Map of your GeoJSON",
        description=(
            "Draw the user's GeoJSON on an interactive map: give data_url (a public http(s) "
            "GeoJSON file) or geojson (inline), optional layers (fill, line, circle, heatmap, "
            "symbol with MapLibre paint and filter) and a title. The data is shown as given; "
            "the answer summarises features, geometry types, extent and property names."
        ),
    )
    async def data_viz(
        data_url: DataUrl = None,
        geojson: GeoJsonInput = None,
        layers: Layers = None,
        title: Title = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        try:
            args = DataVizArgs(data_url=data_url, geojson=geojson, layers=layers, title=title)
        except ValueError as exc:
            raise ToolError(first_error(exc)) from None
        return await deliver_data_viz(runtime, DATA_VIZ, args, jobs.data_viz, show_ui)


def first_error(exc: ValueError) -> str:
    """A pydantic ValidationError's first message, without pydantic's boilerplate."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    return str(exc)
