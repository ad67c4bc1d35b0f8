"""`tomtom-search-along-route`: calculate the route, then search places along it.

Two TomTom requests (calculateRoute, then searchAlongRoute with the route's
points); the widget gets the route, its stops and the results on one map.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from server.delivery import deliver
from server.features import (
    collection,
    route_answer,
    route_feature,
    search_results,
    waypoint_features,
)
from server.runtime import Runtime
from server.tools._params import Language, Locations, ShowUi, caller_key, model_tool
from server.tools.routing import (
    AvoidParam,
    RouteTypeParam,
    TravelModeParam,
    calculate,
    route_params,
)
from server.tools.search import CategorySet, Query
from widgets import MAP_URI


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-search-along-route` to `apps`."""

    @model_tool(
        apps,
        MAP_URI,
        name="tomtom-search-along-route",
        title="Search along a route",
        description=(
            "Find places along the route through [longitude, latitude] locations (origin first, "
            "destination last) that cost at most maxDetourTime seconds of detour: 'petrol "
            "station', 'EV charging', 'restaurant'. Returns the route figures and the places "
            "with their detour times."
        ),
    )
    async def search_along_route(
        locations: Locations,
        query: Query,
        ctx: Context,
        maxDetourTime: Annotated[
            int, Field(ge=1, le=3600, description="Largest detour in seconds (1-3600)")
        ] = 600,
        limit: Annotated[
            int, Field(ge=1, le=20, description="Maximum number of places (1-20)")
        ] = 10,
        categorySet: CategorySet = None,
        routeType: RouteTypeParam = "fastest",
        travelMode: TravelModeParam = "car",
        avoid: AvoidParam = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        key = caller_key(ctx)
        params = route_params(
            routeType=routeType, travelMode=travelMode, avoid=avoid, language=language
        )
        routes = await calculate(runtime.tomtom, locations, key=key, params=params)
        route = route_feature(routes[0], 0)
        search = [("limit", limit)]
        if categorySet:
            search.append(("categorySet", categorySet))
        if language:
            search.append(("language", language))
        body = await runtime.tomtom.search_along_route(
            query,
            route["geometry"]["coordinates"],
            max_detour_time=maxDetourTime,
            key=key,
            params=search,
        )
        items, results = search_results(body.get("results") or [])
        answer = {
            "query": query,
            "route": route_answer(routes[0], 0),
            "count": len(items),
            "results": items,
        }
        if not items:
            answer["note"] = "Nothing found; try a larger maxDetourTime or a broader query."
        features = [route, *waypoint_features(locations), *results]
        data = collection(features, summary={"query": query, "count": len(items)})
        return await deliver(
            runtime, tool="tomtom-search-along-route", answer=answer, data=data, show_ui=show_ui
        )
