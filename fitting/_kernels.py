"""Numba kernels over contiguous float64/int64 arrays and part offset arrays.

Every kernel is compiled with `cache=True`, so a process pool worker loads
machine code from disk instead of compiling (numba honours NUMBA_CACHE_DIR).
`offsets` always has one entry per part plus one: part `p` is
`offsets[p]:offsets[p + 1]`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Metres per degree of latitude on the mean Earth sphere (IUGG R1 = 6,371,008.8 m).
M_PER_DEG = 6_371_008.8 * math.pi / 180.0


@njit(cache=True, inline="always")
def _wrap(d: float) -> float:
    """A longitude difference folded into [-180, 180): the short way round."""
    if d >= 180.0 or d < -180.0:
        d = (d + 180.0) % 360.0 - 180.0
    return d


@njit(cache=True)
def project(e5: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equirectangular metres (x, y arrays) about each part's mean latitude, longitudes unwrapped.

    Takes the vertices as sent (int64, 1e-5 degrees). Unwrapping (each step
    taken the short way) keeps a part that crosses the antimeridian
    continuous; distances within a part are then plain Euclidean. Separate
    x and y arrays stream faster through the ranking than interleaved pairs.
    """
    n = e5.shape[0]
    x = np.empty(n, dtype=np.float64)
    y = np.empty(n, dtype=np.float64)
    for p in range(offsets.shape[0] - 1):
        s = offsets[p]
        e = offsets[p + 1]
        if e <= s:
            continue
        lat_sum = 0.0
        for i in range(s, e):
            lat_sum += e5[i, 1] / 1e5
        kx = M_PER_DEG * math.cos(math.radians(lat_sum / (e - s)))
        lon = e5[s, 0] / 1e5
        prev = lon
        for i in range(s, e):
            here = e5[i, 0] / 1e5
            lon += _wrap(here - prev)
            prev = here
            x[i] = lon * kx
            y[i] = e5[i, 1] / 1e5 * M_PER_DEG
    return x, y


@njit(cache=True, inline="always")
def _farthest(x: np.ndarray, y: np.ndarray, a: int, b: int) -> tuple[int, float]:
    """The first vertex strictly between a and b farthest from segment a-b, squared distance."""
    ax = x[a]
    ay = y[a]
    dx = x[b] - ax
    dy = y[b] - ay
    len2 = dx * dx + dy * dy
    best = -1.0
    k = a + 1
    if len2 == 0.0:
        for i in range(a + 1, b):
            px = x[i] - ax
            py = y[i] - ay
            d2 = px * px + py * py
            if d2 > best:
                best = d2
                k = i
        return k, best
    inv = 1.0 / len2
    for i in range(a + 1, b):
        px = x[i] - ax
        py = y[i] - ay
        t = px * dx + py * dy
        if t <= 0.0:
            d2 = px * px + py * py
        elif t >= len2:
            qx = px - dx
            qy = py - dy
            d2 = qx * qx + qy * qy
        else:
            c = px * dy - py * dx
            d2 = c * c * inv
        if d2 > best:
            best = d2
            k = i
    return k, best


@njit(cache=True)
def rank(
    x: np.ndarray, y: np.ndarray, offsets: np.ndarray, anchor: np.ndarray, cutoff: float
) -> np.ndarray:
    """Douglas-Peucker significance of every vertex; anchors get +inf.

    A vertex's significance is the tolerance at which DP between consecutive
    anchors would drop it: its distance to the segment of its split, clamped
    by its parent's. Keeping every vertex with significance > t is then
    exactly DP at tolerance t, and every threshold prefix is a DP result.
    Distances are to the segment (as GEOS computes them), first farthest wins.

    With `cutoff` >= 0 the splitting stops like DP at that tolerance: vertices
    of significance <= cutoff stay NaN (unranked), all others get their exact
    value. A negative cutoff ranks every vertex.
    """
    sig = np.full(x.shape[0], np.nan) if cutoff >= 0.0 else np.empty(x.shape[0])
    # The stack of pending segments holds the anchor runs plus about the DP depth
    # (tens for real lines); only pathological lines (spirals) need up to n.
    capacity = min(x.shape[0] + 1, int(anchor.sum()) + offsets.shape[0] + 4096)
    if not _rank_into(sig, x, y, offsets, anchor, capacity, cutoff):
        _rank_into(sig, x, y, offsets, anchor, x.shape[0] + 1, cutoff)
    return sig


@njit(cache=True)
def _rank_into(sig, x, y, offsets, anchor, capacity: int, cutoff: float) -> bool:
    """Fills `sig`; False if the stack of `capacity` segments overflowed (then retry larger)."""
    st_a = np.empty(capacity, dtype=np.int64)
    st_b = np.empty(capacity, dtype=np.int64)
    st_s = np.empty(capacity, dtype=np.float64)
    top = 0
    for p in range(offsets.shape[0] - 1):
        s = offsets[p]
        e = offsets[p + 1]
        prev = s
        for i in range(s, e):
            if anchor[i] or i == s or i == e - 1:
                sig[i] = np.inf
                if i > prev + 1:
                    st_a[top] = prev
                    st_b[top] = i
                    st_s[top] = np.inf
                    top += 1
                prev = i
    while top > 0:
        top -= 1
        a = st_a[top]
        b = st_b[top]
        parent = st_s[top]
        while True:  # walk down the left halves; right halves wait on the stack
            k, best = _farthest(x, y, a, b)
            d = math.sqrt(best)
            if d > parent:
                d = parent
            if d <= cutoff:
                break  # the whole segment is below the cutoff
            sig[k] = d
            if b > k + 1:
                if top == capacity:
                    return False
                st_a[top] = k
                st_b[top] = b
                st_s[top] = d
                top += 1
            if k == a + 1:
                break
            b = k
            parent = d
    return True


@njit(cache=True, inline="always")
def _segment_distance2(ax, ay, bx, by) -> float:
    """Squared distance from the origin to segment a-b."""
    dx = bx - ax
    dy = by - ay
    len2 = dx * dx + dy * dy
    t = -(ax * dx + ay * dy)
    if t <= 0.0 or len2 == 0.0:
        return ax * ax + ay * ay
    if t >= len2:
        return bx * bx + by * by
    c = ax * dy - ay * dx
    return c * c / len2


@njit(cache=True)
def max_error(
    lonlat: np.ndarray,
    dedup_of: np.ndarray,
    e5: np.ndarray,
    keep: np.ndarray,
) -> float:
    """Largest distance in metres from any original vertex to the kept segment spanning it.

    `lonlat` are the original (unrounded) vertices, `dedup_of` maps each to its
    merged vertex (non-decreasing, steps of 0 or 1), `e5` are the merged
    vertices as sent and `keep` marks the kept ones (every part's ends among
    them, so a span never crosses parts). Each distance is measured in an
    equirectangular frame about the spanning segment's own latitude, so the
    figure stays honest on long routes far from any part's mean latitude.
    """
    m = e5.shape[0]
    worst = 0.0
    a = -1  # last kept merged vertex at or before d
    b = -1  # first kept merged vertex at or after d
    alon = alat = blon = blat = 0.0
    kx = M_PER_DEG
    for j in range(lonlat.shape[0]):
        d = dedup_of[j]
        if d > b or (keep[d] and d != a):
            a = d if keep[d] else b
            b = d
            while b < m - 1 and not keep[b]:
                b += 1
            alon = e5[a, 0] / 1e5
            alat = e5[a, 1] / 1e5
            blon = e5[b, 0] / 1e5
            blat = e5[b, 1] / 1e5
            kx = M_PER_DEG * math.cos(math.radians(0.5 * (alat + blat)))
        plon = lonlat[j, 0]
        plat = lonlat[j, 1]
        dist2 = _segment_distance2(
            _wrap(alon - plon) * kx,
            (alat - plat) * M_PER_DEG,
            _wrap(blon - plon) * kx,
            (blat - plat) * M_PER_DEG,
        )
        if dist2 > worst:
            worst = dist2
    return math.sqrt(worst)


@njit(cache=True)
def round_merge(lonlat: np.ndarray, offsets: np.ndarray, is_ring: np.ndarray):
    """Rounds to 1e-5 degrees and merges runs of equal consecutive vertices, in one pass.

    Returns (first bad vertex or -1, merged vertex of each vertex, merged e5
    vertices, merged part offsets). A line left with one vertex keeps its last
    one too and a ring left with fewer than 4 keeps them all, so every part
    stays valid GeoJSON. Bad means NaN, infinite or out of range.
    """
    n = lonlat.shape[0]
    run_id = np.empty(n, dtype=np.int64)
    e5 = np.empty((n, 2), dtype=np.int64)
    moffsets = np.empty(offsets.shape[0], dtype=np.int64)
    for i in range(n):
        lon = lonlat[i, 0]
        lat = lonlat[i, 1]
        if not (abs(lon) <= 180.0 and abs(lat) <= 90.0):
            return i, run_id, e5[:0], moffsets
    m = 0
    for p in range(offsets.shape[0] - 1):
        s = offsets[p]
        e = offsets[p + 1]
        moffsets[p] = m
        start = m
        px = np.int64(0)
        py = np.int64(0)
        for i in range(s, e):
            x = np.int64(np.rint(lonlat[i, 0] * 1e5))
            y = np.int64(np.rint(lonlat[i, 1] * 1e5))
            if i == s or x != px or y != py:
                e5[m, 0] = x
                e5[m, 1] = y
                m += 1
            run_id[i] = m - 1
            px = x
            py = y
        need = 4 if is_ring[p] else 2
        if m - start < need:
            m = start
            for i in range(s, e):
                if is_ring[p] or i == s or i == e - 1:
                    e5[m, 0] = np.int64(np.rint(lonlat[i, 0] * 1e5))
                    e5[m, 1] = np.int64(np.rint(lonlat[i, 1] * 1e5))
                    m += 1
                run_id[i] = m - 1
    moffsets[offsets.shape[0] - 1] = m
    return -1, run_id, e5[:m], moffsets


@njit(cache=True)
def deltas(e5: np.ndarray, kept_at: np.ndarray, offsets: np.ndarray):
    """The kept vertices as one flat e5 delta array, each part starting absolute.

    `kept_at` lists the kept vertices in order (part ends always among them).
    Returns (flat int64 deltas, start of each part in `flat` plus the end).
    """
    count = kept_at.shape[0]
    flat = np.empty(2 * count, dtype=np.int64)
    bounds = np.empty(offsets.shape[0], dtype=np.int64)
    p = 0
    for k in range(count):
        i = kept_at[k]
        if i == offsets[p]:
            bounds[p] = 2 * k
            p += 1
            flat[2 * k] = e5[i, 0]
            flat[2 * k + 1] = e5[i, 1]
        else:
            j = kept_at[k - 1]
            flat[2 * k] = e5[i, 0] - e5[j, 0]
            flat[2 * k + 1] = e5[i, 1] - e5[j, 1]
    bounds[offsets.shape[0] - 1] = 2 * count
    return flat, bounds


@njit(cache=True, inline="always")
def _orient(ax, ay, bx, by, cx, cy) -> int:
    v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0


@njit(cache=True, inline="always")
def _within(ax, ay, bx, by, cx, cy) -> bool:
    """C (collinear with AB) lies within AB's bounding box, i.e. on the segment."""
    return min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by)


@njit(cache=True)
def ring_crossings(ring: np.ndarray) -> np.ndarray:
    """Flags the segments of a closed integer ring that cross or touch a non-neighbour.

    `ring` is (m, 2) int64 with ring[0] == ring[m - 1] and longitudes already
    unwrapped. Exact integer orientation tests (e5 coordinates keep every
    product far below 2**63); neighbouring segments only count when they
    fold back over each other. Sweep over segments sorted by their west end.
    """
    nseg = ring.shape[0] - 1
    bad = np.zeros(nseg, dtype=np.bool_)
    if nseg < 3:
        bad[:] = True
        return bad
    xmin = np.empty(nseg, dtype=np.int64)
    xmax = np.empty(nseg, dtype=np.int64)
    for i in range(nseg):
        xmin[i] = min(ring[i, 0], ring[i + 1, 0])
        xmax[i] = max(ring[i, 0], ring[i + 1, 0])
    order = np.argsort(xmin, kind="mergesort")
    for oi in range(nseg):
        i = order[oi]
        ax, ay = ring[i, 0], ring[i, 1]
        bx, by = ring[i + 1, 0], ring[i + 1, 1]
        for oj in range(oi + 1, nseg):
            j = order[oj]
            if xmin[j] > xmax[i]:
                break
            cx, cy = ring[j, 0], ring[j, 1]
            dx, dy = ring[j + 1, 0], ring[j + 1, 1]
            if max(cy, dy) < min(ay, by) or max(ay, by) < min(cy, dy):
                continue
            o1 = _orient(ax, ay, bx, by, cx, cy)
            o2 = _orient(ax, ay, bx, by, dx, dy)
            o3 = _orient(cx, cy, dx, dy, ax, ay)
            o4 = _orient(cx, cy, dx, dy, bx, by)
            lo = min(i, j)
            hi = max(i, j)
            if hi == lo + 1 or (lo == 0 and hi == nseg - 1):
                # Neighbours share one vertex; they are bad only if they overlap.
                if hi == lo + 1:
                    far_lo_x, far_lo_y = ring[lo, 0], ring[lo, 1]
                    far_hi_x, far_hi_y = ring[hi + 1, 0], ring[hi + 1, 1]
                    sx, sy = ring[hi, 0], ring[hi, 1]
                else:
                    far_lo_x, far_lo_y = ring[1, 0], ring[1, 1]
                    far_hi_x, far_hi_y = ring[nseg - 1, 0], ring[nseg - 1, 1]
                    sx, sy = ring[0, 0], ring[0, 1]
                if _orient(sx, sy, far_lo_x, far_lo_y, far_hi_x, far_hi_y) == 0 and (
                    (far_lo_x - sx) * (far_hi_x - sx) + (far_lo_y - sy) * (far_hi_y - sy) > 0
                ):
                    bad[i] = True
                    bad[j] = True
                continue
            crossing = o1 != o2 and o3 != o4
            touching = (
                (o1 == 0 and _within(ax, ay, bx, by, cx, cy))
                or (o2 == 0 and _within(ax, ay, bx, by, dx, dy))
                or (o3 == 0 and _within(cx, cy, dx, dy, ax, ay))
                or (o4 == 0 and _within(cx, cy, dx, dy, bx, by))
            )
            if crossing or touching:
                bad[i] = True
                bad[j] = True
    return bad
