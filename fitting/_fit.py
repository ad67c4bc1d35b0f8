"""Fitting an envelope under a character budget: the public entry point.

Pipeline: collect and merge (rounding, duplicates), encode as is; if too
long, project, rank every vertex once (one global DP significance ranking),
then search the threshold prefix of that ranking whose whole encoded
envelope is the longest that fits (ADR 0012).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _codec
from ._exceptions import DoesNotFit, FittingError
from ._kernels import max_error, project, rank
from ._parts import LINEAR, Parts, collect
from ._rings import RingGuard

# Budget search: stop once the fitting candidate fills this share of the budget,
# or the bracket is one vertex wide, or after this many candidate encodes.
_FILL = 0.998
_MAX_ENCODES = 12
# The report is encoded with these stand-ins during the search; both are at
# least as long as the real figures, which are written in the final encode.
_ERROR_STANDIN = 99_999.9


@dataclass(frozen=True)
class FitResult:
    """What goes into `_meta["com.tomtom/app-data"]`, and the fitting report."""

    app_data: str  # base64 of gzip of the JSON envelope
    report: dict[str, Any] | None  # None when the data went as is


def fit(envelope: dict[str, Any], budget: int) -> FitResult:
    """The envelope encoded in at most `budget` characters, simplified only if needed.

    Raises InvalidGeometry for data that cannot be fitted as given and
    DoesNotFit when even the anchors alone (or unalterable data-viz data)
    exceed the budget.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise ValueError(f"budget must be a positive number of characters, not {budget!r}")
    if not isinstance(envelope, dict) or "data" not in envelope:
        raise FittingError("the envelope must be an object with a 'data' key (ADR 0001)")
    data = envelope["data"]
    if isinstance(data, dict) and "geojson" in data and "features" not in data:
        return _as_is(dict(envelope, fitted=None), budget, "data-viz data is never altered")
    parts = collect(data)
    out = dict(envelope, data=parts.data, fitted=None)
    return _Fitter(parts, out, budget).run()


def point_count(envelope: dict[str, Any]) -> int:
    """Vertices of all lines and rings, counted without converting or validating them."""
    data = envelope.get("data") if isinstance(envelope, dict) else None
    if isinstance(data, dict) and "geojson" in data and "features" not in data:
        data = data["geojson"]
    return _count(data)


def _count(node: Any) -> int:
    if not isinstance(node, dict):
        return 0
    kind = node.get("type")
    if kind == "FeatureCollection":
        features = node.get("features")
        return sum(_count(f) for f in features) if isinstance(features, list) else 0
    if kind == "Feature":
        return _count(node.get("geometry"))
    if kind == "GeometryCollection":
        geometries = node.get("geometries")
        return sum(_count(g) for g in geometries) if isinstance(geometries, list) else 0
    if kind in LINEAR:
        return _vertices(node.get("coordinates"), LINEAR[kind][0])
    return 0


def _vertices(coords: Any, depth: int) -> int:
    try:
        if depth == 0:
            return len(coords)
        return sum(_vertices(c, depth - 1) for c in coords)
    except TypeError:
        return 0


def _as_is(envelope: dict[str, Any], budget: int, why: str) -> FitResult:
    compressed = _codec.compress(_codec.dumps(envelope))
    chars = _codec.base64_length(len(compressed))
    if chars > budget:
        raise DoesNotFit(
            f"the app data needs {chars} characters but the budget is {budget} "
            f"({chars - budget} over); {why}"
        )
    return FitResult(_codec.to_text(compressed), None)


class _Fitter:
    """One fit: candidate encoding over the merged vertices, and the budget search."""

    def __init__(self, parts: Parts, envelope: dict[str, Any], budget: int) -> None:
        self.parts = parts
        self.envelope = envelope
        self.budget = budget
        self.encodes = 0

    def run(self) -> FitResult:
        parts = self.parts
        everything = np.ones(parts.e5.shape[0], dtype=np.bool_)
        compressed = self._encode(everything)
        if self._chars(compressed) <= self.budget:
            return FitResult(_codec.to_text(compressed), None)

        sent = parts.e5 / 1e5
        xy = project(sent, parts.offsets)
        anchor = parts.anchor.copy()
        ring_starts = parts.offsets[:-1][parts.is_ring]
        ring_ends = parts.offsets[1:][parts.is_ring]
        for s, e in zip(ring_starts.tolist(), ring_ends.tolist(), strict=True):
            if e - s <= 4:  # nothing to drop: a ring needs 4 positions
                anchor[s:e] = True
                continue
            far = s + int(np.argmax(((xy[s:e] - xy[s]) ** 2).sum(axis=1)))
            anchor[far] = True
        self.sig = sig = rank(xy, parts.offsets, anchor)
        for s, e in zip(ring_starts.tolist(), ring_ends.tolist(), strict=True):
            # A ring keeps at least 4 positions: its two anchors, its closure, and one more.
            inner = sig[s + 1 : e - 1]
            if np.isfinite(inner).sum() and np.isinf(inner).sum() < 2:
                inner[np.argmax(np.where(np.isinf(inner), -1.0, inner))] = np.inf
        self.rings = RingGuard(parts.e5, parts.offsets, parts.is_ring)
        self.order = -np.sort(-sig[np.isfinite(sig)])

        as_is = self._chars(compressed)
        k, keep = self._search(as_is)
        return self._final(k, keep, sent)

    def _keep(self, k: int) -> np.ndarray:
        """The vertices of ranking prefix `k`: anchors plus the k most significant."""
        threshold = self.order[k - 1] if k > 0 else np.inf
        keep = self.sig >= threshold
        self.rings.repair(keep, self.sig)
        return keep

    def _search(self, as_is: int) -> tuple[int, np.ndarray]:
        budget = self.budget
        lo, keep_lo = 0, self._keep(0)
        size_lo = self._size(keep_lo)
        if size_lo > budget:
            raise DoesNotFit(
                f"even the {int(keep_lo.sum())} vertices that must be kept (line ends and "
                f"every vertex a property points at) need {size_lo} characters; "
                f"the budget is {budget} ({size_lo - budget} over)"
            )
        hi, size_hi = self.order.shape[0], as_is
        # Secant through the two latest points, kept inside the bracket (else bisection).
        a, fa = lo, size_lo
        b, fb = hi, size_hi
        while hi - lo > 1 and size_lo < _FILL * budget and self.encodes < _MAX_ENCODES:
            guess = b + (budget - fb) * (a - b) / (fa - fb) if fa != fb else (lo + hi) / 2
            k = int(guess)
            if not lo < k < hi or hi - lo < 8:
                k = (lo + hi) // 2
            keep = self._keep(k)
            size = self._size(keep)
            if size <= budget:
                lo, size_lo, keep_lo = k, size, keep
            else:
                hi, size_hi = k, size
            a, fa, b, fb = b, fb, k, size
        return lo, keep_lo

    def _final(self, k: int, keep: np.ndarray, sent: np.ndarray) -> FitResult:
        """Encodes the chosen prefix with its true report, stepping back if that overflows."""
        parts = self.parts
        while True:
            error = max_error(parts.lonlat, parts.dedup_of, sent, keep, parts.offsets)
            report = {
                "original_points": parts.original_points,
                "points": int(keep.sum()),
                "max_error_m": math.ceil(error * 10.0) / 10.0,
                "chars": self.budget,
            }
            # chars is part of what it measures: settle it (a fixed point within a few rounds).
            for _ in range(4):
                compressed = self._encode(keep, report)
                chars = self._chars(compressed)
                if chars == report["chars"]:
                    break
                report["chars"] = chars
            if chars <= self.budget and chars == report["chars"]:
                return FitResult(_codec.to_text(compressed), report)
            if k == 0:
                raise DoesNotFit(
                    f"even the vertices that must be kept need {chars} characters; "
                    f"the budget is {self.budget} ({chars - self.budget} over)"
                )
            k = max(0, k - max(1, k // 200))
            keep = self._keep(k)

    def _size(self, keep: np.ndarray) -> int:
        standin = {
            "original_points": self.parts.original_points,
            "points": int(keep.sum()),
            "max_error_m": _ERROR_STANDIN,
            "chars": self.budget,
        }
        return self._chars(self._encode(keep, standin))

    @staticmethod
    def _chars(compressed: bytes) -> int:
        return _codec.base64_length(len(compressed))

    def _encode(self, keep: np.ndarray, report: dict[str, Any] | None = None) -> bytes:
        """gzip of the envelope with the `keep` vertices written as e5 deltas."""
        parts = self.parts
        self.encodes += 1
        kept = parts.e5[keep]
        position = np.cumsum(keep) - 1
        starts = position[parts.offsets[:-1]]
        deltas = kept.copy()
        deltas[1:] -= kept[:-1]
        deltas[starts] = kept[starts]
        flat = deltas.reshape(-1)
        bounds = np.append(starts, kept.shape[0]) * 2
        for shape in parts.shapes:
            arrays = [
                flat[bounds[p] : bounds[p + 1]]
                for p in range(shape.first_part, shape.first_part + shape.count)
            ]
            if shape.depth == 0:
                shape.geometry["e5"] = arrays[0]
            elif shape.depth == 1:
                shape.geometry["e5"] = arrays
            else:
                nested, i = [], 0
                for rings in shape.layout or ():
                    nested.append(arrays[i : i + rings])
                    i += rings
                shape.geometry["e5"] = nested
        if parts.slots:
            values = (position[parts.slot_vertex] - position[parts.slot_base]).tolist()
            for (item, key), value in zip(parts.slots, values, strict=True):
                item[key] = value
        self.envelope["fitted"] = report
        return _codec.compress(_codec.dumps(self.envelope))
