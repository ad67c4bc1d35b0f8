"""Registers the widget views as `ui://` resources with the CSP each one needs."""

from __future__ import annotations

from mcp.server.apps import Apps, ResourceCsp

import widgets
from server.config import Settings


def register_views(apps: Apps, settings: Settings) -> None:
    """Add every view, its `_meta.ui.csp` naming exactly the origins it loads from."""
    for view in widgets.views(tiles_origin=settings.tiles_origin):
        apps.add_html_resource(
            view.uri,
            view.html,
            name=view.name,
            title=view.title,
            description=view.description,
            csp=ResourceCsp(
                connect_domains=list(view.connect_domains) or None,
                resource_domains=list(view.resource_domains) or None,
            ),
            prefers_border=False,
        )
