"""`tomtom-area-search`: places matching a query inside polygons or circles.

TomTom's Geometry Search takes the areas as a POSTed `geometryList`; the areas
are the same shapes `tomtom-dynamic-map` draws (a polygon ring, or a centre and
a radius in metres: `_areas.py`), and the view draws them under the results.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server.bodies import Dropped, request_body, required_list
from tomtom_mcp_apps.server.jobs import collection, search_results
from tomtom_mcp_apps.server.tool_names import AREA_SEARCH
from tomtom_mcp_apps.server.tools._areas import area_feature, areas_given, geometry_entry
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import deliver
from tomtom_mcp_apps.server.tools._inputs import (
    MAX_AREAS,
    Area,
    BoundingBox,
    CategorySet,
    Language,
    Position,
    Query,
    ShowUi,
)


async def area_search(
    query: Query,
    ctx: Context,
    polygons: Annotated[
        list[Area] | None,
        Field(
            max_length=MAX_AREAS,
            description=(
                "Areas to search: [{coordinates: [[lon, lat], ...]}] polygons or "
                "[{center: [lon, lat], radius: metres}] circles, each with label? and "
                f"color?; up to {MAX_AREAS}"
            ),
        ),
    ] = None,
    center: Annotated[Position | None, Field(description="One circle's centre (with radius)")] = (
        None
    ),
    radius: Annotated[
        float | None, Field(gt=0, le=1_000_000, description="That circle's radius, metres")
    ] = None,
    polygon: Annotated[
        list[Position] | None,
        Field(min_length=3, max_length=5000, description="One polygon's vertices"),
    ] = None,
    boundingBox: Annotated[
        BoundingBox | None, Field(description="A rectangle: {topLeft, bottomRight}")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Maximum results (1-100)")] = 10,
    categorySet: CategorySet = None,
    language: Language = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    areas = areas_given(polygons, center, radius, polygon, boundingBox)
    geometries = [geometry_entry(area) for area in areas]
    params: list[tuple[str, Any]] = [("limit", limit)]
    if categorySet:
        params.append(("categorySet", categorySet))
    if language:
        params.append(("language", language))
    body = request_body(orjson.dumps({"geometryList": geometries}))
    caller = Caller.of(ctx)
    found = await caller.tomtom.geometry_search(query, body, key=caller.key, params=params)
    dropped = Dropped()
    items, results = search_results(required_list(found, "results"), dropped)
    answer: dict[str, Any] = {
        "query": query,
        "areas": len(areas),
        "count": len(items),
        "results": items,
    }
    if not items:
        answer["note"] = "Nothing found inside the areas; try a broader query or larger areas."
    features = [area_feature(area) for area in areas] + results
    data = collection(features, summary={"query": query, "count": len(items)})
    return await deliver(
        caller.runtime,
        tool=AREA_SEARCH,
        answer=dropped.report(answer),
        data=data,
        show_ui=show_ui,
        offline=caller.offline,
    )
