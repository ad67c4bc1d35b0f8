"""The vehicle profile every routing tool takes: TomTom's truck parameters, flat.

TomTom's MCP server and Routing API v1 spell them as flat parameters (`vehicleHeight`...);
`takes_vehicle` adds them to a tool's signature once, so the schema, ranges and checks
live here only and the tool receives one validated `Vehicle`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar, get_type_hints

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, Field

LoadType = Literal[
    "USHazmatClass1",
    "USHazmatClass2",
    "USHazmatClass3",
    "USHazmatClass4",
    "USHazmatClass5",
    "USHazmatClass6",
    "USHazmatClass7",
    "USHazmatClass8",
    "USHazmatClass9",
    "otherHazmatExplosive",
    "otherHazmatGeneral",
    "otherHazmatHarmfulToWater",
]

TRUCK_ONLY = ("vehicleLoadType", "vehicleAdrTunnelRestrictionCode")
"""TomTom applies these to trucks only; for any other mode they are refused, not ignored."""


class Vehicle(BaseModel):
    """Dimensions, weights and cargo of the vehicle (TomTom's names and units)."""

    model_config = ConfigDict(extra="forbid")

    vehicleLength: Annotated[
        float | None, Field(gt=0, le=50, description="Vehicle length in metres (0-50)")
    ] = None
    vehicleWidth: Annotated[
        float | None, Field(gt=0, le=5, description="Vehicle width in metres (0-5)")
    ] = None
    vehicleHeight: Annotated[
        float | None, Field(gt=0, le=10, description="Vehicle height in metres (0-10)")
    ] = None
    vehicleWeight: Annotated[
        int | None, Field(ge=1, le=100_000, description="Vehicle weight in kg (1-100,000)")
    ] = None
    vehicleAxleWeight: Annotated[
        int | None, Field(ge=1, le=50_000, description="Weight per axle in kg (1-50,000)")
    ] = None
    vehicleNumberOfAxles: Annotated[
        int | None, Field(ge=2, le=20, description="Number of axles (2-20)")
    ] = None
    vehicleCommercial: Annotated[
        bool | None,
        Field(description="Commercial vehicle (roads closed to through traffic are avoided)"),
    ] = None
    vehicleLoadType: Annotated[
        list[LoadType] | None,
        Field(
            max_length=12,
            description=(
                "Hazardous cargo (trucks only): USHazmatClass1-9, otherHazmatExplosive, "
                "otherHazmatGeneral, otherHazmatHarmfulToWater"
            ),
        ),
    ] = None
    vehicleAdrTunnelRestrictionCode: Annotated[
        Literal["B", "C", "D", "E"] | None,
        Field(description="ADR tunnel category of the cargo, B to E (trucks only)"),
    ] = None
    vehicleMaxSpeed: Annotated[
        int | None, Field(ge=1, le=250, description="Vehicle top speed in km/h (1-250)")
    ] = None

    def params(self, travel_mode: str) -> list[tuple[str, Any]]:
        """TomTom query parameters, or a ToolError naming a truck-only field given for
        another travel mode."""
        given = self.described()
        if travel_mode != "truck":
            for name in TRUCK_ONLY:
                if name in given:
                    raise ToolError(
                        f"{name} applies to trucks only: set travelMode to 'truck', "
                        f"or leave {name} out for travelMode '{travel_mode}'."
                    )
        out: list[tuple[str, Any]] = []
        for name, value in given.items():
            if name == "vehicleLoadType":
                out.append((name, ",".join(dict.fromkeys(value))))
            else:
                out.append((name, value))
        return out

    def described(self) -> dict[str, Any]:
        """The profile fields given (also on models that extend `Vehicle`)."""
        values = ((name, getattr(self, name)) for name in Vehicle.model_fields)
        return {name: value for name, value in values if value is not None}


FIELDS = tuple(Vehicle.model_fields)
_T = TypeVar("_T")


def takes_vehicle(
    tool: Callable[..., Awaitable[_T]],
) -> Callable[..., Awaitable[_T]]:
    """`tool(..., vehicle: Vehicle)` exposed with every `Vehicle` field as a flat,
    optional parameter (its schema shows each with its unit and range)."""
    signature = inspect.signature(tool, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "vehicle"]
    hints = get_type_hints(Vehicle, include_extras=True)
    added = [
        inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=hints[name]
        )
        for name in FIELDS
    ]

    @functools.wraps(tool)
    async def wrapper(*args: Any, **kwargs: Any) -> _T:
        given = {name: kwargs.pop(name) for name in FIELDS if name in kwargs}
        vehicle = Vehicle.model_validate({k: v for k, v in given.items() if v is not None})
        return await tool(*args, vehicle=vehicle, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
    return wrapper
