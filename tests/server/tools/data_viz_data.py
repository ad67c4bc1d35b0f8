"""What the data-viz tests share: a collection too large for one result, and the settings
that page it."""

from __future__ import annotations

from typing import Any

import numpy as np


def big_collection(points: int) -> dict[str, Any]:
    """Seeded random points: incompressible enough to need several pages."""
    rng = np.random.default_rng(5)
    coords = np.column_stack((rng.uniform(3, 7, points), rng.uniform(50, 54, points)))
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"i": i},
                "geometry": {"type": "Point", "coordinates": [x, y]},
            }
            for i, (x, y) in enumerate(coords.tolist())
        ],
    }


BIG = big_collection(5_000)
BIG_BUDGET = 30_000
"""A quarter of the default budget for a quarter of the points, and pages as small: several
pages of features."""

BIG_SETTINGS = {"data_viz_allow_private": True, "budget": BIG_BUDGET, "page_chars": BIG_BUDGET}
"""Results and pages of `BIG_BUDGET`, a data_url on this machine allowed."""
