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


# fmt: off
_VIEWS = (
    # uri, name, title, description, page id, entry script
    (MAP_URI, "tomtom-map", "TomTom map",
     "Places, routes with sections, reachable ranges and composed maps.", "map", "map/main.js"),
    (DATA_VIZ_URI, "tomtom-data-viz", "TomTom data map",
     "The caller's GeoJSON drawn with the caller's layers.", "data-viz", "data_viz/main.js"),
    (TRAFFIC_URI, "tomtom-traffic", "TomTom traffic",
     "Live traffic flow and incidents for an area.", "traffic", "traffic/main.js"),
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
            html=_map_document(page, title, entry),
            connect_domains=origins,
            resource_domains=origins,
        )
        for uri, name, title, description, page, entry in _VIEWS
    ]


def preview_html() -> str:
    """The `/preview` page: a real MCP Apps host on the same server's `/mcp`."""
    return preview_document()
