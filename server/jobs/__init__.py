"""The work a tool result needs, as pure, picklable jobs: they run in a fitting worker
or on the event loop, wherever `server.pool.Placement` puts them.

- `_result.py`: `prepare`, the tool result itself (text for the model, app data
  inline in `_meta`, fitted or omitted with a reason);
- `_features.py`: TomTom answers as map features and compact model summaries;
- `_routes.py`: routing, search-along-route and dynamic-map results from TomTom's
  route bodies as received;
- `_data_viz.py`, `_geojson.py`: data-viz results from the caller's GeoJSON bytes,
  validated but never altered;
- `_ev.py`: EV stations with their live availability, and Long Distance EV routes
  with their charging stops;
- `_image.py`, `_basemap.py`: the PNG of a map for hosts without views.

Nothing here imports the MCP SDK (beyond its protocol types), httpx or Starlette:
fitting workers import this package, and stay small.
"""

from __future__ import annotations

from server.jobs._data_viz import answer_and_data, data_viz, data_viz_page
from server.jobs._ev import availability_id, ev_route, stations
from server.jobs._features import (
    bbox_of,
    collection,
    point_array,
    point_feature,
    rounded,
    route_answer,
    route_feature,
    search_results,
    waypoint_features,
)
from server.jobs._geojson import GeoJsonError, Summary, validate_geojson
from server.jobs._image import IMAGE_MAX_BYTES, ImageRequest, Rendered, basemap_frame, render_map
from server.jobs._result import (
    APP_DATA_KEY,
    OMITTED_KEY,
    Prepared,
    call_tool_result,
    prepare,
    wire_size,
)
from server.jobs._routes import (
    DrawnRoute,
    NoRoute,
    along_route,
    along_route_request,
    dynamic_map,
    route_body,
    routes_of,
    routing,
    visiting_order,
)

__all__ = [
    "APP_DATA_KEY",
    "IMAGE_MAX_BYTES",
    "OMITTED_KEY",
    "DrawnRoute",
    "GeoJsonError",
    "ImageRequest",
    "NoRoute",
    "Prepared",
    "Rendered",
    "Summary",
    "along_route",
    "along_route_request",
    "answer_and_data",
    "availability_id",
    "basemap_frame",
    "bbox_of",
    "call_tool_result",
    "collection",
    "data_viz",
    "data_viz_page",
    "dynamic_map",
    "ev_route",
    "point_array",
    "point_feature",
    "prepare",
    "render_map",
    "rounded",
    "route_answer",
    "route_body",
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
