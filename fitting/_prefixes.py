"""Prefixes of a significance ranking as the budget search asks for them: thresholds and bytes.

The search asks about a handful of nearby prefixes; sorting every significance and
encoding each prefix would cost more than the ranking itself. `Prefixes` sorts only a
window of the ranking and counts each prefix's line-section bytes without encoding it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, uint64

from ._varint import length, size

# The window reaches from _BELOW to _ABOVE times the first rank asked for (the
# search's later guesses land within a few percent), plus _SLACK ranks either side.
_BELOW = 0.75
_ABOVE = 1.3
_SLACK = 256
_SAMPLE_STEP = 8


class Unranked(Exception):
    """A prefix reaches past the vertices a cut-off ranking has ranked."""


class Prefixes:
    """Thresholds and line-section bytes of the prefixes of one ranking, gathered as asked.

    `sig` is the ranking (+inf anchors, NaN unranked), `units` the vertices
    as sent ((m, 2) int64), `offsets` the parts; `complete` says nothing is
    unranked. The arrays are read, never written.

    Prefix k keeps the anchors and every vertex at least as significant as the k-th
    largest (ties together, so every prefix is a DP result). A **window** of the ranking
    is gathered around the first k asked for: the vertices whose significance lies in
    [low, top), the bounds read off a sorted 1-in-`_SAMPLE_STEP` sample; one pass counts
    the vertices at or above `top` and their line bytes, and only the window is sorted.
    A k outside the window moves it. Each window vertex v gets the **bytes it adds**:
    added most significant first (equal ones left to right), v lands between kept
    vertices L and R and changes the section by len(v - L) + len(R - v) - len(R - L) per
    coordinate, whichever prefix it is in. L is the nearest vertex to the left at least
    as significant as v, R the nearest to the right more significant (every part's ends
    are +inf anchors, so the scans stay inside v's part). A prefix's bytes are those
    above `top` plus a sum over the window. Unranked vertices are in no prefix; a prefix
    past the ranked ones raises `Unranked`, and the fitter ranks deeper.
    """

    def __init__(
        self, sig: np.ndarray, units: np.ndarray, offsets: np.ndarray, complete: bool
    ) -> None:
        flat = np.ascontiguousarray(units, dtype=np.int64).reshape(-1)
        ranked, anchors = _counts(sig)
        self.ranked = int(ranked)  # vertices with a finite significance
        self._movable = int(sig.shape[0] - anchors)
        self._complete = complete
        if not complete:  # passes go over the ranked vertices alone: a few of m
            sig, flat, offsets = _ranked_only(sig, flat, offsets, ranked + anchors)
        self._sig, self._flat, self._offsets = sig, flat, offsets
        sample = sig[::_SAMPLE_STEP]
        self._sample = np.sort(sample[np.isfinite(sample)])  # ascending
        self._above = 0  # ranked vertices at or above the window
        self._top_bytes = 0  # line bytes of every vertex at or above the window
        self._values = np.empty(0)  # the window's significances, ascending
        self._members = np.empty(0)  # the window's significances in vertex order
        self._adds = np.empty(0, dtype=np.int8)  # the bytes each of them adds

    def __len__(self) -> int:
        """How many vertices can move (ranked or not): the longest prefix keeps them all."""
        return self._movable

    def threshold(self, k: int) -> float:
        """The significance prefix `k` keeps down to (+inf for k = 0: the anchors alone)."""
        if k == 0:
            return math.inf
        i = self._within(k - 1)
        return float(self._values[-1 - i])

    def line_bytes(self, k: int) -> int:
        """Bytes of prefix `k`'s line section, as `_varint.encode` writes them."""
        threshold = self.threshold(k)
        if k == 0:
            return int(size(self._flat, self._sig, self._offsets, threshold))
        added = _sum_at(self._members, self._adds, threshold)
        return self._top_bytes + int(added)

    def _within(self, i: int) -> int:
        """Rank `i` (0 = most significant) as a position from the window's top, gathering it."""
        if i >= self.ranked:
            if not self._complete:
                raise Unranked
            raise IndexError(f"rank {i} of a ranking of {self.ranked}")
        if not 0 <= i - self._above < self._values.shape[0]:
            self._gather(i)
        return i - self._above

    def _gather(self, i: int) -> None:
        first = max(0, int(_BELOW * i) - _SLACK)
        last = min(self.ranked, int(_ABOVE * i) + _SLACK)
        top, low = self._bound(first), self._bound(last)
        while True:
            capacity = min(self._sig.shape[0], 2 * (last - first) + 2 * _SLACK)
            members = np.empty(capacity, dtype=np.int64)
            above, top_bytes, count = _gather(
                self._flat, self._sig, self._offsets, low, top, members
            )
            if count < 0:  # the sample misjudged the window's size: room for everything
                capacity = self._sig.shape[0]
                members = np.empty(capacity, dtype=np.int64)
                above, top_bytes, count = _gather(
                    self._flat, self._sig, self._offsets, low, top, members
                )
            if above <= i < above + count:
                break
            # The sample put the window off rank i: widen it on the side that missed.
            if i < above:
                top = math.inf
            else:
                low = -math.inf
        members = members[:count]
        self._above = int(above)
        self._top_bytes = int(top_bytes)
        self._members = self._sig[members]
        self._values = np.sort(self._members)
        self._adds = np.empty(count, dtype=np.int8)
        _adds(self._flat, self._sig, members, self._adds)

    def _bound(self, rank: int) -> float:
        """A significance about rank `rank` (from the sample): +inf at 0, -inf past the end."""
        if rank <= 0:
            return math.inf
        n = self._sample.shape[0]
        at = int(rank * n / max(self.ranked, 1))
        if at >= n:
            return -math.inf
        return float(self._sample[n - 1 - at])


def _ranked_only(
    sig: np.ndarray, flat: np.ndarray, offsets: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The `count` vertices with a significance (no NaN): unranked ones are in no prefix."""
    out_sig = np.empty(count)
    out_flat = np.empty(2 * count, dtype=np.int64)
    out_offsets = np.empty_like(offsets)
    _compact(sig, flat, offsets, out_sig, out_flat, out_offsets)
    return out_sig, out_flat, out_offsets


@njit(cache=True)
def _compact(sig, flat, offsets, out_sig, out_flat, out_offsets) -> None:
    j = 0
    p = 0
    for i in range(sig.shape[0]):
        while p < offsets.shape[0] and offsets[p] == i:
            out_offsets[p] = j
            p += 1
        v = sig[i]
        if math.isnan(v):
            continue
        out_sig[j] = v
        out_flat[2 * j] = flat[2 * i]
        out_flat[2 * j + 1] = flat[2 * i + 1]
        j += 1
    while p < offsets.shape[0]:
        out_offsets[p] = j
        p += 1


@njit(cache=True)
def _counts(sig) -> tuple[int, int]:
    """(finite, infinite) significances."""
    finite = 0
    infinite = 0
    for i in range(uint64(sig.shape[0])):
        v = sig[i]
        finite += math.isfinite(v)
        infinite += v == np.inf
    return finite, infinite


@njit(cache=True)
def _gather(flat, sig, offsets, low: float, top: float, members) -> tuple[int, int, int]:
    """One pass: (ranked vertices >= top, line bytes of all vertices >= top, window size).

    The window (low <= significance < top) goes into `members` in vertex order,
    branch-free; a window larger than `members` returns a size of -1.
    Bytes are counted as `_varint.size` counts them.
    """
    capacity = members.shape[0]
    above = 0
    total = 0
    count = 0
    one = uint64(1)
    for p in range(offsets.shape[0] - 1):
        px = np.int64(0)
        py = np.int64(0)
        for i in range(uint64(offsets[p]), uint64(offsets[p + 1])):
            v = sig[i]
            kept = v >= top
            x = flat[uint64(2) * i]
            y = flat[uint64(2) * i + one]
            total += (length(x - px) + length(y - py)) * kept
            px = x if kept else px
            py = y if kept else py
            above += kept & (v != np.inf)
            if count == capacity:
                return above, total, -1
            members[count] = i
            count += (v >= low) & (v < top)
    return above, total, count


@njit(cache=True)
def _adds(flat, sig, members, out) -> None:
    """The bytes each window vertex adds between its L and R (see `Prefixes`)."""
    one = uint64(1)
    for j in range(uint64(members.shape[0])):
        v = uint64(members[j])
        s = sig[v]
        left = v - one
        while not sig[left] >= s:  # NaN compares false: unranked vertices are passed over
            left -= one
        right = v + one
        while not sig[right] > s:
            right += one
        a, b, c = uint64(2) * left, uint64(2) * v, uint64(2) * right
        xa, ya = flat[a], flat[a + one]
        xv, yv = flat[b], flat[b + one]
        xb, yb = flat[c], flat[c + one]
        out[j] = (
            length(xv - xa)
            + length(yv - ya)
            + length(xb - xv)
            + length(yb - yv)
            - length(xb - xa)
            - length(yb - ya)
        )


@njit(cache=True)
def _sum_at(values, adds, threshold: float) -> int:
    """Sum of the bytes added by the vertices at or above `threshold`; it vectorizes."""
    total = 0
    for i in range(uint64(values.shape[0])):
        total += adds[i] * (values[i] >= threshold)
    return total
