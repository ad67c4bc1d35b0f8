"""`tomtom-traffic`: traffic incidents in a bounding box.

The model reads the worst `maxIncidents` as text; the view gets every incident as app data,
with the `area` and the `count`, over TomTom's live flow tiles when a key exists.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import bodies, jobs
from tomtom_mcp_apps.server.tool_names import TRAFFIC
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import deliver
from tomtom_mcp_apps.server.tools._inputs import BBox, Language, ShowUi

_FIELDS = (
    "{incidents{type,geometry{type,coordinates},properties{id,iconCategory,magnitudeOfDelay,"
    "events{description,code},startTime,endTime,from,to,length,delay,roadNumbers,timeValidity}}}"
)


async def traffic(
    bbox: BBox,
    ctx: Context,
    maxIncidents: Annotated[
        int, Field(ge=1, le=100, description="Incidents to describe, worst first (1-100)")
    ] = 20,
    categoryFilter: Annotated[
        list[int] | None,
        Field(
            max_length=14,
            description=(
                "Only these incident categories: 0 unknown, 1 accident, 2 fog, 3 dangerous "
                "conditions, 4 rain, 5 ice, 6 jam, 7 lane closed, 8 road closed, 9 road "
                "works, 10 wind, 11 flooding, 14 broken-down vehicle"
            ),
        ),
    ] = None,
    timeValidityFilter: Annotated[
        list[Literal["present", "future"]] | None,
        Field(max_length=2, description="'present' (default), 'future' (planned) or both"),
    ] = None,
    language: Language = None,
    show_ui: ShowUi = True,
) -> CallToolResult:
    params: list[tuple[str, Any]] = [("fields", _FIELDS)]
    if categoryFilter:
        unknown = sorted(set(categoryFilter) - set(jobs.INCIDENT_CATEGORIES))
        if unknown:
            raise ToolError(f"categoryFilter: unknown incident categories {unknown}")
        params.append(("categoryFilter", ",".join(map(str, sorted(set(categoryFilter))))))
    if timeValidityFilter:
        params.append(("timeValidityFilter", ",".join(dict.fromkeys(timeValidityFilter))))
    if language:
        params.append(("language", language))
    caller = Caller.of(ctx)
    body = await caller.tomtom.incident_details(bbox, key=caller.key, params=params)
    dropped = bodies.Dropped()
    found = jobs.incidents_of(body, dropped)
    incidents = [summary for _, summary in found]
    answer: dict[str, Any] = {
        "bbox": [round(v, 5) for v in bbox],
        "count": len(incidents),
        "incidents": incidents[:maxIncidents],
    }
    if len(incidents) > maxIncidents:
        answer["incidents_omitted"] = len(incidents) - maxIncidents
    if not incidents:
        answer["note"] = "No incidents reported in this area."
    data = jobs.incident_collection(found, bbox)
    return await deliver(
        caller.runtime,
        tool=TRAFFIC,
        answer=dropped.report(answer),
        data=data,
        show_ui=show_ui,
        offline=caller.offline,
    )
