"""Fitting an envelope under a character budget: the public entry point (docs/fitting.md).

Collect and merge the vertices, try them as they are, and if too long rank them once
(one global DP significance ranking) and search for the longest prefix of that ranking
whose whole encoded envelope fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _codec, _varint
from ._exceptions import DoesNotFit, FittingError
from ._huffman import Section, bytes_within, lz77_pays
from ._kernels import max_error, project, rank, rank_deeper
from ._parts import LINEAR, Parts, Shape, collect
from ._prefixes import Prefixes, Unranked
from ._rings import RingGuard

# Budget search: aim secant steps just under the budget; stop once the fitting
# candidate fills _FILL of it, or the bracket is one vertex wide, or after
# _MAX_ENCODES candidate encodes.
_AIM = 0.9975
_FILL = 0.995
_MAX_ENCODES = 12
_SETTLE_WINDOW = 16
"""How far from a cycling `chars` the report looks for a value that is its own length."""
_PADS = (0, 2, 3, 4)
"""Gzip extra-field bytes tried, in order: 2-4 bytes move the text by one base64 step."""
# Ranking cut off near the budget's tolerance: from this many vertices, sampled 1 in 16.
_CUTOFF_MIN_POINTS = 50_000
_SAMPLE_STEP = 16
_CHARS_PER_VERTEX = 4
# During the search the report carries a stand-in max_error_m (the DP threshold
# plus the rounding's worst case, usually the real figure's length) and the budget
# as chars, so the final encode with the real figures mostly confirms the size.
_ROUNDING_M = 0.8
# Grids of q e5 steps a fit may send (q = 1: 1e-5 degrees, ~1.1 m); one is chosen when
# its worst rounding (_ROUNDING_M * q) is at most this share of the DP threshold.
_STEPS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
_QUANTISATION_SHARE = 0.4
_NULL_REPORT = b'"fitted":null}'
# The as-is check writes and costs its line section this many vertices at a time.
_PIECE = 8192
# Characters per line-section byte assumed before the first encode measures it
# (gzip leaves varint bytes at 0.85-1.0 of their size; base64 adds 4/3).
_RATIO = 0.9 * 4 / 3


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
        raise FittingError("the envelope must be an object with a 'data' key")
    data = envelope["data"]
    if isinstance(data, dict) and "geojson" in data and "features" not in data:
        out = dict(envelope, v=_codec.VERSION, fitted=None)
        return _as_is(out, budget, "data-viz data is never altered")
    parts = collect(data)
    out = dict(envelope, v=_codec.VERSION, data=parts.data, fitted=None)
    if not parts.shapes:  # points only: as is, or nothing can make it fit
        return _as_is(out, budget, "it has no lines or rings to simplify")
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
    member = _codec.Member(_codec.dumps(envelope))
    chars = member.chars()
    if chars > budget:
        raise DoesNotFit(
            f"the app data needs {chars} characters but the budget is {budget} "
            f"({chars - budget} over); {why}"
        )
    return FitResult(member.text(), None)


class _Fitter:
    """One fit: candidate encoding over the merged vertices, and the budget search, of data
    with at least one line or ring (`fit` sends data without any as is)."""

    def __init__(self, parts: Parts, envelope: dict[str, Any], budget: int) -> None:
        self.parts = parts
        self.envelope = envelope
        self.budget = budget
        self.encodes = 0
        self.q = 1  # vertices are sent as multiples of q e5 steps
        self.units = parts.e5  # the merged vertices in units of q
        self._json_keep: np.ndarray | None = None
        self._json = b""
        self._lines: np.ndarray | None = None  # the latest candidate's line section
        self._section: Section | None = None  # ... coded
        self._lz77: bool | None = None  # whether candidates are deflated by ISA-L (`_code`)
        self._head: float | None = None
        self._sample = np.empty(0)  # the cutoff sample's significances, descending

    def run(self) -> FitResult:
        parts = self.parts
        text, as_is = self._encode_within()
        if text is not None:
            return FitResult(text, None)

        x, y = project(parts.e5, parts.offsets)
        anchor = parts.anchor.copy()
        ring_starts = parts.offsets[:-1][parts.is_ring]
        ring_ends = parts.offsets[1:][parts.is_ring]
        for s, e in zip(ring_starts.tolist(), ring_ends.tolist(), strict=True):
            if e - s <= 4:  # nothing to drop: a ring needs 4 positions
                anchor[s:e] = True
                continue
            far = s + int(np.argmax((x[s:e] - x[s]) ** 2 + (y[s:e] - y[s]) ** 2))
            anchor[far] = True
        self.x, self.y, self.anchor = x, y, anchor
        self._rank(self._cutoff(as_is))
        self.rings = RingGuard(parts.e5, parts.offsets, parts.is_ring)
        k, keep, size = self._search(as_is)
        q = self._step(self._threshold(k))
        if q > 1:  # once: judged again on its own threshold the choice oscillates
            self._quantise(q)
            k, keep, size = self._search(as_is)
        return self._final(k, keep, size)

    def _step(self, threshold: float) -> int:
        """The coarsest grid whose rounding stays a small share of the DP threshold.

        Rings keep the 1e-5 degree grid their crossing checks are exact on.
        """
        if self.parts.is_ring.any() or not math.isfinite(threshold):
            return 1
        fitting = [q for q in _STEPS if _ROUNDING_M * q <= _QUANTISATION_SHARE * threshold]
        return fitting[-1] if fitting else 1

    def _quantise(self, q: int) -> None:
        """Sends vertices on a grid of q e5 steps from now on (the next encode writes them)."""
        self.q = q
        self.units = np.rint(self.parts.e5 / q).astype(np.int64)
        self._lz77 = None  # judged again on the new grid
        self.prefixes = Prefixes(self.sig, self.units, self.parts.offsets, self.cutoff < 0.0)
        self._json_keep = None
        self.encodes = 0

    def _cutoff(self, as_is: int) -> float:
        """A significance likely below the budget's threshold, or -1 to rank everything.

        A long line that must shrink a lot need not be ranked below the
        tolerance the budget allows. That tolerance is estimated
        from a 1-in-16 sample, at the vertex count that would fit were every
        vertex as cheap as in the as-is encoding, and at most one vertex per
        _CHARS_PER_VERTEX characters (a line that compresses very well as is,
        densified or collinear, would otherwise never be cut off). Should the
        search need more, the ranking is taken deeper (`_deepen`); the sample
        picks how deep. Rings always rank everything, for their guards.
        """
        parts = self.parts
        m = parts.e5.shape[0]
        estimate = min(int(m * self.budget / as_is), self.budget // _CHARS_PER_VERTEX)
        if parts.is_ring.any() or m < _CUTOFF_MIN_POINTS or not 0 < estimate <= m // 8:
            return -1.0
        chosen = self.anchor.copy()
        chosen[::_SAMPLE_STEP] = True
        chosen[parts.offsets[:-1]] = True
        chosen[parts.offsets[1:] - 1] = True
        sample = np.flatnonzero(chosen)
        offsets = np.searchsorted(sample, parts.offsets)
        sig = rank(self.x[sample], self.y[sample], offsets, self.anchor[sample], -1.0)
        self._sample = -np.sort(-sig[np.isfinite(sig)])
        return self._sampled(estimate)

    def _sampled(self, count: int) -> float:
        """The sample's `count`-th largest significance, or -1 past its end."""
        return float(self._sample[count - 1]) if count <= self._sample.shape[0] else -1.0

    def _rank(self, cutoff: float) -> None:
        parts = self.parts
        self.sig = sig = rank(self.x, self.y, parts.offsets, self.anchor, cutoff)
        starts = parts.offsets[:-1][parts.is_ring].tolist()
        ends = parts.offsets[1:][parts.is_ring].tolist()
        for s, e in zip(starts, ends, strict=True):
            # A ring keeps at least 4 positions: its two anchors, its closure, and one more.
            inner = sig[s + 1 : e - 1]
            if np.isfinite(inner).sum() and np.isinf(inner).sum() < 2:
                inner[np.argmax(np.where(np.isinf(inner), -1.0, inner))] = np.inf
        self._order(cutoff)

    def _deepen(self, needed: int) -> None:
        """Ranks on below the cutoff, to where the sample puts twice `needed` vertices.

        Each call goes strictly deeper (at worst to every vertex), so the search's
        retries end.
        """
        cutoff = self._sampled(2 * needed)
        if cutoff >= self.cutoff:
            cutoff = -1.0
        rank_deeper(self.x, self.y, self.sig, cutoff)
        self._order(cutoff)

    def _order(self, cutoff: float) -> None:
        self.cutoff = cutoff
        self.prefixes = Prefixes(self.sig, self.units, self.parts.offsets, cutoff < 0.0)

    def _keep(self, k: int) -> np.ndarray:
        """The vertices of ranking prefix `k`: anchors plus the k most significant."""
        threshold = self._threshold(k)  # first: it may deepen the ranking
        keep = self.sig >= threshold
        self.rings.repair(keep, self.sig)
        return keep

    def _threshold(self, k: int) -> float:
        while True:
            try:
                return self.prefixes.threshold(k)
            except Unranked:
                self._deepen(k)

    def _search(self, as_is: int) -> tuple[int, np.ndarray, int]:
        """The longest prefix that fits: model-aimed steps kept inside the bracket, else bisection.

        Each guess solves a size model: characters as a line through
        the two latest (line-section bytes, characters) encodes, starting from
        the header alone and a typical gzip ratio; the bytes of any prefix are
        counted without encoding it (`Prefixes`). `as_is` (all vertices;
        possibly extrapolated) picks where the first count starts, so the
        anchors-only prefix is encoded only if nothing longer fits.
        """
        budget = self.budget
        target = budget * _AIM
        lo, size_lo, keep_lo = 0, -1, None
        hi = len(self.prefixes)
        k = min(hi - 1, int(hi * target / as_is), budget // _CHARS_PER_VERTEX)
        seen = (0, self._head_chars())  # (line bytes, characters) of the previous encode
        raw = self._raw(k) if k > 0 else 0
        guess = self._aim(k, raw, (target - seen[1]) / _RATIO) if k > 0 else k
        while self.encodes < _MAX_ENCODES:
            if keep_lo is not None and (hi - lo <= 1 or size_lo >= _FILL * budget):
                break
            k = int(guess)
            if hi - lo <= 1:
                k = lo
            elif not lo < k < hi or hi - lo < 8:
                k = (lo + hi) // 2
            keep = self._keep(k)
            size = self._size(keep, self._threshold(k))
            if size <= budget:
                lo, size_lo, keep_lo = k, size, keep
            elif k == 0:
                self._does_not_fit(keep, size)
            else:
                hi = k
            if self.encodes >= _MAX_ENCODES or (
                keep_lo is not None and (hi - lo <= 1 or size_lo >= _FILL * budget)
            ):
                break  # done: the next guess would go unused
            raw = self._lines.shape[0] if self._lines is not None else 0
            slope = (size - seen[1]) / (raw - seen[0]) if raw != seen[0] else 0.0
            guess = self._aim(k, raw, raw + (target - size) / slope) if slope > 0 else -1
            seen = (raw, size)
        if keep_lo is None:
            keep_lo = self._keep(0)
            size = self._size(keep_lo, self._threshold(0))
            if size > budget:
                self._does_not_fit(keep_lo, size)
            size_lo = size
        return lo, keep_lo, size_lo

    def _aim(self, k: int, raw: int, want: float) -> float:
        """The prefix whose line section takes `want` bytes, from prefix `k` of `raw` bytes.

        Two counts: a proportional step, then a secant through it and `k`.
        """
        if k <= 0 or raw <= 0 or want <= 0:
            return -1.0
        limit = len(self.prefixes)
        k1 = max(1, min(limit, int(k * want / raw)))
        if k1 == k:
            return float(k)
        raw1 = self._raw(k1)
        if raw1 == raw:
            return float(k1)
        return k1 + (want - raw1) * (k - k1) / (raw - raw1)

    def _raw(self, k: int) -> int:
        """Line-section bytes of prefix `k`, counted, not encoded (rings' repairs left out)."""
        self._threshold(k)  # first: it may deepen the ranking
        return self.prefixes.line_bytes(k)

    def _head_chars(self) -> float:
        """Characters the envelope's JSON takes alone, gzipped; measured once per fit."""
        if self._head is None:
            self._head = float(_codec.Member(_codec.dumps(self.envelope)).chars())
        return self._head

    def _does_not_fit(self, keep: np.ndarray, size: int) -> None:
        kept = int(np.count_nonzero(keep))
        raise DoesNotFit(
            f"even the {kept} vertices that must be kept (line and ring ends, "
            f"every vertex a property points at) need {size} characters; "
            f"the budget is {self.budget} ({size - self.budget} over)"
        )

    def _final(self, k: int, keep: np.ndarray, size: int) -> FitResult:
        """Encodes the chosen prefix with its true report, stepping back if that overflows."""
        parts = self.parts
        while True:
            sent = self.units * self.q if self.q != 1 else self.units
            error = max_error(parts.lonlat, parts.dedup_of, sent, keep, self.q)
            report = {
                "original_points": parts.original_points,
                "points": int(np.count_nonzero(keep)),
                "max_error_m": math.ceil(error * 10.0) / 10.0,
                "chars": size,
            }
            # chars is part of what it measures: settle it (a fixed point within a few
            # rounds, each deflating the JSON alone: the line section's stream is kept).
            settled = False
            for _ in range(4):
                member = self._encode(keep, report)
                chars = member.chars()
                settled = chars == report["chars"]
                if settled:
                    break
                report["chars"] = chars
            if not settled:  # the rounds cycle (a count's digits deflate to another length)
                member, chars, settled = self._settle_near(keep, report, chars)
            if settled and chars <= self.budget:
                return FitResult(member.text(), report)
            if k == 0:
                self._does_not_fit(keep, chars)
            k = max(0, k - max(1, k // 200))
            keep = self._keep(k)
            size = chars

    def _settle_near(
        self, keep: np.ndarray, report: dict[str, Any], chars: int
    ) -> tuple[_codec.Member, int, bool]:
        """A `chars` near the cycle's that is its own length, nearest first, unpadded, then
        with a few bytes of gzip extra field: dropping vertices is no cure when only the
        ones that must be kept are left, and a cycle is no overflow."""
        candidates = []  # each count's member, deflated once; a pad only adds bytes
        for offset in sorted(range(-_SETTLE_WINDOW, _SETTLE_WINDOW + 1), key=abs):
            report["chars"] = chars + offset
            candidates.append((report["chars"], self._encode(keep, report)))
        for extra in _PADS:
            for count, member in candidates:
                if _codec.base64_length(len(member) + extra) == count:
                    report["chars"] = count
                    return member.pad(extra), count, True
        count, member = candidates[0]
        report["chars"] = count
        return member, member.chars(), False

    def _size(self, keep: np.ndarray, threshold: float) -> int:
        standin = {
            "original_points": self.parts.original_points,
            "points": int(np.count_nonzero(keep)),
            "max_error_m": math.ceil(min(threshold + _ROUNDING_M * self.q, 1e6) * 10.0) / 10.0,
            "chars": self.budget,
        }
        return self._encode(keep, standin).chars()

    def _encode_within(self) -> tuple[str | None, int]:
        """The as-is encoding's text if it fits, else None and its (extrapolated) characters.

        The line section is written and costed piece by piece and abandoned
        as soon as it alone passes the budget, so a long line that cannot go
        as is costs a fraction of its encoding. budget // 4 * 3 bytes is the
        most whose base64 stays within the budget.
        """
        self.encodes += 1
        parts = self.parts
        limit = self.budget // 4 * 3
        m = parts.e5.shape[0]
        self._renumber(np.arange(m))
        bounds = np.zeros(parts.offsets.shape[0], dtype=np.int64)
        pieces = _varint.pieces(self.units, parts.offsets, _PIECE, bounds)
        lines, written, taken = bytes_within(pieces, limit - _codec.FRAMING)
        self._place(bounds)
        if lines is None:  # the section alone overflows: extrapolate from what was read
            read = min(m, taken * _PIECE)
            return None, _codec.base64_length(_codec.FRAMING + written * m // read)
        member = _codec.Member(_codec.dumps(self.envelope), lines)
        return (member.text() if len(member) <= limit else None), member.chars()

    def _encode(self, keep: np.ndarray, report: dict[str, Any] | None = None) -> _codec.Member:
        """The envelope with the `keep` vertices in its line section, as a gzip member.

        The JSON and the coded section of the latest `keep` are kept, the
        JSON with "fitted": null; while that is the envelope's last key, a
        report for the same vertices is spliced in rather than the whole JSON
        written again, and only the JSON is deflated again. The section's
        stream is sized, not written, until the result is taken.
        """
        self.encodes += 1
        if keep is not self._json_keep:
            kept_at = np.flatnonzero(keep)
            self._lines = self._write_lines(kept_at)
            self._section = self._code(self._lines) if self._lines is not None else None
            self._renumber(kept_at)
            self._json = _codec.dumps(self.envelope)
            self._json_keep = keep
        head = self._json
        if report is not None:
            if head.endswith(_NULL_REPORT):
                head = b"".join(
                    (head[: -len(_NULL_REPORT)], b'"fitted":', _codec.dumps(report), b"}")
                )
            else:
                self.envelope["fitted"] = report
                head = _codec.dumps(self.envelope)
                self.envelope["fitted"] = None
        return _codec.Member(head, self._section)

    def _code(self, lines: np.ndarray) -> Section:
        """The section as literal blocks, or deflated where repeats pay (judged once per grid)."""
        if self._lz77 is None:
            self._lz77 = lz77_pays(lines)
        return Section(lines, lz77=self._lz77)

    def _renumber(self, kept_at: np.ndarray) -> None:
        """Points every index property at its vertex's position among the `kept_at` vertices."""
        parts = self.parts
        if parts.slots:
            values = np.searchsorted(kept_at, parts.slot_vertex) - np.searchsorted(
                kept_at, parts.slot_base
            )
            for (item, key), value in zip(parts.slots, values.tolist(), strict=True):
                item[key] = value

    def _write_lines(self, kept_at: np.ndarray) -> np.ndarray | None:
        """Varint deltas of the kept vertices; each geometry gets its byte ranges as "e5v"."""
        lines, bounds = _varint.encode(self.units, kept_at, self.parts.offsets)
        self._place(bounds)
        return lines

    def _place(self, bounds: np.ndarray) -> None:
        """Gives each geometry its parts' byte ranges in the line section (and its grid)."""
        ranges = np.column_stack([bounds[:-1], bounds[1:]]).tolist()
        for shape in self.parts.shapes:
            place(shape, "e5v", ranges[shape.first_part : shape.first_part + shape.count])
            if self.q != 1:
                shape.geometry["q"] = self.q


def place(shape: Shape, key: str, parts: list[Any]) -> None:
    """Puts one value per part into `shape.geometry[key]`, nested as its coordinates are."""
    if shape.depth == 0:
        shape.geometry[key] = parts[0]
    elif shape.depth == 1:
        shape.geometry[key] = parts
    else:
        nested, i = [], 0
        for rings in shape.layout or ():
            nested.append(parts[i : i + rings])
            i += rings
        shape.geometry[key] = nested
