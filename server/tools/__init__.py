"""The MCP surface: every tool, listed once in `TOOLS` (in `tools/list` order), and the views
they link to.

One small module per family of module-level tool functions; what they share are private
helpers, and no tool module imports another (docs/tools.md, How a tool is built).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from mcp.server import MCPServer
from mcp.server.apps import Apps
from mcp_types import CallToolResult, ToolAnnotations

from tomtom_mcp_apps.server.jobs import MAX_RESULT_CHARS, MAX_RESULT_CHARS_KEY
from tomtom_mcp_apps.server.tool_names import (
    AREA_SEARCH,
    BATCH_GEOCODE,
    DATA_VIZ,
    DYNAMIC_MAP,
    EV_ROUTING,
    EV_SEARCH,
    FUZZY_SEARCH,
    GEOCODE,
    GET_APP_DATA,
    GET_MAP_CONFIG,
    JOB_RESULT,
    MATRIX,
    NEARBY,
    PLAN_ROUTES,
    POI_CATEGORIES,
    POI_SEARCH,
    REACHABLE_RANGE,
    REFETCH_APP_DATA,
    REPORT_APP_STATUS,
    RESUME_JOB,
    REVERSE_GEOCODE,
    ROUTING,
    SEARCH_ALONG_ROUTE,
    SNAP_TO_ROADS,
    TRAFFIC,
)
from tomtom_mcp_apps.server.tools import (
    along_route,
    app_only,
    area_search,
    batch,
    data_viz,
    dynamic_map,
    ev,
    long_jobs,
    matrix,
    plan_routes,
    poi_categories,
    reachable_range,
    routing,
    search,
    snap,
    traffic,
)
from tomtom_mcp_apps.server.tools._arguments import explain_arguments
from tomtom_mcp_apps.server.tools._views import register_earlier_views, register_views
from tomtom_mcp_apps.widgets import BATCH_URI, DATA_VIZ_URI, FLEET_URI, MAP_URI, TRAFFIC_URI

__all__ = [
    "TOOLS",
    "ToolSpec",
    "explain_arguments",
    "register_earlier_views",
    "register_plain_tools",
    "register_tools",
    "register_views",
]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=True, idempotent_hint=True)
"""Every TomTom tool reads from TomTom and changes nothing."""
_KEPT_WHOLE = {MAX_RESULT_CHARS_KEY: MAX_RESULT_CHARS}
"""Claude Code keeps a model tool's result whole up to this size (read from `tools/list`)."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as hosts list it."""

    name: str
    """Its name, from `server.tool_names`."""
    fn: Callable[..., Awaitable[CallToolResult]]
    view: str | None
    """The `ui://` view it is shown in; None: it has no view, and is registered on the
    `MCPServer` itself rather than on `Apps`, which needs a `ui://` resource."""
    description: str
    title: str | None = None
    visibility: Literal["model", "app"] = "model"
    """`app`: only views call it (`_meta.ui.visibility: ["app"]`)."""


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        GEOCODE,
        search.geocode,
        MAP_URI,
        title="Geocode an address",
        description=(
            "Convert an address or place name to [longitude, latitude] positions, best match "
            "first. Use before routing to get positions."
        ),
    ),
    ToolSpec(
        REVERSE_GEOCODE,
        search.reverse_geocode,
        MAP_URI,
        title="Address at a position",
        description="The street address nearest to a [longitude, latitude] position.",
    ),
    ToolSpec(
        FUZZY_SEARCH,
        search.fuzzy_search,
        MAP_URI,
        title="Search places",
        description=(
            "Free-text search over addresses and points of interest, tolerant of typos: "
            "'pizza near Leidseplein', 'IKEA Delft', 'Damrak 1 Amsterdam'. Pass a position to "
            "rank nearby results first. To keep results strictly inside an area (a district, a "
            "polygon, a circle) use tomtom-area-search."
        ),
    ),
    ToolSpec(
        POI_SEARCH,
        search.poi_search,
        MAP_URI,
        title="Search points of interest",
        description=(
            "Search points of interest (shops, restaurants, fuel, hotels...) by name or "
            "category. Give a position and radius for local results. For EV charging with "
            "connectors, power and live availability use tomtom-ev-search; for category ids "
            "use tomtom-poi-categories."
        ),
    ),
    ToolSpec(
        NEARBY,
        search.nearby,
        MAP_URI,
        title="Places nearby",
        description=(
            "Points of interest around a [longitude, latitude] position, nearest first, "
            "optionally of given categories."
        ),
    ),
    ToolSpec(
        AREA_SEARCH,
        area_search.area_search,
        MAP_URI,
        title="Search within an area",
        description=(
            "Find places matching a query ('pharmacy', 'hotel', 'IKEA') strictly inside one or "
            "more areas: polygons of [longitude, latitude] vertices or circles (centre and "
            "radius in metres), such as a district, a delivery zone or a reachable range. Use "
            "tomtom-fuzzy-search instead to find a place by name anywhere, or near a position."
        ),
    ),
    ToolSpec(
        EV_SEARCH,
        ev.ev_search,
        MAP_URI,
        title="EV charging stations",
        description=(
            "Electric-vehicle charging stations within a radius of a [longitude, latitude] "
            "position, nearest first, with their connectors (type, power in kW, count) and "
            "live availability (free, occupied, out of service). Filter by connector type, "
            "minimum power and operator. Use this, not tomtom-poi-search, whenever the user "
            "needs to charge: POI search finds places by name or category but knows nothing "
            "of connectors or whether a charger is free."
        ),
    ),
    ToolSpec(
        EV_ROUTING,
        ev.ev_routing,
        MAP_URI,
        title="EV route with charging stops",
        description=(
            "Plan a long trip for an electric vehicle from origin to destination ([longitude, "
            "latitude] locations): TomTom's Long Distance EV Routing adds the charging stops "
            "the battery needs and says, per stop, the station, the charge on arrival and "
            "departure and the minutes of charging. Give the battery (maxChargeInkWh, "
            "currentChargeInkWh or currentChargePercent) and, when known, the consumption "
            "model; for a trip with no charging concern use tomtom-routing."
        ),
    ),
    ToolSpec(
        SEARCH_ALONG_ROUTE,
        along_route.search_along_route,
        MAP_URI,
        title="Search along a route",
        description=(
            "Find places along the route through [longitude, latitude] locations (origin first, "
            "destination last) that cost at most maxDetourTime seconds of detour: 'petrol "
            "station', 'EV charging', 'restaurant'. Returns the route figures and the places "
            "with their detour times."
        ),
    ),
    ToolSpec(
        ROUTING,
        routing.routing,
        MAP_URI,
        title="Route between locations",
        description=(
            "Calculate a route through two or more [longitude, latitude] locations in order "
            "(origin, optional stops, destination) with distance, travel time, traffic delay, "
            "turn-by-turn guidance and sections (traffic, toll roads, motorways, tunnels, "
            "countries). Any travel mode, trucks with their dimensions, weights and hazardous "
            "cargo; computeBestOrder reorders the stops for the shortest trip; maxAlternatives "
            "adds alternative routes. For an electric car that needs charging stops use "
            "tomtom-ev-routing. Geocode addresses first."
        ),
    ),
    ToolSpec(
        REACHABLE_RANGE,
        reachable_range.reachable_range,
        MAP_URI,
        title="Reachable area",
        description=(
            "The area reachable from an origin [longitude, latitude] within a travel-time "
            "budget (timeBudgetInSec) or a distance budget (distanceBudgetInMeters): give "
            "exactly one. Returns the area's extent and size; the map shows its boundary."
        ),
    ),
    ToolSpec(
        MATRIX,
        matrix.matrix,
        FLEET_URI,
        title="Travel-time table",
        description=(
            "Travel times and distances from every origin to every destination ([longitude, "
            "latitude] positions; destinations default to the origins) in one TomTom Matrix "
            "Routing request: 'which depot is closest by drive time to each of these shops?'. "
            "Car, truck (with its profile) or pedestrian, departure or arrival time, traffic. "
            "Returns the table in minutes and km when small, else each origin's nearest "
            "destination; the whole matrix is in the structured result, cells without a route "
            "marked as such. At most 2,500 cells."
        ),
    ),
    ToolSpec(
        PLAN_ROUTES,
        plan_routes.plan_routes,
        FLEET_URI,
        title="Plan routes for a fleet",
        description=(
            "Assign stops to vehicles and order them to minimise total driving time (or "
            "distance), honouring time windows, service minutes, capacities and shifts: "
            "'three vans, 40 deliveries between 9:00 and 17:00, 10 minutes at each door'. "
            "Give stops ({position, serviceMinutes, timeWindow, demand, optional}) and vehicles "
            "({start, end, shift, capacity}) or vehicleCount from a depot; times ISO 8601 with "
            "an offset. Returns each vehicle's stops in order with arrival times, its driving "
            "time, distance and load, and the stops that cannot be served with the reason. "
            "At most 50 distinct places."
        ),
    ),
    ToolSpec(
        TRAFFIC,
        traffic.traffic,
        TRAFFIC_URI,
        title="Traffic incidents",
        description=(
            "Current traffic incidents (jams, accidents, closures, road works) in a bounding "
            "box, worst first, with roads, delays and descriptions. The map draws every "
            "incident over live traffic flow."
        ),
    ),
    ToolSpec(
        DYNAMIC_MAP,
        dynamic_map.dynamic_map,
        MAP_URI,
        title="Map of markers, routes and areas",
        description=(
            "Show one interactive map composing markers, routes (each calculated by TomTom "
            "through its [longitude, latitude] locations) and areas (polygons, or circles with "
            "a centre and radius in metres). Returns each route's distance and travel time."
        ),
    ),
    ToolSpec(
        DATA_VIZ,
        data_viz.data_viz,
        DATA_VIZ_URI,
        title="Map of your GeoJSON",
        description=(
            "Draw the user's GeoJSON on an interactive map: give data_url (a public http(s) "
            "GeoJSON file) or geojson (inline), optional layers (fill, line, circle, heatmap, "
            "symbol with MapLibre paint and filter) and a title. The data is shown as given; "
            "the answer summarises features, geometry types, extent and property names."
        ),
    ),
    ToolSpec(
        BATCH_GEOCODE,
        batch.batch_geocode,
        BATCH_URI,
        title="Geocode many addresses",
        description=(
            "Geocode up to 10,000 addresses at once (TomTom Batch Search): a list "
            "(addresses) or a CSV or text file (data_url, with column and header). Every row "
            "comes back in input order as matched, low confidence, ambiguous (with its "
            "candidates) or not found (with why); the answer gives the counts and the rows "
            "that need a person, the map every located row. Large batches may outlast the "
            "call: the answer then has state running and a job to pass to tomtom-job-result."
        ),
    ),
    ToolSpec(
        SNAP_TO_ROADS,
        snap.snap_to_roads,
        BATCH_URI,
        title="Snap a GPS trace to roads",
        description=(
            "Match a GPS trace to the roads driven (TomTom Snap to Roads): points "
            "[{position: [lon, lat], timestamp?, heading?}] in recorded order, or a GPX or "
            "GeoJSON trace (data_url, gpx, geojson). Returns the distance driven, the share of "
            "points on roads, the roads taken and, with timestamps, the time spent over the "
            "speed limit and where. Long traces are split into several TomTom requests."
        ),
    ),
    ToolSpec(
        JOB_RESULT,
        long_jobs.job_result,
        BATCH_URI,
        title="Result of a long TomTom job",
        description=(
            "The result of a TomTom job that outlasted its tool call (a large "
            "tomtom-batch-geocode): pass the job value that answer gave, exactly. Waits a "
            "while for TomTom; if it is still working, says so: call again later."
        ),
    ),
    ToolSpec(
        GET_APP_DATA,
        app_only.get_app_data,
        DATA_VIZ_URI,
        visibility="app",
        description=(
            "For the data-viz widget: run tomtom-data-viz again from its tool input and return "
            "its page plan (plan) or one page of its features (page). Refuses any other tool."
        ),
    ),
    ToolSpec(
        REPORT_APP_STATUS,
        app_only.report_app_status,
        MAP_URI,
        visibility="app",
        description="For the widgets: report what the view showed (logged by the server).",
    ),
    ToolSpec(
        GET_MAP_CONFIG,
        app_only.get_map_config,
        MAP_URI,
        visibility="app",
        description=(
            "For the widgets: tile URL templates on this server's tile route, with a "
            "short-lived token (in _meta); ask again before expires_at to renew it."
        ),
    ),
    ToolSpec(
        REFETCH_APP_DATA,
        app_only.refetch_app_data,
        MAP_URI,
        visibility="app",
        description=(
            "For the TomTom views whose host dropped the result's data, when the operator "
            "turned VIEW_REFETCH on (tomtom-get-map-config says refetch): run the tool again "
            "from its tool input, billed again and capped per user. Refuses data-viz and "
            "every other tool."
        ),
    ),
    ToolSpec(
        RESUME_JOB,
        long_jobs.resume_job,
        BATCH_URI,
        visibility="app",
        description=(
            "For the batch view: the state of a long TomTom job (its result once done), or "
            "one page of a finished batch's rows (page), from the job handle."
        ),
    ),
    ToolSpec(
        POI_CATEGORIES,
        poi_categories.poi_categories,
        None,
        title="POI categories",
        description=(
            "TomTom's point-of-interest categories (id, name, synonyms, child ids) whose name "
            "or synonyms contain a word: look up the ids to pass as categorySet to "
            "tomtom-poi-search, tomtom-nearby, tomtom-fuzzy-search or tomtom-area-search."
        ),
    ),
)
"""Every tool, in the order `tools/list` shows them (those without a view come last:
they are registered on the `MCPServer` once it exists)."""


def register_tools(apps: Apps) -> None:
    """Register every tool of `TOOLS` that has a view on `apps`, bound to it. A model tool
    is linked for MCP Apps hosts (`_meta.ui.resourceUri`) and for older ChatGPT builds
    (`openai/outputTemplate`), and kept whole by Claude Code (`anthropic/maxResultSizeChars`,
    read from `tools/list`)."""
    for tool in TOOLS:
        if tool.view is None:
            continue
        if tool.visibility == "app":
            register = apps.tool(
                resource_uri=tool.view,
                visibility=["app"],
                name=tool.name,
                description=tool.description,
            )
        else:
            register = apps.tool(
                resource_uri=tool.view,
                meta={"openai/outputTemplate": tool.view, **_KEPT_WHOLE},
                annotations=READ_ONLY,
                name=tool.name,
                title=tool.title,
                description=tool.description,
            )
        register(tool.fn)


def register_plain_tools(mcp: MCPServer[Any]) -> None:
    """Register the tools of `TOOLS` without a view on `mcp` (`tomtom-poi-categories`)."""
    for tool in TOOLS:
        if tool.view is None:
            mcp.add_tool(
                tool.fn,
                name=tool.name,
                title=tool.title,
                description=tool.description,
                annotations=READ_ONLY,
                meta=dict(_KEPT_WHOLE),
            )
