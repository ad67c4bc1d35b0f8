"""Readying a process for fitting: every kernel loaded, freed memory kept for the next fit."""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import orjson

from ._codec import decode, envelope, pack
from ._decimals import encode as decimal_section
from ._fit import fit
from ._geojson_scan import SHAPES, check_shapes, hard_values, scan, values
from ._tomtom_json import leg_points, plain_text

# glibc mallopt parameters (malloc.h) and the values set: arrays up to 32 MiB
# (the largest threshold glibc accepts) come from the heap, and up to 512 MiB of freed heap
# stays mapped, so a fit reuses the previous fit's pages instead of faulting in fresh ones.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 << 20
_TRIM_THRESHOLD = 512 << 20


def warm_up(*, keep_freed: bool = True) -> None:
    """Runs one tiny fit that calls every kernel, so each is compiled or loaded from cache.

    A wavy ring that must be simplified reaches the ring kernels as well as the line ones;
    the same data read as a caller's GeoJSON reaches the scan, the shape checks and the
    exact decimals of data-viz pages; a TomTom leg's points, the route reader's. With
    `keep_freed` (a fitting worker), also keeps freed memory in the process
    (`keep_freed_memory`).
    """
    if keep_freed:
        keep_freed_memory()
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
    for feature in features:  # as a caller writes them: a few decimals
        feature["geometry"]["coordinates"] = np.round(feature["geometry"]["coordinates"], 6)
    _read_and_page(orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY))
    leg = np.frombuffer(b'{"points":[{"latitude":52.1,"longitude":-0.0}]}', dtype=np.uint8)
    leg_points(leg, 10, len(leg) - 1)
    plain_text(leg, 12)


def _read_and_page(raw: bytes) -> None:
    """A caller's GeoJSON scanned, checked and sent as a data-viz page, and read back."""
    found = scan(raw)
    kinds = ("Polygon", "LineString")
    segments = np.arange(len(found.segment_starts), dtype=np.int64)
    check_shapes(found, values(found, raw), segments, np.array([SHAPES[k] for k in kinds]))
    hard_values(b"0.12345678901234567", np.array([0]), np.array([19]))  # 17 digits
    depths = np.array([SHAPES[k][0] for k in kinds], dtype=np.int64)
    section, decimals, dims = decimal_section(found, segments, depths)
    features = [
        {"type": "Feature", "geometry": {"type": k, "dv": [int(d), int(n)]}}
        for k, d, n in zip(kinds, decimals, dims, strict=True)
    ]
    head = orjson.dumps({"v": 3, "tool": "warm-up", "data": {"features": features}})
    decode(pack(head, section).text())


def keep_freed_memory() -> bool:
    """Asks glibc to serve fit-sized arrays from the heap and not to hand freed pages back.

    A fit allocates a few MB of arrays per 100,000 points and frees them; by
    default each is a fresh mapping whose every page faults on first touch. False
    where the C library is not glibc (nothing changes there).
    """
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
    )
