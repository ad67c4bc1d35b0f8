"""Every tool's name, once: the tools register under these, jobs label results with them.

Names follow TomTom's own MCP server (`tomtom-...`), so prompts written for it
keep working. Imports nothing, so fitting workers may use it too.
"""

from __future__ import annotations

GEOCODE = "tomtom-geocode"
REVERSE_GEOCODE = "tomtom-reverse-geocode"
FUZZY_SEARCH = "tomtom-fuzzy-search"
POI_SEARCH = "tomtom-poi-search"
NEARBY = "tomtom-nearby"
SEARCH_ALONG_ROUTE = "tomtom-search-along-route"
ROUTING = "tomtom-routing"
REACHABLE_RANGE = "tomtom-reachable-range"
TRAFFIC = "tomtom-traffic"
DYNAMIC_MAP = "tomtom-dynamic-map"
DATA_VIZ = "tomtom-data-viz"
EV_SEARCH = "tomtom-ev-search"
EV_ROUTING = "tomtom-ev-routing"
AREA_SEARCH = "tomtom-area-search"
POI_CATEGORIES = "tomtom-poi-categories"
BATCH_GEOCODE = "tomtom-batch-geocode"
SNAP_TO_ROADS = "tomtom-snap-to-roads"
JOB_RESULT = "tomtom-job-result"
MATRIX = "tomtom-matrix"
PLAN_ROUTES = "tomtom-plan-routes"

GET_APP_DATA = "tomtom-get-app-data"
REPORT_APP_STATUS = "tomtom-report-app-status"
GET_MAP_CONFIG = "tomtom-get-map-config"
REFETCH_APP_DATA = "tomtom-refetch-app-data"
RESUME_JOB = "tomtom-resume-job"

MODEL_TOOLS = (
    GEOCODE,
    REVERSE_GEOCODE,
    FUZZY_SEARCH,
    POI_SEARCH,
    NEARBY,
    SEARCH_ALONG_ROUTE,
    ROUTING,
    REACHABLE_RANGE,
    TRAFFIC,
    DYNAMIC_MAP,
    DATA_VIZ,
    EV_SEARCH,
    EV_ROUTING,
    AREA_SEARCH,
    POI_CATEGORIES,
    BATCH_GEOCODE,
    SNAP_TO_ROADS,
    JOB_RESULT,
    MATRIX,
    PLAN_ROUTES,
)
"""The tools the model sees; all but `POI_CATEGORIES` have a view, whose status reports
are counted per tool."""

REFETCHABLE = tuple(
    name
    for name in MODEL_TOOLS
    if name
    not in (DATA_VIZ, POI_CATEGORIES, BATCH_GEOCODE, SNAP_TO_ROADS, JOB_RESULT, MATRIX, PLAN_ROUTES)
)
"""The TomTom tools with a view that `REFETCH_APP_DATA` may run again (with
`VIEW_REFETCH=on`): data-viz has its own `GET_APP_DATA`; what TomTom bills by the many (a
batch per query, a trace per part, a matrix by its cells, a plan's matrix and routes) and a
job's result (its view resumes the job) are never run again."""
