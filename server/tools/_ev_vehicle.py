"""The electric vehicle Long Distance EV Routing plans for: battery, consumption, charging.

TomTom bills a refused request too, so every field is checked here, before any request,
naming the field to change; flat parameters in TomTom's names and units, turned into its
query parameters and POSTed `chargingParameters`.
"""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

PlugType = Literal[
    "IEC_62196_Type_1_Outlet",
    "IEC_62196_Type_2_Outlet",
    "IEC_62196_Type_3_Outlet",
    "IEC_62196_Type_1_Connector_Cable_Attached",
    "IEC_62196_Type_2_Connector_Cable_Attached",
    "IEC_62196_Type_3_Connector_Cable_Attached",
    "Combo_to_IEC_62196_Type_1_Base",
    "Combo_to_IEC_62196_Type_2_Base",
    "CHAdeMO",
    "Tesla_Connector",
    "China_GB_Part_2",
    "China_GB_Part_3",
    "IEC_60309_1_Phase",
    "IEC_60309_3_Phase",
    "IEC_309_DC_Plug",
    "Type_E_French_Standard_CEE_7_5",
    "Type_F_Schuko_CEE_7_4",
    "Type_G_British_Standard_BS_1363",
    "Type_J_Swiss_Standard_SEV_1011",
    "SAE_J1772",
    "NEMA_5_20",
    "Standard_Household_Country_Specific",
]

DEFAULT_CONSUMPTION = "50,8.2:130,21.3"
"""TomTom's documented example curve, used when the caller gives none."""


def _consumption(value: Any) -> Any:
    """TomTom's `'speed,kWh:speed,kWh'` text, `[[speed, kWh], ...]` pairs, or TomTom MCP's
    `[{speedKMH, consumptionUnitsPer100KM}]`, all as pairs."""
    if isinstance(value, str):
        pairs = []
        for part in value.split(":"):
            numbers = part.split(",")
            if len(numbers) != 2:
                raise ValueError(f"{part!r} is not 'speed,consumption' (e.g. '50,8.2:130,21.3')")
            try:
                pairs.append([float(numbers[0]), float(numbers[1])])
            except ValueError:
                raise ValueError(f"{part!r} holds a value that is not a number") from None
        return pairs
    if isinstance(value, list):
        return [
            [v.get("speedKMH"), v.get("consumptionUnitsPer100KM")] if isinstance(v, dict) else v
            for v in value
        ]
    return value


SpeedConsumption = Annotated[
    list[Annotated[float, Field(ge=0.01, le=100_000)]],
    Field(min_length=2, max_length=2),
]


def _check_curve(curve: Any) -> list[list[float]] | None:
    """Speeds 1-250 km/h, strictly increasing (as TomTom requires)."""
    if curve is None:
        return None
    if isinstance(curve, str):  # only a text _consumption could not split reaches here
        raise ValueError(f"{curve!r} is not 'speed,consumption:speed,consumption'")
    for (s0, _), (s1, _) in itertools.pairwise(curve):
        if s1 <= s0:
            raise ValueError(f"speeds must increase strictly ({s1:g} km/h follows {s0:g} km/h)")
    for speed, _ in curve:
        if not 1 <= speed <= 250:
            raise ValueError(f"speed {speed:g} km/h is outside [1, 250]")
    return curve


ConsumptionCurve = Annotated[
    # `str` is in the schema for TomTom's text form; the validator has made it pairs.
    str | Annotated[list[SpeedConsumption], Field(min_length=1, max_length=25)] | None,
    BeforeValidator(_consumption),
    AfterValidator(_check_curve),
    Field(
        description=(
            "Energy use at constant speed: 'speed,kWh/100km' pairs as TomTom's text "
            "'50,8.2:130,21.3' or [[50, 8.2], [130, 21.3]]; 1-25 pairs, speeds 1-250 km/h "
            "strictly increasing, consumption 0.01-100,000 kWh/100 km. Default: TomTom's "
            "example 50,8.2:130,21.3"
        ),
    ),
]


class CurvePoint(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stateOfChargeInkWh: Annotated[float, Field(ge=0, description="Battery level in kWh")]
    maxPowerInkW: Annotated[
        float, Field(gt=0, le=1_000, description="Most the battery takes at that level, kW")
    ]


class Connector(BaseModel):
    model_config = ConfigDict(extra="forbid")
    currentType: Annotated[
        Literal["AC1", "AC3", "DC"], Field(description="AC1, AC3 (three-phase) or DC")
    ]
    plugTypes: Annotated[list[PlugType], Field(min_length=1, max_length=22)]
    maxPowerInkW: Annotated[
        float | None, Field(gt=0, le=1_000, description="Most the car takes here, kW")
    ] = None
    efficiency: Annotated[float | None, Field(gt=0, le=1)] = None


DEFAULT_CONNECTORS = [
    Connector(
        currentType="AC3",
        plugTypes=["IEC_62196_Type_2_Outlet", "IEC_62196_Type_2_Connector_Cable_Attached"],
        maxPowerInkW=11,
    ),
    Connector(currentType="DC", plugTypes=["Combo_to_IEC_62196_Type_2_Base"], maxPowerInkW=150),
]
"""A European car's plugs (Type 2 AC, CCS2 DC) when the caller names none."""

Kwh = Annotated[float | None, Field(ge=0, le=1_000)]
Percent = Annotated[float | None, Field(ge=0, le=100)]

MaxChargeInkWh = Annotated[
    float, Field(gt=0, le=1_000, description="Usable battery capacity in kWh, e.g. 75")
]
CurrentChargeInkWh = Annotated[Kwh, Field(description="Charge at departure, kWh")]
CurrentChargePercent = Annotated[
    Percent, Field(description="Charge at departure, % of capacity (instead)")
]
MinChargeAtDestinationInkWh = Annotated[
    Kwh, Field(description="Charge to arrive with, kWh (default 20% of capacity)")
]
MinChargeAtChargingStopsInkWh = Annotated[
    Kwh, Field(description="Charge to reach each stop with, kWh (default 10%)")
]
OrInPercent = Annotated[Percent, Field(description="... or in %")]
ConsumptionInKWH = Annotated[
    list[dict[str, float]] | None,
    Field(
        max_length=25,
        description="The curve as [{speedKMH, consumptionUnitsPer100KM}] (TomTom MCP)",
    ),
]
AuxiliaryPowerInkW = Annotated[
    float | None, Field(ge=0, le=50, description="Heating, air conditioning: kW")
]
BatteryCurve = Annotated[
    list[CurvePoint] | None,
    Field(
        min_length=1,
        max_length=20,
        description=(
            "Charging power by battery level: [{stateOfChargeInkWh, maxPowerInkW}] in "
            "increasing level; default 150 kW to 50%, 90 kW to 80%, 30 kW above"
        ),
    ),
]
ChargingConnectors = Annotated[
    list[Connector] | None,
    Field(
        min_length=1,
        max_length=10,
        description=(
            "The car's plugs: [{currentType AC1|AC3|DC, plugTypes, maxPowerInkW}]; "
            "default Type 2 AC 11 kW and CCS2 DC 150 kW"
        ),
    ),
]
ChargingTimeOffsetInSec = Annotated[
    int | None, Field(ge=0, le=3_600, description="Time lost per stop, seconds")
]
EvTravelMode = Annotated[
    Literal["car", "van", "bus", "motorcycle", "truck"],
    Field(description="Vehicle (Long Distance EV Routing routes these only)"),
]


def consumption_curve(
    curve: list[list[float]] | None, tomtom_mcp: list[dict[str, float]] | None
) -> list[list[float]]:
    """The consumption curve given as `constantSpeedConsumptionInkWhPerHundredkm`, or in
    TomTom MCP's form (`consumptionInKWH`), never both; TomTom's example without either."""
    if tomtom_mcp is not None:
        if curve is not None:
            raise ToolError(
                "Give constantSpeedConsumptionInkWhPerHundredkm or consumptionInKWH, not both."
            )
        curve = _validated_curve(tomtom_mcp, "consumptionInKWH")
    return curve or _validated_curve(DEFAULT_CONSUMPTION, "default")


def vehicle_params(
    curve: list[list[float]], charges: dict[str, float], auxiliary_kw: float | None
) -> list[tuple[str, Any]]:
    """TomTom's query parameters for the vehicle: its consumption, charges and heating."""
    params: list[tuple[str, Any]] = [
        (
            "constantSpeedConsumptionInkWhPerHundredkm",
            ":".join(f"{s:g},{c:g}" for s, c in curve),
        ),
        *charges.items(),
    ]
    if auxiliary_kw is not None:
        params.append(("auxiliaryPowerInkW", auxiliary_kw))
    return params


def charging_parameters(
    maximum: float,
    battery_curve: list[CurvePoint] | None,
    connectors: list[Connector] | None,
    time_offset_s: int | None,
) -> dict[str, Any]:
    """TomTom's `chargingParameters`: the battery's charging curve (checked against the
    capacity, or a default one), the car's plugs and the time lost per stop."""
    points = battery_curve or [
        CurvePoint(stateOfChargeInkWh=0.5 * maximum, maxPowerInkW=150),
        CurvePoint(stateOfChargeInkWh=0.8 * maximum, maxPowerInkW=90),
        CurvePoint(stateOfChargeInkWh=maximum, maxPowerInkW=30),
    ]
    _check_battery_curve(points, maximum)
    charging: dict[str, Any] = {
        "batteryCurve": [p.model_dump() for p in points],
        "chargingConnectors": [
            c.model_dump(exclude_none=True) for c in connectors or DEFAULT_CONNECTORS
        ],
    }
    if time_offset_s is not None:
        charging["chargingTimeOffsetInSec"] = time_offset_s
    return charging


def _validated_curve(value: Any, field: str) -> list[list[float]]:
    try:
        pairs = _consumption(value)
        if not isinstance(pairs, list) or not 1 <= len(pairs) <= 25:
            raise ValueError("give 1 to 25 speed, consumption pairs")
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2) or not all(
                isinstance(v, int | float) and 0.01 <= v <= 100_000 for v in pair
            ):
                raise ValueError(f"{pair!r} is not a speed and a consumption in [0.01, 100,000]")
        checked = _check_curve([[float(s), float(c)] for s, c in pairs])
        assert checked is not None
        return checked
    except ValueError as exc:
        raise ToolError(f"{field}: {exc}") from None


def charges(
    maximum: float, **given: tuple[float | None, float | None, float | None, str]
) -> dict[str, float]:
    """TomTom's four charge parameters in kWh, from kWh or percent, checked against the
    capacity (each error names the field to change)."""
    out: dict[str, float] = {"maxChargeInkWh": maximum}
    for kwh, percent, default, stem in given.values():
        if kwh is not None and percent is not None:
            raise ToolError(f"Give {stem}InkWh or {stem}Percent, not both.")
        if kwh is None and percent is None:
            if default is None:
                raise ToolError(
                    f"{stem}InkWh (or {stem}Percent) is required: the charge at departure."
                )
            percent = default
        value = kwh if kwh is not None else maximum * (percent or 0) / 100
        if value > maximum:
            raise ToolError(
                f"{stem}InkWh ({value:g}) is above the battery capacity maxChargeInkWh "
                f"({maximum:g})."
            )
        out[f"{stem}InkWh"] = round(value, 3)
    if out["minChargeAtDestinationInkWh"] >= maximum:
        raise ToolError("minChargeAtDestinationInkWh must be below maxChargeInkWh.")
    if out["minChargeAtChargingStopsInkWh"] >= maximum:
        raise ToolError("minChargeAtChargingStopsInkWh must be below maxChargeInkWh.")
    return out


def _check_battery_curve(points: list[CurvePoint], maximum: float) -> None:
    for i, point in enumerate(points):
        if point.stateOfChargeInkWh > maximum:
            raise ToolError(
                f"batteryCurve.{i}.stateOfChargeInkWh ({point.stateOfChargeInkWh:g}) is above "
                f"maxChargeInkWh ({maximum:g})."
            )
    for i, (a, b) in enumerate(itertools.pairwise(points), start=1):
        if b.stateOfChargeInkWh <= a.stateOfChargeInkWh:
            raise ToolError(
                f"batteryCurve.{i}.stateOfChargeInkWh must be above the previous point's: the "
                "curve goes in increasing battery level."
            )
