"""Helpers shared by the fitting tests: envelopes, decoding, and a metric frame."""

from __future__ import annotations

from typing import Any

import numpy as np

import fitting

M_PER_DEG = 6_371_008.8 * np.pi / 180.0


def envelope(*features: dict[str, Any], tool: str = "tomtom-routing") -> dict[str, Any]:
    return fitting.envelope(tool, {"type": "FeatureCollection", "features": list(features)})


def line_feature(coords: Any, **properties: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": {"kind": "route", **properties},
        "geometry": {"type": "LineString", "coordinates": coords},
    }


def sent_features(app_data: str) -> list[dict[str, Any]]:
    """The decoded features with their geometries turned back into GeoJSON."""
    decoded = fitting.decode(app_data)
    out = []
    for feature in decoded["data"]["features"]:
        feature = dict(feature)
        if feature.get("geometry"):
            feature["geometry"] = fitting.to_geojson(feature["geometry"])
        out.append(feature)
    return out


def metres(lonlat: np.ndarray, lat0: float) -> np.ndarray:
    """Equirectangular metres about `lat0`: a reference frame for small test lines."""
    lonlat = np.asarray(lonlat, dtype=np.float64)
    return np.column_stack(
        [lonlat[:, 0] * np.cos(np.radians(lat0)) * M_PER_DEG, lonlat[:, 1] * M_PER_DEG]
    )
