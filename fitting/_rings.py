"""Keeping simplified polygon rings simple.

DP can make a ring cross itself. Where a ring simple as sent comes out crossing, each
crossing segment gets back the vertex DP would restore next on it, until none crosses: the
result stays a DP subset, at worst the ring as sent.
"""

from __future__ import annotations

import numpy as np

from ._kernels import ring_crossings

_FULL_TURN = 36_000_000  # 360 degrees in e5 units


class RingGuard:
    """Per-ring unwrapped coordinates and as-sent simplicity, computed on first use."""

    def __init__(self, e5: np.ndarray, offsets: np.ndarray, is_ring: np.ndarray) -> None:
        self._e5 = e5
        self._offsets = offsets
        self._rings = [int(p) for p in np.flatnonzero(is_ring)]
        self._unwrapped: dict[int, np.ndarray] = {}
        self._simple: dict[int, bool] = {}

    def repair(self, keep: np.ndarray, sig: np.ndarray) -> None:
        """Adds vertices to `keep` (in place) until every originally simple ring is simple.

        The whole ring as sent is checked only once one of its simplified
        versions crosses itself, so rings that simplify cleanly never pay for it.
        """
        for p in self._rings:
            s, e = int(self._offsets[p]), int(self._offsets[p + 1])
            if keep[s:e].all():
                continue
            ring = self._unwrap(p, s, e)
            part_keep = keep[s:e]
            part_sig = sig[s:e]
            while True:
                kept = np.flatnonzero(part_keep)
                bad = np.flatnonzero(ring_crossings(ring[kept]))
                if bad.size == 0 or not self._is_simple(p):
                    break
                added = False
                for seg in bad:
                    a, b = kept[seg], kept[seg + 1]
                    if b > a + 1:
                        part_keep[a + 1 + int(np.argmax(part_sig[a + 1 : b]))] = True
                        added = True
                if not added:
                    break

    def _unwrap(self, p: int, s: int, e: int) -> np.ndarray:
        if p not in self._unwrapped:
            ring = self._e5[s:e].copy()
            step = np.diff(ring[:, 0])
            step = (step + _FULL_TURN // 2) % _FULL_TURN - _FULL_TURN // 2
            ring[1:, 0] = ring[0, 0] + np.cumsum(step)
            self._unwrapped[p] = ring
        return self._unwrapped[p]

    def _is_simple(self, p: int) -> bool:
        if p not in self._simple:
            self._simple[p] = not ring_crossings(self._unwrapped[p]).any()
        return self._simple[p]
