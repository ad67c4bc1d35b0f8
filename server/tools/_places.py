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
from tomtom_mcp_apps.server.offline import OFFLINE_NOTE_FIELD
from tomtom_mcp_apps.server.tomtom import coordinate
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import deliver

NO_RESULTS = "No results. Try a broader query, a larger radius or no country filter."


def _offline_note(summary: dict[str, Any]) -> str | None:
    """Why the offline upstream found nothing (a name not in its demo data, or nowhere to
    search around), which TomTom-shaped answers have no field for (docs/upstream.md)."""
    note = summary.get(OFFLINE_NOTE_FIELD)
    return note if isinstance(note, str) and note else None


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
    summary = obj(body.get("summary"))
    total = integer(summary.get("totalResults"))
    answer: dict[str, Any] = {**asked, "count": len(items), "results": items}
    if total is not None and total > len(items):
        answer["total_available"] = total
    if not items:
        answer["note"] = (caller.offline and _offline_note(summary)) or NO_RESULTS
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
