"""MCP Apps views and the code that assembles each into one HTML document."""

from __future__ import annotations

MAP_URI = "ui://tomtom/map.html"
DATA_VIZ_URI = "ui://tomtom/data-viz.html"
TRAFFIC_URI = "ui://tomtom/traffic.html"
