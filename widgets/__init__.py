"""MCP Apps views, built into one HTML document each (`dist/`, ADR 0043)."""

from __future__ import annotations

from widgets._document import MissingBuild, View, built, pinned_versions

__all__ = [
    "DATA_VIZ_URI",
    "MAP_URI",
    "TRAFFIC_URI",
    "MissingBuild",
    "View",
    "pinned_versions",
    "preview_html",
    "preview_sandbox_html",
    "views",
]

MAP_URI = "ui://tomtom/map.html"
DATA_VIZ_URI = "ui://tomtom/data-viz.html"
TRAFFIC_URI = "ui://tomtom/traffic.html"


# fmt: off
_VIEWS = (
    # uri, name, title, description, built document
    (MAP_URI, "tomtom-map", "TomTom map",
     "Places, routes with sections, reachable ranges and composed maps.", "map.html"),
    (DATA_VIZ_URI, "tomtom-data-viz", "TomTom data map",
     "The caller's GeoJSON drawn with the caller's layers.", "data-viz.html"),
    (TRAFFIC_URI, "tomtom-traffic", "TomTom traffic",
     "Traffic incidents for an area over live traffic flow.", "traffic.html"),
)
# fmt: on


def views(tiles_origin: str = "https://api.tomtom.com") -> list[View]:
    """The map, data-viz and traffic views; each CSP names only the TomTom tiles origin."""
    origins = (tiles_origin,)
    return [
        View(
            uri=uri,
            name=name,
            title=title,
            description=description,
            html=built(document),
            connect_domains=origins,
            resource_domains=origins,
        )
        for uri, name, title, description, document in _VIEWS
    ]


def preview_html() -> str:
    """The `/preview` page: a real MCP Apps host on the same server's `/mcp`."""
    return built("preview.html")


def preview_sandbox_html() -> str:
    """The `/preview/sandbox` page: the proxy the preview mounts views in, on another origin."""
    return built("preview-sandbox.html")
