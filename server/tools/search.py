"""Search tools: geocode, reverse geocode, fuzzy, POI and nearby search.

Each answers the model with names, addresses, categories and one `[lon, lat]`
position per result (so it can route to them), and sends the results as
`result` points (plus the searched-around `origin`) for the map widget.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from server.jobs import Dropped, entries, point_feature, rounded, text
from server.runtime import Runtime
from server.tool_names import FUZZY_SEARCH, GEOCODE, NEARBY, POI_SEARCH, REVERSE_GEOCODE
from server.tools._inputs import (
    Bias,
    CategorySet,
    CountrySet,
    Language,
    Limit,
    Position,
    Query,
    Radius,
    ShowUi,
    caller_key,
    model_tool,
)
from server.tools._places import deliver_places, search_params
from widgets import MAP_URI


def register(apps: Apps, runtime: Runtime) -> None:
    """Add the five search tools to `apps`."""
    client = runtime.tomtom

    @model_tool(
        apps,
        MAP_URI,
        name=GEOCODE,
        title="Geocode an address",
        description=(
            "Convert an address or place name to [longitude, latitude] positions, best match "
            "first. Use before routing to get positions."
        ),
    )
    async def geocode(
        query: Query,
        ctx: Context,
        limit: Limit = 5,
        countrySet: CountrySet = None,
        position: Bias = None,
        radius: Radius = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        params = search_params(limit, countrySet, position, radius, language)
        key = caller_key(ctx)
        body = await client.geocode(query, key=key, params=params)
        offline = client.serves_offline(key)
        return await deliver_places(runtime, GEOCODE, body, {"query": query}, show_ui, offline)

    @model_tool(
        apps,
        MAP_URI,
        name=REVERSE_GEOCODE,
        title="Address at a position",
        description="The street address nearest to a [longitude, latitude] position.",
    )
    async def reverse_geocode(
        position: Position,
        ctx: Context,
        radius: Annotated[
            int | None, Field(ge=1, le=10_000, description="Search radius in metres (1-10,000)")
        ] = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        params: list[tuple[str, Any]] = []
        if radius is not None:
            params.append(("radius", radius))
        if language:
            params.append(("language", language))
        lon, lat = position
        key = caller_key(ctx)
        body = await client.reverse_geocode(lon, lat, key=key, params=params)
        dropped = Dropped()
        results = [
            {**entry, "type": text(entry.get("matchType")) or "Address"}
            for entry in entries(body.get("addresses"), "addresses", dropped)
        ]
        origin = point_feature(position, {"kind": "origin", "label": "Queried position"})
        return await deliver_places(
            runtime,
            REVERSE_GEOCODE,
            {"results": results},
            {"position": rounded(position)},
            show_ui,
            client.serves_offline(key),
            origin,
            dropped,
        )

    @model_tool(
        apps,
        MAP_URI,
        name=FUZZY_SEARCH,
        title="Search places",
        description=(
            "Free-text search over addresses and points of interest, tolerant of typos: "
            "'pizza near Leidseplein', 'IKEA Delft', 'Damrak 1 Amsterdam'. Pass a position to "
            "rank nearby results first. To keep results strictly inside an area (a district, a "
            "polygon, a circle) use tomtom-area-search."
        ),
    )
    async def fuzzy_search(
        query: Query,
        ctx: Context,
        limit: Limit = 10,
        countrySet: CountrySet = None,
        position: Bias = None,
        radius: Radius = None,
        categorySet: CategorySet = None,
        typeahead: Annotated[
            bool, Field(description="Treat the query as partial input (autocomplete)")
        ] = False,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        params = search_params(limit, countrySet, position, radius, language, categorySet)
        if typeahead:
            params.append(("typeahead", True))
        key = caller_key(ctx)
        body = await client.fuzzy_search(query, key=key, params=params)
        offline = client.serves_offline(key)
        return await deliver_places(runtime, FUZZY_SEARCH, body, {"query": query}, show_ui, offline)

    @model_tool(
        apps,
        MAP_URI,
        name=POI_SEARCH,
        title="Search points of interest",
        description=(
            "Search points of interest (shops, restaurants, fuel, hotels...) by name or "
            "category. Give a position and radius for local results. For EV charging with "
            "connectors, power and live availability use tomtom-ev-search; for category ids "
            "use tomtom-poi-categories."
        ),
    )
    async def poi_search(
        query: Query,
        ctx: Context,
        limit: Limit = 10,
        countrySet: CountrySet = None,
        position: Bias = None,
        radius: Radius = None,
        categorySet: CategorySet = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        params = search_params(limit, countrySet, position, radius, language, categorySet)
        key = caller_key(ctx)
        body = await client.poi_search(query, key=key, params=params)
        offline = client.serves_offline(key)
        return await deliver_places(runtime, POI_SEARCH, body, {"query": query}, show_ui, offline)

    @model_tool(
        apps,
        MAP_URI,
        name=NEARBY,
        title="Places nearby",
        description=(
            "Points of interest around a [longitude, latitude] position, nearest first, "
            "optionally of given categories."
        ),
    )
    async def nearby(
        position: Position,
        ctx: Context,
        radius: Annotated[
            int, Field(ge=1, le=50_000, description="Search radius in metres (1-50,000)")
        ] = 1000,
        limit: Limit = 10,
        categorySet: CategorySet = None,
        countrySet: CountrySet = None,
        language: Language = None,
        show_ui: ShowUi = True,
    ) -> CallToolResult:
        params = search_params(limit, countrySet, None, radius, language, categorySet)
        lon, lat = position
        key = caller_key(ctx)
        body = await client.nearby_search(lon, lat, key=key, params=params)
        origin = point_feature(position, {"kind": "origin", "label": "Search centre"})
        return await deliver_places(
            runtime,
            NEARBY,
            body,
            {"position": rounded(position), "radius_m": radius},
            show_ui,
            client.serves_offline(key),
            origin,
        )
