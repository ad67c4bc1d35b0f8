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

from mcp.server.apps import Apps
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from server.runtime import Runtime
from server.tool_names import DATA_VIZ
from server.tools._data_viz import deliver_data_viz
from server.tools._inputs import (
    DataUrl,
    DataVizArgs,
    GeoJsonInput,
    Layers,
    ShowUi,
    Title,
    first_error,
    model_tool,
)
from widgets import DATA_VIZ_URI


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
        return await deliver_data_viz(runtime, args, show_ui)
