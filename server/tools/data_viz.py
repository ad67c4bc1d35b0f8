"""`tomtom-data-viz`: the caller's GeoJSON (by `data_url` or inline) drawn in styled layers.

The data is validated and summarised, never altered. Too large for the result, it reaches
the view in pages of `tomtom-get-app-data`, from the same input (`_inputs.DataVizArgs`).
Up to 10 layers of MapLibre types with `paint`, `filter`, `label` and shorthands the view
applies (docs/tools.md, Data-viz and the app-only tools).
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
