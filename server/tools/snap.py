"""`tomtom-snap-to-roads`: a GPS trace matched to the roads driven.

The trace comes as `points`, a `data_url` (GPX or GeoJSON), or inline `gpx` or
`geojson` (`server.jobs`' `_traces.py` reads and checks it: two points at least, times
in order). It is split as Snap to Roads' limits require (`_snap.py`: 5,000 points and
100 km of road a request, cut at gaps between fixes) and each part requested
(`SNAPS_AT_ONCE` at a time, synchronous: the timestamps a speed needs stay in the call);
the answers are joined and read in a worker when large.
"""

from __future__ import annotations

import asyncio

import orjson
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.downloads import download
from tomtom_mcp_apps.server.tool_names import SNAP_TO_ROADS
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._inputs import (
    Gpx,
    ShowUi,
    TraceGeoJson,
    TracePoints,
    TraceUrl,
    TraceVehicle,
)

SNAPS_AT_ONCE = 4
"""Parts of a trace requested from TomTom at once (as a map's routes are)."""
MAX_REQUESTS = 40
"""Requests one call sends: a trace needing more (over about 3,000 km) is refused."""


async def snap_to_roads(
    ctx: Context,
    points: TracePoints = None,
    data_url: TraceUrl = None,
    gpx: Gpx = None,
    geojson: TraceGeoJson = None,
    vehicleType: TraceVehicle = "PassengerCar",
    show_ui: ShowUi = True,
) -> CallToolResult:
    given = [name for name, v in (("points", points), ("data_url", data_url), ("gpx", gpx),
                                  ("geojson", geojson)) if v is not None]  # fmt: skip
    if len(given) != 1:
        raise ToolError(
            "give exactly one of points, data_url (GPX or GeoJSON), gpx or geojson"
            + (f"; got {', '.join(given)}" if given else "")
        )
    caller = Caller.of(ctx)
    runtime = caller.runtime
    if points is not None:
        fixes = [(p.position[0], p.position[1], p.timestamp, p.heading) for p in points]
        trace = jobs.trace_of_points(fixes)
    else:
        if data_url is not None:
            settings = runtime.settings
            body = await download(runtime.downloads, data_url, settings, runtime.placement)
            where = "data_url"
        elif gpx is not None:
            body, where = gpx.encode("utf-8"), "gpx"
        else:
            raw = geojson if isinstance(geojson, str) else orjson.dumps(geojson).decode()
            body, where = raw.encode("utf-8"), "geojson"
        size = runtime.placement.for_bytes(len(body) * 4)
        trace = await runtime.placement.run(jobs.trace_of_text, body, where, size=size)
    chunks, gaps = jobs.chunks_of(trace.lonlat)
    if not chunks:
        raise ToolError(
            "the trace's fixes are all more than 5 km apart: there is no road to follow between "
            "them (a trace needs fixes every few hundred metres at most)"
        )
    if len(chunks) > MAX_REQUESTS:
        raise ToolError(
            f"this trace needs {len(chunks)} requests to TomTom (each takes 5,000 points and "
            f"100 km of road); this server sends at most {MAX_REQUESTS} in one call: split it "
            "(by day, or by trip) and snap each part"
        )
    answers = await _snapped(caller, trace, chunks, vehicleType)
    settings = runtime.settings
    job = Job(
        tool=SNAP_TO_ROADS,
        func=jobs.snap_result,
        args=(trace, chunks, gaps, answers, show_ui, settings.budget),
        size=runtime.placement.for_bodies(answers) or runtime.placement.for_points(len(trace)),
        offline=caller.offline,
    )
    return await deliver_job(runtime, job)


async def _snapped(
    caller: Caller, trace: jobs.Trace, chunks: list[jobs.Chunk], vehicle: str
) -> list[RawBody]:
    """TomTom's answer for every part, `SNAPS_AT_ONCE` at a time. After a failure no
    further part is sent (each is billed); the call ends with the first failure once the
    requests under way are answered."""
    params = [
        ("fields", jobs.SNAP_FIELDS),
        ("vehicleType", vehicle),
        ("measurementSystem", "metric"),
    ]
    at_once = asyncio.Semaphore(SNAPS_AT_ONCE)
    failed: list[BaseException] = []

    async def one(chunk: jobs.Chunk) -> RawBody | None:
        async with at_once:
            if failed:
                return None
            body = RawBody(jobs.snap_request_body(trace, chunk))
            try:
                return await caller.tomtom.snap_to_roads_raw(body, key=caller.key, params=params)
            except BaseException as exc:
                failed.append(exc)
                raise

    answers = await asyncio.gather(*(one(c) for c in chunks), return_exceptions=True)
    for answer in answers:
        if isinstance(answer, BaseException):
            raise answer
    return [a for a in answers if isinstance(a, RawBody)]
