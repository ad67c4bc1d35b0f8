"""MCP Apps views and the code that assembles each into one HTML document."""

from __future__ import annotations

from widgets._document import View, _map_document, pinned_versions, preview_document

__all__ = [
    "DATA_VIZ_URI",
    "MAP_URI",
    "TRAFFIC_URI",
    "View",
    "pinned_versions",
    "preview_html",
    "views",
]

MAP_URI = "ui://tomtom/map.html"
DATA_VIZ_URI = "ui://tomtom/data-viz.html"
TRAFFIC_URI = "ui://tomtom/traffic.html"


def views(tiles_origin: str = "https://api.tomtom.com") -> list[View]:
    """The map, data-viz and traffic views; each CSP names only the TomTom tiles origin."""
    origins = (tiles_origin,)
    return [
        View(
            uri=MAP_URI,
            name="tomtom-map",
            title="TomTom map",
            description="Places, routes with sections, reachable ranges and composed maps.",
            html=_map_document("map", "TomTom map", "map/main.js"),
            connect_domains=origins,
            resource_domains=origins,
        ),
        View(
            uri=DATA_VIZ_URI,
            name="tomtom-data-viz",
            title="TomTom data map",
            description="The caller's GeoJSON drawn with the caller's layers.",
            html=_map_document("data-viz", "TomTom data map", "data_viz/main.js"),
            connect_domains=origins,
            resource_domains=origins,
        ),
        View(
            uri=TRAFFIC_URI,
            name="tomtom-traffic",
            title="TomTom traffic",
            description="Live traffic flow and incidents for an area.",
            html=_map_document("traffic", "TomTom traffic", "traffic/main.js"),
            connect_domains=origins,
            resource_domains=origins,
        ),
    ]


def preview_html() -> str:
    """The `/preview` page: a real MCP Apps host on the same server's `/mcp`."""
    return preview_document()
