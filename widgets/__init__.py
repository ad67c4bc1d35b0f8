"""MCP Apps views, built into one HTML document each (`dist/`; docs/views.md).

Each view's `ui://` URI carries a short hash of its built document, so hosts that cache
views by URI fetch a new build; the URIs of earlier builds and the unversioned ones still
answer (`view_for_uri`), so a rolling update breaks no view.
"""

from __future__ import annotations

import hashlib
import re

from tomtom_mcp_apps.widgets._document import MissingBuild, View, built, pinned_versions

__all__ = [
    "BATCH_URI",
    "DATA_VIZ_URI",
    "FLEET_URI",
    "MAP_URI",
    "TRAFFIC_URI",
    "MissingBuild",
    "View",
    "pinned_versions",
    "preview_html",
    "preview_sandbox_html",
    "view_for_uri",
    "views",
]

# fmt: off
_VIEWS = (
    # stem, name, title, description, built document
    ("map", "tomtom-map", "TomTom map",
     "Places, routes with sections, reachable ranges and composed maps.", "map.html"),
    ("data-viz", "tomtom-data-viz", "TomTom data map",
     "The caller's GeoJSON drawn with the caller's layers.", "data-viz.html"),
    ("traffic", "tomtom-traffic", "TomTom traffic",
     "Traffic incidents for an area over live traffic flow.", "traffic.html"),
    ("fleet", "tomtom-fleet", "TomTom fleet",
     "Travel-time tables between many places, and plans of many stops for a fleet.",
     "fleet.html"),
    ("batch", "tomtom-batch", "TomTom batch map",
     "Many geocoded addresses, clustered, and GPS traces snapped to roads.", "batch.html"),
)
# fmt: on
_DOCUMENTS = {stem: document for stem, _, _, _, document in _VIEWS}
_EARLIER = re.compile(
    r"ui://tomtom/(?P<stem>map|data-viz|traffic|fleet|batch)(-[0-9a-f]{4,32})?\.html"
)


def _versioned_uri(stem: str) -> str:
    digest = hashlib.sha256(built(_DOCUMENTS[stem]).encode("utf-8")).hexdigest()[:12]
    return f"ui://tomtom/{stem}-{digest}.html"


MAP_URI = _versioned_uri("map")
DATA_VIZ_URI = _versioned_uri("data-viz")
TRAFFIC_URI = _versioned_uri("traffic")
FLEET_URI = _versioned_uri("fleet")
BATCH_URI = _versioned_uri("batch")


def views(tiles_origin: str | None = None) -> list[View]:
    """The map, data-viz, traffic, fleet and batch views; each CSP lets them fetch from
    `tiles_origin` only (the server's public origin, where the tile route is), or from
    nowhere when the server serves no tiles. They load no image, script, style or font by
    URL: tiles are fetched and decoded, the rest is inline, so no resource domain is
    declared."""
    origins = (tiles_origin,) if tiles_origin else ()
    return [
        View(
            uri=_versioned_uri(stem),
            name=name,
            title=title,
            description=description,
            html=built(document),
            connect_domains=origins,
            resource_domains=(),
        )
        for stem, name, title, description, document in _VIEWS
    ]


def view_for_uri(uri: str, tiles_origin: str | None = None) -> View | None:
    """The current build of the view an earlier URI named (`ui://tomtom/map.html`, or
    `ui://tomtom/map-<hash>.html` of another build), or None for no view of ours."""
    match = _EARLIER.fullmatch(uri)
    if match is None:
        return None
    current = _versioned_uri(match["stem"])
    return next(v for v in views(tiles_origin) if v.uri == current)


def preview_html() -> str:
    """The `/preview` page: a real MCP Apps host on the same server's `/mcp`."""
    return built("preview.html")


def preview_sandbox_html() -> str:
    """The `/preview/sandbox` page: the proxy the preview mounts views in, on another origin."""
    return built("preview-sandbox.html")
