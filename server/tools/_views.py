"""Registers the views as `ui://` resources with what each host needs to render them.

Each under a content-versioned URI, with `_meta.ui.csp` naming exactly the public origin
(nothing without tiles), `ui.domain` only when `UI_DOMAIN` asks, and ChatGPT's
`openai/widget*` keys; one template answers unversioned and earlier builds' URIs with the
current build (docs/views.md, Serving a view).
"""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.apps import APP_MIME_TYPE, Apps
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.resources import TextResource

from tomtom_mcp_apps import widgets
from tomtom_mcp_apps.server.config import Settings

EARLIER_VIEWS = "ui://tomtom/{name}.html"


def view_meta(view: widgets.View, settings: Settings) -> dict[str, Any]:
    """The resource `_meta` of `view`: its CSP for MCP Apps hosts and ChatGPT, its domains."""
    connect, resource = list(view.connect_domains), list(view.resource_domains)
    ui: dict[str, Any] = {
        "csp": {"connectDomains": connect, "resourceDomains": resource},
        "prefersBorder": False,
    }
    if settings.resource_ui_domain is not None:
        ui["domain"] = settings.resource_ui_domain
    meta: dict[str, Any] = {
        "ui": ui,
        "openai/widgetCSP": {"connect_domains": connect, "resource_domains": resource},
        "openai/widgetPrefersBorder": False,
    }
    if settings.public_origin is not None:
        meta["openai/widgetDomain"] = settings.public_origin
    return meta


def register_views(apps: Apps, settings: Settings) -> None:
    """Add every view under its content-versioned URI."""
    for view in widgets.views(_tiles_origin(settings)):
        apps.add_resource(
            TextResource(
                uri=view.uri,
                name=view.name,
                title=view.title,
                description=view.description,
                mime_type=APP_MIME_TYPE,
                meta=view_meta(view, settings),
                text=view.html,
            )
        )


def register_earlier_views(mcp: MCPServer, settings: Settings) -> None:
    """Answer the URIs of earlier builds (a host that listed tools on a replica of the
    previous release reads the view from this one) with the current build."""
    origin = _tiles_origin(settings)
    any_view = widgets.views(origin)[0]  # every view loads from the same origins

    @mcp.resource(
        EARLIER_VIEWS,
        name="tomtom-earlier-view",
        description="An earlier build's view URI, answered with the current build",
        mime_type=APP_MIME_TYPE,
        meta=view_meta(any_view, settings),
    )
    def earlier_view(name: str) -> str:
        view = widgets.view_for_uri(f"ui://tomtom/{name}.html", origin)
        if view is None:
            raise ResourceNotFoundError(f"no view named ui://tomtom/{name[:60]}.html")
        return view.html


def _tiles_origin(settings: Settings) -> str | None:
    return settings.public_origin if settings.tiles_enabled else None
