"""`tomtom-data-viz`: the caller's GeoJSON (by `data_url` or inline) drawn in styled layers.

The data is validated and summarised but never altered: the widget draws it
exactly as given. When it does not fit in the tool result, the widget fetches
it with `tomtom-get-app-data`, which runs it again from the same tool input
(app_only.py), validated by the same `_inputs.DataVizArgs`, through the same
`_data_viz.py`; parsing, validation and encoding are `server.jobs`' (`_data_viz.py`).

Layers (docs/adr/0022-data-viz-layers.md): up to 10, each
`{"type": "fill"|"line"|"circle"|"heatmap"|"symbol", "paint"?, "filter"?, "label"?, ...}`
where `paint` holds MapLibre paint properties of that layer type, `filter` a
MapLibre filter expression, and `label` a feature property shown as text (symbol)
or in the popup; `name`, `color`, `opacity`, `radius`, `width`, `minzoom` and
`maxzoom` are shorthands the widget applies.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import ValidationError

from tomtom_mcp_apps.server.tools._arguments import explain_arguments
from tomtom_mcp_apps.server.tools._caller import runtime_of
from tomtom_mcp_apps.server.tools._data_viz import deliver_data_viz
from tomtom_mcp_apps.server.tools._inputs import (
    DataUrl,
    DataVizArgs,
    GeoJsonInput,
    Layers,
    ShowUi,
    Title,
)


async def data_viz(
    ctx: Context,
    data_url: DataUrl = None,
    geojson: GeoJsonInput = None,
    layers: Layers = None,
    title: Title = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    try:
        args = DataVizArgs(data_url=data_url, geojson=geojson, layers=layers, title=title)
    except ValidationError as exc:
        raise ToolError(explain_arguments(exc)) from None
    return await deliver_data_viz(runtime_of(ctx), args, show_ui)
