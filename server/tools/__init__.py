"""The MCP surface: one small module per tool family, and the views they link to.

Tools are thin: typed inputs (`_inputs.py`), a TomTom request, then a job from
`server.jobs` delivered by `_delivery.py`. `_views.py` registers the views of
`widgets` as `ui://` resources with their CSP. `_vehicle.py` is the truck profile
the routing tools share, `_image.py` the `image` option's static map.
"""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.server.apps import Apps

from server.runtime import Runtime
from server.tools import (
    along_route,
    app_only,
    area_search,
    data_viz,
    dynamic_map,
    ev,
    poi_categories,
    reachable_range,
    routing,
    search,
    traffic,
)
from server.tools._views import register_views

__all__ = ["register_plain_tools", "register_tools", "register_views"]


def register_tools(apps: Apps, runtime: Runtime) -> None:
    """Register every tool (`server.tool_names`), bound to its view, on `apps`."""
    for family in (
        search,
        area_search,
        ev,
        along_route,
        routing,
        reachable_range,
        traffic,
        dynamic_map,
        data_viz,
        app_only,
    ):
        family.register(apps, runtime)


def register_plain_tools(mcp: MCPServer, runtime: Runtime) -> None:
    """Register the model tools that have no view (`tomtom-poi-categories`) on `mcp`."""
    poi_categories.register_plain(mcp, runtime)
