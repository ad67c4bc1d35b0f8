"""The `outputSchema`s of the tools that answer with `structuredContent` (matrix, plan).

The SDK reads a tool's return annotation `Annotated[CallToolResult, Model]`: it publishes
the model's JSON schema as the tool's `outputSchema` and checks every successful result's
`structuredContent` against it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class MatrixOutput(BaseModel):
    """`tomtom-matrix`'s whole matrix, origin by destination."""

    origins: list[list[float]] = Field(description="The origins, [longitude, latitude]")
    destinations: list[list[float]] = Field(description="The destinations, [longitude, latitude]")
    travelTimes: list[list[int | None]] = Field(
        description="Seconds from origin i to destination j; null where there is no route"
    )
    lengths: list[list[int | None]] = Field(
        description="Metres from origin i to destination j; null where there is no route"
    )
    statuses: list[list[str]] = Field(
        description=(
            "Each cell's status: OK, or why it has no route (TomTom's code, such as "
            "NO_ROUTE_FOUND or OUT_OF_REGION; MISSING or MALFORMED when TomTom's answer "
            "lacked it)"
        )
    )
    billedCells: int = Field(description="Transactions TomTom bills for this matrix")


class PlannedVehicle(BaseModel):
    vehicle: int = Field(description="Index of the vehicle in the input")
    stops: list[int] = Field(description="Indices into the input stops, in visiting order")
    arrivals: list[str] = Field(
        description="Arrival time at each stop, ISO 8601 with the offset of the input"
    )
    departure: str = Field(description="When the vehicle leaves its start, ISO 8601")
    finish: str = Field(description="When it is back at its end (or done), ISO 8601")
    drivingSeconds: int
    lengthMeters: int
    load: int


class UnassignedStop(BaseModel):
    stop: int = Field(description="Index of the stop in the input")
    reason: str


class PlanOutput(BaseModel):
    """`tomtom-plan-routes`'s plan."""

    routes: list[PlannedVehicle]
    unassigned: list[UnassignedStop]
    objective: str = Field(description="What the plan minimises: time or distance")
    drivingSeconds: int
    lengthMeters: int
