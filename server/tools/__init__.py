"""The MCP tools: one small module per tool family, registered on an `Apps` extension."""

from __future__ import annotations

from mcp.server.apps import Apps

from server.runtime import Runtime
from server.tools import (
    along_route,
    app_only,
    data_viz,
    dynamic_map,
    reachable_range,
    routing,
    search,
    traffic,
)

__all__ = ["register_tools"]


def register_tools(apps: Apps, runtime: Runtime) -> None:
    """Register every tool of DESIGN.md, bound to its widget view, on `apps`."""
    for family in (
        search,
        along_route,
        routing,
        reachable_range,
        traffic,
        dynamic_map,
        data_viz,
        app_only,
    ):
        family.register(apps, runtime)
