"""Fitting a view's map data under a character budget: pure, CPU-bound, no I/O.

Every input and output pickles, so the server runs `fit` in a process pool
(docs/fitting.md; the envelope is docs/result.md).
"""

from __future__ import annotations

from . import geo
from ._codec import (
    DECIMAL_VERSION,
    VERSION,
    Member,
    decode,
    envelope,
    pack,
    point_run,
    to_geojson,
)
from ._decimals import NOT_SENT
from ._decimals import encode as decimal_section
from ._exceptions import DoesNotFit, FittingError, InvalidGeometry
from ._fit import FitResult, fit, point_count
from ._geojson_scan import SHAPES as GEOJSON_SHAPES
from ._geojson_scan import Scan as GeoJsonScan
from ._geojson_scan import check_shapes
from ._geojson_scan import scan as scan_geojson
from ._geojson_scan import values as scanned_values
from ._tomtom_json import leg_points, plain_text
from ._warm import warm_up

__all__ = [
    "DECIMAL_VERSION",
    "GEOJSON_SHAPES",
    "NOT_SENT",
    "VERSION",
    "DoesNotFit",
    "FitResult",
    "FittingError",
    "GeoJsonScan",
    "InvalidGeometry",
    "Member",
    "check_shapes",
    "decimal_section",
    "decode",
    "envelope",
    "fit",
    "geo",
    "leg_points",
    "pack",
    "plain_text",
    "point_count",
    "point_run",
    "scan_geojson",
    "scanned_values",
    "to_geojson",
    "warm_up",
]
