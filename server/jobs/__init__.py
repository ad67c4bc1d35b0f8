"""The work a tool result needs, as pure, picklable jobs, run in a fitting worker or on the
event loop, wherever `server.pool.Placement` puts them. Imports no MCP server code, httpx
or Starlette: fitting workers import it.

- `_result.py`: `prepare`, the tool result (text for the model, app data in `_meta`);
- `_features.py`: TomTom answers as map features and compact model summaries;
- `_routes.py`, `_traffic.py`, `_ev.py`: results from TomTom's bodies as received;
- `_data_viz.py`, `_geojson.py`, `_pages.py`: data-viz results from the caller's GeoJSON;
- `_image.py`, `_basemap.py`: the PNG of a map for hosts without views;
- `_matrix.py`, `_plan.py`, `_fleet.py`: travel-time tables, fleet plans and their map;
- `_batch_geocode.py`: a Batch Search answer as every input row, and pages of rows;
- `_traces.py`, `_snap.py`: GPS traces read, split into Snap to Roads requests, joined.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.jobs._batch_geocode import (
    BATCH_PAGE_KEY,
    JOB_KEY,
    RowsPlan,
    batch_page,
    batch_result,
)
from tomtom_mcp_apps.server.jobs._data_viz import (
    answer_and_data,
    data_viz,
    data_viz_features,
    data_viz_part_features,
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
from tomtom_mcp_apps.server.jobs._fleet import PlanPlaces, plan_result
from tomtom_mcp_apps.server.jobs._geojson import Summary, validate_geojson
from tomtom_mcp_apps.server.jobs._image import (
    IMAGE_MAX_BYTES,
    ImageRequest,
    Rendered,
    basemap_frame,
    render_map,
)
from tomtom_mcp_apps.server.jobs._matrix import Matrix, matrix_result, read_matrix
from tomtom_mcp_apps.server.jobs._pages import PAGE_KEY, PAGES_KEY, file_length
from tomtom_mcp_apps.server.jobs._plan import (
    Plan,
    PlannedRoute,
    PlanProblem,
    PlanStop,
    PlanVehicle,
    schedule,
    solve_plan,
)
from tomtom_mcp_apps.server.jobs._plan_check import violations
from tomtom_mcp_apps.server.jobs._result import (
    APP_DATA_KEY,
    DATA_SOURCE_KEY,
    MAX_RESULT_CHARS,
    MAX_RESULT_CHARS_KEY,
    OFFLINE_NOTE,
    OMITTED_KEY,
    REFETCHED_KEY,
    Prepared,
    base_meta,
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
from tomtom_mcp_apps.server.jobs._snap import FIELDS as SNAP_FIELDS
from tomtom_mcp_apps.server.jobs._snap import Chunk, chunks_of, snap_result
from tomtom_mcp_apps.server.jobs._snap import request_body as snap_request_body
from tomtom_mcp_apps.server.jobs._traces import MAX_POINTS as MAX_TRACE_POINTS
from tomtom_mcp_apps.server.jobs._traces import Trace, trace_of_points, trace_of_text
from tomtom_mcp_apps.server.jobs._traffic import CATEGORIES as INCIDENT_CATEGORIES
from tomtom_mcp_apps.server.jobs._traffic import incident_collection, incidents_of

__all__ = [
    "APP_DATA_KEY",
    "BATCH_PAGE_KEY",
    "DATA_SOURCE_KEY",
    "IMAGE_MAX_BYTES",
    "INCIDENT_CATEGORIES",
    "JOB_KEY",
    "MAX_RESULT_CHARS",
    "MAX_RESULT_CHARS_KEY",
    "MAX_TRACE_POINTS",
    "OFFLINE_NOTE",
    "OMITTED_KEY",
    "PAGES_KEY",
    "PAGE_KEY",
    "REFETCHED_KEY",
    "SNAP_FIELDS",
    "Chunk",
    "DrawnRoute",
    "ImageRequest",
    "Matrix",
    "Plan",
    "PlanPlaces",
    "PlanProblem",
    "PlanStop",
    "PlanVehicle",
    "PlannedRoute",
    "Prepared",
    "Rendered",
    "RowsPlan",
    "Summary",
    "Trace",
    "along_route",
    "along_route_request",
    "answer_and_data",
    "area_points",
    "availability_id",
    "base_meta",
    "basemap_frame",
    "batch_page",
    "batch_result",
    "bbox_of",
    "call_tool_result",
    "checked_route",
    "checked_routes",
    "chunks_of",
    "collection",
    "data_viz",
    "data_viz_features",
    "data_viz_part_features",
    "data_viz_plan",
    "dynamic_map",
    "ev_route",
    "file_length",
    "incident_collection",
    "incidents_of",
    "matches",
    "matrix_result",
    "plan_result",
    "point_feature",
    "prepare",
    "read_matrix",
    "render_map",
    "rounded",
    "route_answer",
    "route_feature",
    "routes_of",
    "routing",
    "schedule",
    "search_results",
    "snap_request_body",
    "snap_result",
    "solve_plan",
    "stations",
    "trace_of_points",
    "trace_of_text",
    "validate_geojson",
    "violations",
    "visiting_order",
    "waypoint_features",
    "wire_size",
]
