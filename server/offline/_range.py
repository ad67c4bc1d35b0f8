"""calculateReachableRange answers: an irregular, simple polygon sized by the budget.

The boundary is star-shaped around the origin (angles strictly increasing,
radii positive), which makes it simple by construction, however irregular.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _geo
from tomtom_mcp_apps.server.offline._errors import ROUTING_FORMAT_VERSION
from tomtom_mcp_apps.server.offline._query import Query, parse_latlon, parse_number

_BUDGETS = ("timeBudgetInSec", "distanceBudgetInMeters", "fuelBudgetInLiters",
            "energyBudgetInkWh")  # fmt: skip
_AVERAGE_KMH = {"pedestrian": 5.0, "bicycle": 16.0, "truck": 60.0, "bus": 55.0}
_ROAD_FACTOR = 0.75  # straight-line reach per metre driven
_MAX_RADIUS_M = 1_500_000.0


def reachable_range(origin: str, q: Query) -> dict[str, Any]:
    lon, lat = parse_latlon(origin, "origin")
    radius = _radius_m(q)
    rng = _geo.rng_for("range", round(lon, 5), round(lat, 5), round(radius))
    count = int(rng.integers(240, 360))
    step = 2 * math.pi / count
    theta = np.arange(count) * step + rng.uniform(-0.4, 0.4, size=count) * step
    shape = np.full(count, 0.72)
    for k in range(2, 9):
        shape += rng.uniform(0.02, 0.16) / k**0.5 * np.cos(k * theta + rng.uniform(0, 2 * np.pi))
    shape += rng.uniform(-0.04, 0.04, size=count)
    r = radius * np.clip(shape, 0.2, None)
    boundary = []
    for t, rr in zip(theta.tolist(), r.tolist(), strict=True):
        plon, plat = _geo.offset(lon, lat, rr * math.cos(t), rr * math.sin(t))
        boundary.append({"latitude": round(plat, 5), "longitude": round(plon, 5)})
    return {
        "formatVersion": ROUTING_FORMAT_VERSION,
        "reachableRange": {
            "center": {"latitude": round(lat, 5), "longitude": round(lon, 5)},
            "boundary": boundary,
        },
    }


def _radius_m(q: Query) -> float:
    given = [name for name in _BUDGETS if q.text(name) is not None]
    if len(given) != 1:
        raise OfflineBadRequest(
            "Exactly one of timeBudgetInSec, distanceBudgetInMeters, fuelBudgetInLiters or "
            f"energyBudgetInkWh is required ({len(given)} given)."
        )
    name = given[0]
    budget = q.number(name, low=0.0, high=1e7, required=True)
    assert budget is not None
    if budget <= 0:
        raise OfflineBadRequest(f"Invalid value for '{name}': the budget must be positive.")
    mode = q.choice("travelMode", ("car", "truck", "taxi", "bus", "van", "motorcycle",
                                   "bicycle", "pedestrian"), "car")  # fmt: skip
    if name == "timeBudgetInSec":
        driven = budget * _AVERAGE_KMH.get(mode, 70.0) / 3.6
    elif name == "distanceBudgetInMeters":
        driven = budget
    elif name == "fuelBudgetInLiters":
        per_100km = _consumption(q, "constantSpeedConsumptionInLitersPerHundredkm", name)
        driven = budget / per_100km * 100_000.0
    else:
        per_100km = _consumption(q, "constantSpeedConsumptionInkWhPerHundredkm", name)
        driven = budget / per_100km * 100_000.0
    return min(driven * _ROAD_FACTOR, _MAX_RADIUS_M)


def _consumption(q: Query, param: str, budget: str) -> float:
    """Mean consumption from TomTom's `speed,consumption:speed,consumption` curve."""
    text = q.text(param)
    if text is None:
        raise OfflineBadRequest(f"'{budget}' needs the consumption model: '{param}' is missing.")
    values = []
    for pair in text.split(":"):
        parts = pair.split(",")
        if len(parts) != 2:
            raise OfflineBadRequest(
                f"Invalid value for '{param}': {pair!r} is not 'speed,consumption'."
            )
        parse_number(parts[0], f"{param} speed", 1.0, 300.0)
        values.append(parse_number(parts[1], f"{param} consumption", 0.01, 500.0))
    return sum(values) / len(values)
