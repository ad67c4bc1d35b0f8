"""`tomtom-matrix`: travel times and distances from many origins to many destinations.

One Matrix Routing v2 request (`_matrices.py`: synchronous when TomTom allows it, else an
asynchronous job polled within the call). The model reads a compact table, the whole
matrix rides in `structuredContent` (`MatrixOutput`), and the fleet view draws the points
and a table to sort.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.tool_names import MATRIX
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._inputs import (
    ArriveAt,
    DepartAt,
    MatrixAvoid,
    Position,
    ShowUi,
    TrafficParam,
)
from tomtom_mcp_apps.server.tools._matrices import check_size, fetch_matrix, matrix_options
from tomtom_mcp_apps.server.tools._outputs import MatrixOutput
from tomtom_mcp_apps.server.tools._vehicle import Vehicle, takes_vehicle

Points = Annotated[
    list[Position],
    Field(
        min_length=1,
        max_length=2500,
        description="[longitude, latitude] positions, e.g. [[4.8897, 52.3740], [4.4777, 51.9244]]",
    ),
]


@takes_vehicle
async def matrix(
    origins: Points,
    ctx: Context,
    vehicle: Vehicle,
    destinations: Annotated[
        list[Position] | None,
        Field(
            min_length=1,
            max_length=2500,
            description="Where to; default: the origins themselves (a square matrix)",
        ),
    ] = None,
    travelMode: Annotated[
        Literal["car", "truck", "pedestrian"],
        Field(description="car, truck (with its dimensions, weights and cargo) or pedestrian"),
    ] = "car",
    routeType: Annotated[
        Literal["fastest", "shortest"], Field(description="'fastest' or 'shortest'")
    ] = "fastest",
    traffic: TrafficParam = "historical",
    avoid: MatrixAvoid = None,
    departAt: DepartAt = None,
    arriveAt: ArriveAt = None,
    show_ui: ShowUi = True,
) -> Annotated[CallToolResult, MatrixOutput]:
    settings = Caller.of(ctx).runtime.settings
    targets = destinations if destinations is not None else origins
    check_size(len(origins), len(targets), settings.matrix_max_cells)
    options = matrix_options(
        vehicle, travelMode, routeType, traffic, avoid, departAt=departAt, arriveAt=arriveAt
    )
    caller = Caller.of(ctx)
    fetched = await fetch_matrix(caller, origins, targets, options)
    args: tuple[Any, ...] = (
        fetched.answer,
        origins,
        targets,
        destinations is None,
        fetched.billed,
        show_ui,
        settings.budget,
    )
    job = Job(tool=MATRIX, func=jobs.matrix_result, args=args, size=None, offline=caller.offline)
    return await deliver_job(caller.runtime, job)
