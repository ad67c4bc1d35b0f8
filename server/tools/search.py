"""Search tools: geocode, reverse geocode, fuzzy, POI and nearby search.

Each answers the model with names, addresses, categories and one `[lon, lat]`
position per result (so it can route to them), and sends the results as
`result` points (plus the searched-around `origin`) for the map widget
(`_places.py`).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server.bodies import Dropped, entries, text
from tomtom_mcp_apps.server.jobs import point_feature, rounded
from tomtom_mcp_apps.server.tool_names import (
    FUZZY_SEARCH,
    GEOCODE,
    NEARBY,
    POI_SEARCH,
    REVERSE_GEOCODE,
)
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._inputs import (
    Bias,
    CategorySet,
    CountrySet,
    Language,
    Limit,
    Position,
    Query,
    Radius,
    ShowUi,
)
from tomtom_mcp_apps.server.tools._places import deliver_places, search_params


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
    caller = Caller.of(ctx)
    body = await caller.tomtom.geocode(query, key=caller.key, params=params)
    return await deliver_places(caller, GEOCODE, body, {"query": query}, show_ui)


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
    caller = Caller.of(ctx)
    body = await caller.tomtom.reverse_geocode(lon, lat, key=caller.key, params=params)
    dropped = Dropped()
    results = [
        {**entry, "type": text(entry.get("matchType")) or "Address"}
        for entry in entries(body.get("addresses"), "addresses", dropped)
    ]
    origin = point_feature(position, {"kind": "origin", "label": "Queried position"})
    asked = {"position": rounded(position)}
    return await deliver_places(
        caller, REVERSE_GEOCODE, {"results": results}, asked, show_ui, origin, dropped
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
    caller = Caller.of(ctx)
    body = await caller.tomtom.fuzzy_search(query, key=caller.key, params=params)
    return await deliver_places(caller, FUZZY_SEARCH, body, {"query": query}, show_ui)


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
    caller = Caller.of(ctx)
    body = await caller.tomtom.poi_search(query, key=caller.key, params=params)
    return await deliver_places(caller, POI_SEARCH, body, {"query": query}, show_ui)


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
    caller = Caller.of(ctx)
    body = await caller.tomtom.nearby_search(lon, lat, key=caller.key, params=params)
    origin = point_feature(position, {"kind": "origin", "label": "Search centre"})
    asked = {"position": rounded(position), "radius_m": radius}
    return await deliver_places(caller, NEARBY, body, asked, show_ui, origin)
