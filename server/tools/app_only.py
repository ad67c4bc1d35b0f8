"""Tools only the widgets call (`_meta.ui.visibility: ["app"]`).

- `tomtom-get-app-data` runs data-viz again from the widget's own tool input and
  pages the envelope; it refuses every other tool, because TomTom requests are
  billed and are never repeated for a widget (docs/architecture.md).
- `tomtom-report-app-status` logs what a widget showed, so an empty map is
  never silent.
- `tomtom-get-map-config` gives the widget the TomTom key and tile URL templates
  for the basemap and traffic layers; the key travels in `_meta` only, never in
  the text a model may read.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import orjson
from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from server import jobs
from server.ops import metrics
from server.runtime import Runtime
from server.tool_names import (
    DATA_VIZ,
    GET_APP_DATA,
    GET_MAP_CONFIG,
    MODEL_TOOLS,
    REPORT_APP_STATUS,
)
from server.tools._inputs import caller_key
from server.tools.data_viz import DataVizArgs, deliver_data_viz, first_error
from widgets import DATA_VIZ_URI, MAP_URI

logger = logging.getLogger(__name__)

MAP_CONFIG_KEY = "com.tomtom/map-config"
WIDGET_TOOLS = frozenset(MODEL_TOOLS)
"""Tools whose widgets report; any other name is counted as `other` (bounded label values)."""


def tile_templates(origin: str) -> dict[str, str]:
    """Raster tile URL templates on the API's origin; the widget appends `&key=<key>`."""
    return {
        "basemap": f"{origin}/map/1/tile/basic/main/{{z}}/{{x}}/{{y}}.png?tileSize=256",
        "basemap_night": f"{origin}/map/1/tile/basic/night/{{z}}/{{x}}/{{y}}.png?tileSize=256",
        "traffic_flow": (
            f"{origin}/traffic/map/4/tile/flow/relative0/{{z}}/{{x}}/{{y}}.png?tileSize=256"
        ),
        "traffic_incidents": (
            f"{origin}/traffic/map/4/tile/incidents/s3/{{z}}/{{x}}/{{y}}.png?tileSize=256"
        ),
    }


def register(apps: Apps, runtime: Runtime) -> None:
    """Add the three app-only tools to `apps`."""

    @apps.tool(
        resource_uri=DATA_VIZ_URI,
        visibility=["app"],
        name=GET_APP_DATA,
        description=(
            "For the data-viz widget: run tomtom-data-viz again from its tool input and return "
            "the app data from offset (paged when large). Refuses any other tool."
        ),
    )
    async def get_app_data(
        tool: Annotated[str, Field(max_length=64, description="Must be 'tomtom-data-viz'")],
        arguments: Annotated[dict[str, Any], Field(description="The data-viz tool input")],
        offset: Annotated[int, Field(ge=0, description="Character offset of the page")] = 0,
    ) -> CallToolResult:
        if tool != DATA_VIZ:
            logger.warning("get-app-data refused for tool %r", tool[:64])
            raise ToolError(
                f"{GET_APP_DATA} serves only {DATA_VIZ}; {tool!r} is refused. TomTom "
                "tools are never run again for a widget: their data travels in the tool result."
            )
        try:
            args = DataVizArgs.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(f"arguments: {first_error(exc)}") from None
        return await deliver_data_viz(runtime, DATA_VIZ, args, jobs.data_viz_page, offset)

    @apps.tool(
        resource_uri=MAP_URI,
        visibility=["app"],
        name=REPORT_APP_STATUS,
        description="For the widgets: report what the view showed (logged by the server).",
    )
    async def report_app_status(
        tool: Annotated[str, Field(max_length=64, description="The tool whose result is shown")],
        status: Literal["ok", "error"],
        reason: Annotated[str, Field(max_length=200, description="Short machine-readable cause")],
        detail: Annotated[str, Field(max_length=2000, description="Human-readable detail")] = "",
    ) -> CallToolResult:
        level = logging.INFO if status == "ok" else logging.WARNING
        logger.log(
            level,
            "widget for %s reported %s: %s",
            tool,
            status,
            reason,
            extra={
                "event": "app_status",
                "tool": tool,
                "status": status,
                "reason": reason,
                "detail": detail,
            },
        )
        metrics.WIDGET_STATUS.labels(tool if tool in WIDGET_TOOLS else "other", status).inc()
        return CallToolResult(content=[TextContent(type="text", text='{"logged": true}')])

    @apps.tool(
        resource_uri=MAP_URI,
        visibility=["app"],
        name=GET_MAP_CONFIG,
        description="For the widgets: TomTom key and tile URL templates, in _meta.",
    )
    async def get_map_config(ctx: Context) -> CallToolResult:
        key = caller_key(ctx) or runtime.settings.api_key
        config = {"key": key, "tiles": tile_templates(runtime.settings.tiles_origin)}
        said = "withheld from this text" if key else "none: offline mode, no TomTom tiles"
        text = orjson.dumps({"map_config": "in _meta", "key": said}).decode()
        return CallToolResult(
            content=[TextContent(type="text", text=text)], _meta={MAP_CONFIG_KEY: config}
        )
