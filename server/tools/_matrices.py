"""A travel-time matrix from TomTom's Matrix Routing v2, for `tomtom-matrix` and the plans.

One request per matrix, never one per pair. Up to 100 cells, or up to
`MATRIX_SYNC_MAX_CELLS` (200) when every point fits TomTom's 400 km box, the synchronous
endpoint answers at once; beyond, an asynchronous job is submitted, its state polled
within what the call has left, and its result fetched (a 302 is followed by the client).
Past `MATRIX_MAX_CELLS` a matrix is refused before anything is sent, saying the limit and
why. A job that outlasts the call ends in `job_outlasted`, the one place that says so
(docs/upstream.md, Matrix Routing v2).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from mcp.server.mcpserver.exceptions import ToolError

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.bodies import request_body
from tomtom_mcp_apps.server.ops import call_scope
from tomtom_mcp_apps.server.tomtom import billed_cells
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._vehicle import Vehicle

ANY_EXTENT_CELLS = 100
"""TomTom computes a synchronous matrix of up to this many cells with any options and
any extent (its Synchronous Matrix limits)."""
REGION_KM = 400.0
"""Past 100 cells, a synchronous matrix on Freemium and pay-as-you-grow must fit a box of
this side, or its far cells come back `OUT_OF_REGION`."""
POLL_FIRST_S = 0.25
POLL_MAX_S = 2.0
PENDING = frozenset({"Submitted", "Enqueued", "InProgress", "Accepted", "Queued"})
"""Job states that may still end `Completed`; any other state but `Completed` ends the job."""


@dataclass(frozen=True)
class Fetched:
    answer: dict[str, Any]
    """TomTom's matrix answer (`data`, `statistics`)."""
    billed: int
    """Transactions TomTom bills for it."""
    mode: str
    """`sync` or `async`."""
    ms: float


def check_size(origins: int, destinations: int, limit: int, *, what: str = "matrix") -> None:
    """Refuses a matrix over `limit` cells before anything is sent."""
    cells = origins * destinations
    if cells > limit:
        raise ToolError(
            f"The {what} needs {origins} x {destinations} = {cells:,} travel times, more than "
            f"the {limit:,} this server asks TomTom for in one matrix (MATRIX_MAX_CELLS: "
            "TomTom's asynchronous limit on its pay-as-you-grow plan). Use fewer origins or "
            "destinations, or split the request."
        )


def matrix_options(
    vehicle: Vehicle,
    travel_mode: str,
    route_type: str,
    traffic: str,
    avoid: Sequence[str] | None,
    *,
    departAt: str | None = None,
    arriveAt: str | None = None,
) -> dict[str, Any]:
    """Matrix v2's `options`: the route options and the truck profile as TomTom names them."""
    if departAt and arriveAt:
        raise ToolError("Give departAt or arriveAt, not both.")
    vehicle.params(travel_mode)  # refuses truck-only fields for other modes
    options: dict[str, Any] = {
        "travelMode": travel_mode,
        "routeType": route_type,
        "traffic": traffic,
    }
    if avoid:
        options["avoid"] = list(dict.fromkeys(avoid))
    if departAt:
        options["departAt"] = departAt
    if arriveAt:
        options["arriveAt"] = arriveAt
    for name, value in vehicle.described().items():
        options[name] = list(dict.fromkeys(value)) if name == "vehicleLoadType" else value
    return options


def matrix_body(
    origins: Sequence[Sequence[float]],
    destinations: Sequence[Sequence[float]],
    options: dict[str, Any],
) -> bytes:
    """The Matrix v2 request: points as `{"point": {"latitude", "longitude"}}`."""

    def points(positions: Sequence[Sequence[float]]) -> list[dict[str, Any]]:
        return [{"point": {"latitude": lat, "longitude": lon}} for lon, lat in positions]

    return orjson.dumps(
        {"origins": points(origins), "destinations": points(destinations), "options": options}
    )


def synchronous(
    origins: Sequence[Sequence[float]], destinations: Sequence[Sequence[float]], sync_max: int
) -> bool:
    """Whether the synchronous endpoint takes this matrix whole (TomTom's rules)."""
    cells = len(origins) * len(destinations)
    if cells <= min(ANY_EXTENT_CELLS, sync_max):
        return True
    return cells <= sync_max and _fits_region([*origins, *destinations])


def _fits_region(points: Sequence[Sequence[float]]) -> bool:
    lons = [p[0] for p in points]
    lats = [p[1] for p in points]
    mid_lat = (min(lats) + max(lats)) / 2
    width = float(haversine_m(min(lons), mid_lat, max(lons), mid_lat))
    height = float(haversine_m(lons[0], min(lats), lons[0], max(lats)))
    return max(width, height) <= REGION_KM * 1000 * 0.95


async def fetch_matrix(
    caller: Caller,
    origins: Sequence[Sequence[float]],
    destinations: Sequence[Sequence[float]],
    options: dict[str, Any],
    *,
    reserve_s: float = 0.0,
) -> Fetched:
    """TomTom's matrix for `origins` x `destinations`; `reserve_s` of the call is kept for
    what the tool does after it (a plan's solve and routes)."""
    started = time.perf_counter()
    settings = caller.runtime.settings
    body = request_body(matrix_body(origins, destinations, options))
    count = {"origins": len(origins), "destinations": len(destinations)}
    billed = billed_cells(len(origins), len(destinations))
    tomtom = caller.tomtom
    if synchronous(origins, destinations, settings.matrix_sync_max_cells):
        answer = await tomtom.matrix_sync(body, key=caller.key, **count)
        mode = "sync"
    else:
        job = await tomtom.matrix_submit(body, key=caller.key, **count)
        answer = await _finished(caller, job, reserve_s)
        mode = "async"
    call_scope.noted(matrix=mode, matrix_cells=len(origins) * len(destinations))
    return Fetched(answer, billed, mode, (time.perf_counter() - started) * 1000)


async def _finished(caller: Caller, job: dict[str, Any], reserve_s: float) -> dict[str, Any]:
    """The result of a submitted job, polled while the call has time for it."""
    job_id = job.get("jobId")
    if not isinstance(job_id, str) or not job_id:
        raise ToolError("TomTom accepted the matrix job but named no jobId; try again later.")
    state = str(job.get("state", "Submitted"))
    scope = call_scope.current(caller.runtime.settings.call_deadline_s)
    wait = POLL_FIRST_S
    while state != "Completed":
        if state not in PENDING:
            raise ToolError(
                f"TomTom's matrix job {job_id} ended {state!r} without a result; the "
                "request may be retried with fewer or nearer points."
            )
        if scope.remaining - reserve_s - caller.runtime.settings.upstream_timeout_s < wait:
            raise job_outlasted(job_id, state)
        await asyncio.sleep(wait)
        wait = min(wait * 2, POLL_MAX_S)
        status = await caller.tomtom.matrix_status(job_id, key=caller.key)
        state = str(status.get("state", state))
    return await caller.tomtom.matrix_result(job_id, key=caller.key)


def job_outlasted(job_id: str, state: str) -> ToolError:
    """The one answer for a TomTom matrix job still running when the call must end."""
    return ToolError(
        f"TomTom is still computing this matrix (job {job_id}, state {state}) and this call "
        "has no time left to wait for it. The job is billed already; ask again in a minute "
        "with the same points, or with fewer of them."
    )
