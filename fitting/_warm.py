"""Loading every kernel ahead of the first request (process-pool initializer)."""

from __future__ import annotations

import numpy as np

from ._codec import envelope
from ._fit import fit


def warm_up() -> None:
    """Runs one tiny fit that calls every kernel, so each is compiled or loaded from cache.

    A wavy ring that must be simplified reaches the ring kernels as well as the line ones.
    """
    t = np.linspace(0.0, 2.0 * np.pi, 200)
    wave = 1.0 + 0.3 * np.cos(7.0 * t)
    ring = np.column_stack([5.0 + 0.1 * np.cos(t) * wave, 52.0 + 0.1 * np.sin(t) * wave])
    ring[-1] = ring[0]
    line = np.column_stack([np.linspace(4.0, 5.0, 400), 52.0 + 0.01 * np.sin(np.arange(400.0))])
    features = [
        {"type": "Feature", "properties": {}, "geometry": {"type": kind, "coordinates": coords}}
        for kind, coords in (("Polygon", [ring]), ("LineString", line))
    ]
    data = {"type": "FeatureCollection", "features": features}
    fit(envelope("warm-up", data), 1_500)
