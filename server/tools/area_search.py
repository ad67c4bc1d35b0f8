"""`tomtom-area-search`: places matching a query inside polygons or circles.

TomTom's Geometry Search takes the areas as a POSTed `geometryList`; the areas
are the same shapes `tomtom-dynamic-map` draws (a polygon ring, or a centre and
a radius in metres), and the view draws them under the results.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from server.jobs import Dropped, collection, required_list, search_results
from server.runtime import Runtime
from server.tomtom import request_body
from server.tool_names import AREA_SEARCH
from server.tools._areas import area_feature, areas_given, geometry_entry
from server.tools._delivery import deliver, read_answer
from server.tools._inputs import (
    MAX_AREAS,
    Area,
    BoundingBox,
    CategorySet,
    Language,
    Position,
    Query,
    ShowUi,
    caller_key,
    model_tool,
)
from widgets import MAP_URI


def register(apps: Apps, runtime: Runtime) -> None:
    """Add `tomtom-area-search` to `apps`."""

    @model_tool(
        apps,
        MAP_URI,
        name=AREA_SEARCH,
        title="Search within an area",
        description=(
            "Find places matching a query ('pharmacy', 'hotel', 'IKEA') strictly inside one or "
            "more areas: polygons of [longitude, latitude] vertices or circles (centre and "
            "radius in metres), such as a district, a delivery zone or a reachable range. Use "
            "tomtom-fuzzy-search instead to find a place by name anywhere, or near a position."
        ),
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
        center: Annotated[
            Position | None, Field(description="One circle's centre (with radius)")
        ] = None,
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
        key = caller_key(ctx)
        found = await runtime.tomtom.geometry_search(query, body, key=key, params=params)
        dropped = Dropped()
        with read_answer():
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
        answer = dropped.report(answer)
        return await deliver(
            runtime,
            tool=AREA_SEARCH,
            answer=answer,
            data=data,
            show_ui=show_ui,
            offline=runtime.tomtom.serves_offline(key),
        )
