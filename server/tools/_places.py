"""The places a search found, as every search tool answers them.

The search tools send the same query parameters (`search_params`) and answer alike
(`deliver_places`): names, addresses, categories and a `[lon, lat]` position per result
for the model, `result` points (and the searched-around `origin`) for the view.
"""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult

from tomtom_mcp_apps.server.bodies import Dropped, integer, obj, required_list
from tomtom_mcp_apps.server.jobs import collection, search_results
from tomtom_mcp_apps.server.tomtom import coordinate
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import deliver


def search_params(
    limit: int,
    country_set: str | None,
    position: list[float] | None,
    radius: int | None,
    language: str | None,
    category_set: str | None = None,
) -> list[tuple[str, Any]]:
    """TomTom Search's query parameters for the filters the search tools share."""
    params: list[tuple[str, Any]] = [("limit", limit)]
    if country_set:
        params.append(("countrySet", country_set.upper()))
    if position is not None:
        params += [("lat", coordinate(position[1])), ("lon", coordinate(position[0]))]
    if radius is not None:
        params.append(("radius", radius))
    if language:
        params.append(("language", language))
    if category_set:
        params.append(("categorySet", category_set))
    return params


async def deliver_places(
    caller: Caller,
    tool: str,
    body: dict[str, Any],
    asked: dict[str, Any],
    show_ui: bool,
    origin: dict[str, Any] | None = None,
    dropped: Dropped | None = None,
) -> CallToolResult:
    """`caller`'s tool result for TomTom's search answer `body`: `asked` (what was searched)
    with the results, and the `origin` searched around, if any, first on the map."""
    dropped = dropped or Dropped()
    items, features = search_results(required_list(body, "results"), dropped)
    total = integer(obj(body.get("summary")).get("totalResults"))
    answer: dict[str, Any] = {**asked, "count": len(items), "results": items}
    if total is not None and total > len(items):
        answer["total_available"] = total
    if not items:
        answer["note"] = "No results. Try a broader query, a larger radius or no country filter."
    if origin is not None:
        features.insert(0, origin)
    data = collection(features, summary={**asked, "count": len(items)})
    return await deliver(
        caller.runtime,
        tool=tool,
        answer=dropped.report(answer),
        data=data,
        show_ui=show_ui,
        offline=caller.offline,
    )
