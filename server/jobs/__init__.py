"""The work a tool result needs, as pure, picklable jobs, run in a fitting worker or on the
event loop, wherever `server.pool.Placement` puts them. Imports no MCP server code, httpx
or Starlette: fitting workers import it.

- `_result.py`: `prepare`, the tool result (text for the model, app data in `_meta`);
- `_features.py`: TomTom answers as map features and compact model summaries;
- `_routes.py`, `_traffic.py`, `_ev.py`: results from TomTom's bodies as received;
- `_data_viz.py`, `_geojson.py`, `_pages.py`: data-viz results from the caller's GeoJSON;
- `_image.py`, `_basemap.py`: the PNG of a map for hosts without views.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.jobs._data_viz import (
    answer_and_data,
    data_viz,
    data_viz_features,
    data_viz_plan,
)
from tomtom_mcp_apps.server.jobs._ev import availability_id, ev_route, matches, stations
from tomtom_mcp_apps.server.jobs._features import (
    area_points,
    bbox_of,
    checked_route,
    collection,
    point_feature,
    rounded,
    route_answer,
    route_feature,
    search_results,
    waypoint_features,
)
from tomtom_mcp_apps.server.jobs._geojson import Summary, validate_geojson
from tomtom_mcp_apps.server.jobs._image import (
    IMAGE_MAX_BYTES,
    ImageRequest,
    Rendered,
    basemap_frame,
    render_map,
)
from tomtom_mcp_apps.server.jobs._pages import PAGE_KEY, PAGES_KEY
from tomtom_mcp_apps.server.jobs._result import (
    APP_DATA_KEY,
    DATA_SOURCE_KEY,
    MAX_RESULT_CHARS,
    MAX_RESULT_CHARS_KEY,
    OFFLINE_NOTE,
    OMITTED_KEY,
    REFETCHED_KEY,
    Prepared,
    call_tool_result,
    prepare,
    wire_size,
)
from tomtom_mcp_apps.server.jobs._routes import (
    DrawnRoute,
    along_route,
    along_route_request,
    checked_routes,
    dynamic_map,
    routes_of,
    routing,
    visiting_order,
)
from tomtom_mcp_apps.server.jobs._traffic import CATEGORIES as INCIDENT_CATEGORIES
from tomtom_mcp_apps.server.jobs._traffic import incident_collection, incidents_of

__all__ = [
    "APP_DATA_KEY",
    "DATA_SOURCE_KEY",
    "IMAGE_MAX_BYTES",
    "INCIDENT_CATEGORIES",
    "MAX_RESULT_CHARS",
    "MAX_RESULT_CHARS_KEY",
    "OFFLINE_NOTE",
    "OMITTED_KEY",
    "PAGES_KEY",
    "PAGE_KEY",
    "REFETCHED_KEY",
    "DrawnRoute",
    "ImageRequest",
    "Prepared",
    "Rendered",
    "Summary",
    "along_route",
    "along_route_request",
    "answer_and_data",
    "area_points",
    "availability_id",
    "basemap_frame",
    "bbox_of",
    "call_tool_result",
    "checked_route",
    "checked_routes",
    "collection",
    "data_viz",
    "data_viz_features",
    "data_viz_plan",
    "dynamic_map",
    "ev_route",
    "incident_collection",
    "incidents_of",
    "matches",
    "point_feature",
    "prepare",
    "render_map",
    "rounded",
    "route_answer",
    "route_feature",
    "routes_of",
    "routing",
    "search_results",
    "stations",
    "validate_geojson",
    "visiting_order",
    "waypoint_features",
    "wire_size",
]
