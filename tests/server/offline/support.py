"""What the offline-upstream tests share: their base URL, their "now", and route points."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

BASE = "http://offline.test"
NOW = datetime(2026, 12, 1, 14, 37, 12, tzinfo=UTC)
"""The tests' "now": answers depend on the minute, so a test must not cross one."""


def route_points(route: dict) -> np.ndarray:
    """All legs' points concatenated, `[lon, lat]`, indexed the way TomTom indexes them."""
    return np.array(
        [[p["longitude"], p["latitude"]] for leg in route["legs"] for p in leg["points"]]
    )
