"""Numba kernels over contiguous float64/int64 arrays and part offset arrays.

Every kernel is compiled with `cache=True`, so a pool worker loads machine code from disk
(`NUMBA_CACHE_DIR`). `offsets` has one entry per part plus one: part `p` is
`offsets[p]:offsets[p + 1]`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, uint64

# The kernels read M_PER_DEG as a compile-time constant: numba freezes a module-level float
# into the machine code. The on-disk cache is keyed on this file alone, so a change of the
# radius in geo.py also needs the cache cleared (NUMBA_CACHE_DIR, or __pycache__).
from .geo import M_PER_DEG


@njit(cache=True, inline="always")
def _wrap(d: float) -> float:
    """A longitude difference folded into [-180, 180): the short way round."""
    if d >= 180.0 or d < -180.0:
        d = (d + 180.0) % 360.0 - 180.0
    return d


def project(e5: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equirectangular metres (x, y arrays) about each part's mean latitude, longitudes unwrapped.

    Takes the vertices as sent (int64, 1e-5 degrees). Unwrapping (each step
    taken the short way) keeps a part that crosses the antimeridian
    continuous; distances within a part are then plain Euclidean. Separate
    x and y arrays stream faster through the ranking than interleaved pairs.
    """
    x = np.empty(e5.shape[0])
    y = np.empty(e5.shape[0])
    _project_into(e5, offsets, x, y)
    return x, y


# Large arrays are allocated by numpy, not inside kernels: numpy asks the kernel
# for huge pages, numba's allocations fault in 4 KiB pages (an 8 MB array then
# costs more to touch than a kernel takes to fill it).
@njit(cache=True)
def _project_into(e5: np.ndarray, offsets: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    n = e5.shape[0]
    # Degrees first, in a loop free of dependencies (the divisions pipeline, unsigned
    # indices let it vectorize); then the sequential sums. Same operations, same order.
    for i in range(uint64(n)):
        x[i] = e5[i, 0] / 1e5
        y[i] = e5[i, 1] / 1e5
    for p in range(offsets.shape[0] - 1):
        s = offsets[p]
        e = offsets[p + 1]
        if e <= s:
            continue
        lat_sum = 0.0
        for i in range(s, e):
            lat_sum += y[i]
        kx = M_PER_DEG * math.cos(math.radians(lat_sum / (e - s)))
        lon = x[s]
        prev = lon
        for i in range(s, e):
            here = x[i]
            lon += _wrap(here - prev)
            prev = here
            x[i] = lon * kx
    for i in range(uint64(n)):
        y[i] = y[i] * M_PER_DEG


# The farthest-vertex search, the ranking's inner loop, runs three ways by segment length:
# scalar up to _SMALL vertices, in vectorized blocks of _BLOCK up to _WIDE, and past that
# block by block, skipping every block whose bound proves it cannot hold the farthest.
_BLOCK = 256
_SMALL = 24
_WIDE = 8 * _BLOCK
# Slack on those bounds: far above the rounding of any distance here, and 1 micrometre.
_REL = 1e-9
_ABS = 1e-6


@njit(cache=True, inline="always")
def _d2(px: float, py: float, dx: float, dy: float, len2: float, inv: float) -> float:
    """Squared distance from p to the segment from the origin to d (len2 = |d|^2 > 0, inv = 1/len2).

    Distance to the nearer end outside the segment, to the line inside it.
    All three are computed and one selected, so loops over vertices have no
    branches and vectorize; each value is bit for bit what the branching form
    gives (no fast-math: no contraction or reassociation).
    """
    t = px * dx + py * dy
    da = px * px + py * py
    qx = px - dx
    qy = py - dy
    db = qx * qx + qy * qy
    c = px * dy - py * dx
    dp = c * c * inv
    return da if t <= 0.0 else (db if t >= len2 else dp)


@njit(cache=True, inline="always")
def _fill_max(x, y, s, n, ax, ay, dx, dy, len2, inv, buf, bits) -> int:
    """Squared distances of the n (<= _BLOCK) vertices from s into `buf`; the bits of the largest.

    `bits` views `buf` as int64: non-negative doubles order like their bits, and an
    integer maximum vectorizes where a float one would need fast-math. Unsigned
    indices spare numba's negative-index wraparound, so both loops vectorize.
    """
    su = uint64(s)
    for i in range(uint64(n)):
        j = su + i
        buf[i] = _d2(x[j] - ax, y[j] - ay, dx, dy, len2, inv)
    m = np.int64(-1)
    for i in range(uint64(n)):
        v = bits[i]
        m = v if v > m else m
    return m


@njit(cache=True, inline="always")
def _first(bits, m) -> int:
    """Position of the first value with bits `m` (present)."""
    j = 0
    while bits[j] != m:
        j += 1
    return j


@njit(cache=True)
def _block_radii(x: np.ndarray, y: np.ndarray, buf: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Per whole block of _BLOCK vertices: its middle vertex's distance to its farthest + slack."""
    nb = x.shape[0] // _BLOCK
    radius = np.empty(nb)
    for j in range(nb):
        s = j * _BLOCK
        c = s + _BLOCK // 2
        cx = x[c]
        cy = y[c]
        su = uint64(s)
        for i in range(uint64(_BLOCK)):
            px = x[su + i] - cx
            py = y[su + i] - cy
            buf[i] = px * px + py * py
        m = np.int64(0)
        for i in range(uint64(_BLOCK)):
            v = bits[i]
            m = v if v > m else m
        r = math.sqrt(buf[_first(bits, m)])
        radius[j] = r + _REL * (abs(cx) + abs(cy) + r) + _ABS
    return radius


@njit(cache=True)
def _farthest_wide(x, y, a, b, ax, ay, dx, dy, len2, inv, buf, bits, radius, bound):
    """`_farthest` of a long segment (b - a > _WIDE), skipping blocks that cannot hold it.

    Distance to a segment is 1-Lipschitz, so no vertex of block j is farther
    than its middle vertex's distance plus the block's radius (plus slack for
    rounding). The block with the highest bound is scanned first; every other
    block is scanned only if its bound reaches the farthest distance so far.
    Equal distances go to the lower index, so the result is the plain scan's.
    """
    k = a + 1
    best = -1.0
    top = np.int64(-1)
    j0 = (a + _BLOCK) // _BLOCK  # whole blocks j0..j1-1 lie strictly between a and b
    j1 = b // _BLOCK
    head = j0 * _BLOCK
    for s in range(a + 1, head, _BLOCK):
        m = _fill_max(x, y, s, min(_BLOCK, head - s), ax, ay, dx, dy, len2, inv, buf, bits)
        if m > top:
            j = _first(bits, m)
            top, k, best = m, s + j, buf[j]
    for s in range(j1 * _BLOCK, b, _BLOCK):
        m = _fill_max(x, y, s, min(_BLOCK, b - s), ax, ay, dx, dy, len2, inv, buf, bits)
        if m > top:
            j = _first(bits, m)
            top, k, best = m, s + j, buf[j]
    slack = _REL * (abs(ax) + abs(ay) + abs(dx) + abs(dy)) + _ABS
    high = -1.0
    jh = j0
    for j in range(j0, j1):
        c = j * _BLOCK + _BLOCK // 2
        u = math.sqrt(_d2(x[c] - ax, y[c] - ay, dx, dy, len2, inv)) + radius[j] + slack
        bound[j - j0] = u
        if u > high:
            high = u
            jh = j
    reach = -1.0
    for step in range(j1 - j0 + 1):
        j = jh if step == 0 else j0 + step - 1
        if step > 0 and (j == jh or bound[j - j0] < reach):
            continue
        s = j * _BLOCK
        m = _fill_max(x, y, s, _BLOCK, ax, ay, dx, dy, len2, inv, buf, bits)
        if m > top or (m == top and s < k):
            j = _first(bits, m)
            top, k, best = m, s + j, buf[j]
            reach = math.sqrt(best)
    return k, best


def rank(
    x: np.ndarray, y: np.ndarray, offsets: np.ndarray, anchor: np.ndarray, cutoff: float
) -> np.ndarray:
    """Douglas-Peucker significance of every vertex; anchors get +inf.

    A vertex's significance is the tolerance at which DP between consecutive
    anchors would drop it: its distance to the segment of its split, clamped
    by its parent's. Keeping every vertex with significance > t is then
    exactly DP at tolerance t, and every threshold prefix is a DP result.
    Distances are to the segment, first farthest wins, as in GEOS (which rounds
    its distances differently: near-ties may go the other way there).

    With `cutoff` >= 0 the splitting stops like DP at that tolerance: vertices
    of significance <= cutoff stay NaN (unranked), all others get their exact
    value. A negative cutoff ranks every vertex.
    """
    sig = np.full(x.shape[0], np.nan) if cutoff >= 0.0 else np.empty(x.shape[0])
    # The stack of pending segments holds the anchor runs plus about the DP depth
    # (tens for real lines); only pathological lines (spirals) need up to n.
    capacity = min(x.shape[0] + 1, int(np.count_nonzero(anchor)) + offsets.shape[0] + 4096)
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
                    if top == capacity:
                        return False
                    st_a[top] = prev
                    st_b[top] = i
                    st_s[top] = np.inf
                    top += 1
                prev = i
    return _descend(sig, x, y, st_a, st_b, st_s, top, cutoff)


def rank_deeper(x: np.ndarray, y: np.ndarray, sig: np.ndarray, cutoff: float) -> None:
    """Continues a ranking cut off at some tolerance down to `cutoff` (< it), in place.

    Every run of unranked (NaN) vertices between ranked ones is a segment DP
    stopped at; its parent significance is the smaller of its ends' (the later
    split), so splitting those segments on gives exactly what ranking from the
    start with `cutoff` gives, for the cost of the new levels only.
    """
    runs = int(np.count_nonzero(np.isnan(sig[1:]) & ~np.isnan(sig[:-1])))
    if not _deepen_into(sig, x, y, runs + 4096, cutoff):
        _deepen_into(sig, x, y, x.shape[0] + 1, cutoff)


@njit(cache=True)
def _deepen_into(sig, x, y, capacity: int, cutoff: float) -> bool:
    st_a = np.empty(capacity, dtype=np.int64)
    st_b = np.empty(capacity, dtype=np.int64)
    st_s = np.empty(capacity, dtype=np.float64)
    top = 0
    prev = 0
    for i in range(1, sig.shape[0]):
        if np.isnan(sig[i]):
            continue
        if i > prev + 1:
            if top == capacity:
                return False
            st_a[top] = prev
            st_b[top] = i
            st_s[top] = min(sig[prev], sig[i])
            top += 1
        prev = i
    return _descend(sig, x, y, st_a, st_b, st_s, top, cutoff)


@njit(cache=True)
def _descend(sig, x, y, st_a, st_b, st_s, top: int, cutoff: float) -> bool:
    """Splits the `top` pending segments depth first; False if the stack overflowed.

    Depth first, so short segments are ranked while their vertices are in
    cache. Each vertex of a segment is the first farthest from it when its
    squared distance is the largest, ties going to the lower index.
    """
    capacity = st_a.shape[0]
    buf = np.empty(_BLOCK)
    bits = buf.view(np.int64)
    radius = _block_radii(x, y, buf, bits)
    bound = np.empty(radius.shape[0] + 1)
    while top > 0:
        top -= 1
        a = st_a[top]
        b = st_b[top]
        parent = st_s[top]
        ax = x[a]
        ay = y[a]
        dx = x[b] - ax
        dy = y[b] - ay
        len2 = dx * dx + dy * dy
        k = a + 1
        best = -1.0
        if len2 == 0.0:  # a closed loop: distance to the point a = b
            for i in range(a + 1, b):
                px = x[i] - ax
                py = y[i] - ay
                d2 = px * px + py * py
                if d2 > best:
                    best = d2
                    k = i
        elif b - a <= _SMALL:
            inv = 1.0 / len2
            au = uint64(a + 1)
            for i in range(uint64(b - a - 1)):
                j = au + i
                d2 = _d2(x[j] - ax, y[j] - ay, dx, dy, len2, inv)
                gt = d2 > best
                best = d2 if gt else best
                k = np.int64(j) if gt else k
        elif b - a <= _WIDE:
            inv = 1.0 / len2
            most = np.int64(-1)
            for s in range(a + 1, b, _BLOCK):
                m = _fill_max(x, y, s, min(_BLOCK, b - s), ax, ay, dx, dy, len2, inv, buf, bits)
                if m > most:
                    j = _first(bits, m)
                    most, k, best = m, s + j, buf[j]
        else:
            k, best = _farthest_wide(
                x, y, a, b, ax, ay, dx, dy, len2, 1.0 / len2, buf, bits, radius, bound
            )
        d = math.sqrt(best)
        if d > parent:
            d = parent
        if d <= cutoff:
            continue  # the whole segment is below the cutoff
        sig[k] = d
        if top + 2 > capacity:
            return False
        # Push both halves, the left on top; a half with no vertex inside is overwritten.
        st_a[top] = k
        st_b[top] = b
        st_s[top] = d
        top += 1 if b > k + 1 else 0
        st_a[top] = a
        st_b[top] = k
        st_s[top] = d
        top += 1 if k > a + 1 else 0
    return True


def max_error(
    lonlat: np.ndarray, dedup_of: np.ndarray, e5: np.ndarray, keep: np.ndarray, q: int = 1
) -> float:
    """Largest distance in metres from any original vertex to the kept segment spanning it.

    `lonlat` are the original (unrounded) vertices, `dedup_of` maps each to its
    merged vertex (non-decreasing, steps of 0 or 1), `e5` are the merged
    vertices as sent (on the grid of `q` e5 steps) and `keep` marks the kept
    ones (every part's ends among them, so a segment never crosses parts). An
    original vertex of a kept merged vertex is measured to that vertex, every
    other one to the kept segment around it. Each distance is measured in an
    equirectangular frame about the segment's own latitude, so the figure
    stays honest on long routes far from any part's mean latitude.

    The originals of kept vertices are measured last, and only if the segments
    left the largest distance below what rounding can put between an original
    and its vertex as sent (half an e5 step, plus half a grid step when q > 1,
    on each axis): at any tolerance the budget forces that is rare, and the
    figure is the same.
    """
    first = np.empty(e5.shape[0] + 1, dtype=np.int64)
    half = 0.5 * (1 + q) if q > 1 else 0.5
    rounding = half * 1e-5 * M_PER_DEG * math.sqrt(2.0)
    bound = rounding * (1.0 + 1e-9) + 1e-6  # slack far above the distances' rounding
    return _max_error(lonlat, dedup_of, e5, np.flatnonzero(keep), first, bound * bound)


@njit(cache=True)
def _max_error(lonlat, dedup_of, e5, kept_at, first, rounding2) -> float:
    # first[d]: the first original vertex of merged vertex d (dedup_of is non-decreasing).
    n = lonlat.shape[0]
    m = e5.shape[0]
    for j in range(n - 1, -1, -1):
        first[dedup_of[j]] = j
    first[m] = n
    worst = 0.0
    if kept_at.shape[0] == 0:
        return worst
    # cos of latitudes from a cached cos/sin pair and a Taylor step (kept vertices are
    # close: one libm call per ~0.6 degrees of latitude, not two per kept vertex).
    cache = np.array([1e9, 0.0, 0.0])
    a = kept_at[0]
    alon = e5[a, 0] / 1e5
    alat = e5[a, 1] / 1e5
    for k in range(kept_at.shape[0] - 1):
        b = kept_at[k + 1]
        blon = e5[b, 0] / 1e5  # b's degrees, once: a in the next round
        blat = e5[b, 1] / 1e5
        if b > a + 1:  # dropped vertices between them (b may start the next part)
            # The originals of the dropped vertices between a and b: distances to segment a-b.
            kx = M_PER_DEG * _cos(math.radians(0.5 * (alat + blat)), cache)
            dx = _wrap(blon - alon) * kx
            dy = (blat - alat) * M_PER_DEG
            len2 = dx * dx + dy * dy
            inv = 1.0 / len2 if len2 > 0.0 else 0.0  # a point segment: the distance to a
            for j in range(first[a + 1], first[b]):
                px = _wrap(lonlat[j, 0] - alon) * kx
                py = (lonlat[j, 1] - alat) * M_PER_DEG
                d2 = _d2(px, py, dx, dy, len2, inv)
                worst = d2 if d2 > worst else worst
        a, alon, alat = b, blon, blat
    if worst >= rounding2:
        return math.sqrt(worst)  # no original of a kept vertex can be farther
    for k in range(kept_at.shape[0]):
        # The originals of kept vertex a: distances to a itself, in a frame about a.
        a = kept_at[k]
        alon = e5[a, 0] / 1e5
        alat = e5[a, 1] / 1e5
        kx = M_PER_DEG * _cos(math.radians(alat), cache)
        for j in range(first[a], first[a + 1]):
            px = _wrap(lonlat[j, 0] - alon) * kx
            py = (lonlat[j, 1] - alat) * M_PER_DEG
            d2 = px * px + py * py
            worst = d2 if d2 > worst else worst
    return math.sqrt(worst)


# Largest latitude step (radians) taken by Taylor from a cached cos/sin: truncation ~1e-17.
_TAYLOR_RAD = 0.01


@njit(cache=True, inline="always")
def _cos(phi: float, cache: np.ndarray) -> float:
    """cos(phi) from `cache` = [base, cos(base), sin(base)], refreshed when phi is far from base."""
    h = phi - cache[0]
    if abs(h) > _TAYLOR_RAD:
        cache[0] = phi
        cache[1] = math.cos(phi)
        cache[2] = math.sin(phi)
        h = 0.0
    h2 = h * h
    cos_h = 1.0 - h2 * (0.5 - h2 / 24.0)
    sin_h = h * (1.0 - h2 * (1.0 / 6.0 - h2 / 120.0))
    return cache[1] * cos_h - cache[2] * sin_h


def round_merge(lonlat: np.ndarray, offsets: np.ndarray, is_ring: np.ndarray):
    """Rounds to 1e-5 degrees and merges runs of equal consecutive vertices, in one pass.

    Returns (first bad vertex or -1, merged vertex of each vertex, merged e5
    vertices, merged part offsets). A line left with one vertex keeps its last
    one too and a ring left with fewer than 4 keeps them all, so every part
    stays valid GeoJSON. Bad means NaN, infinite or out of range.
    """
    run_id = np.empty(lonlat.shape[0], dtype=np.int64)
    e5 = np.empty((lonlat.shape[0], 2), dtype=np.int64)
    moffsets = np.empty(offsets.shape[0], dtype=np.int64)
    bad, m = _round_merge_into(lonlat, offsets, is_ring, run_id, e5, moffsets)
    return bad, run_id, e5[:m], moffsets


@njit(cache=True)
def _round_merge_into(lonlat, offsets, is_ring, run_id, e5, moffsets) -> tuple[int, int]:
    n = lonlat.shape[0]
    for i in range(n):
        lon = lonlat[i, 0]
        lat = lonlat[i, 1]
        if not (abs(lon) <= 180.0 and abs(lat) <= 90.0):
            return i, 0
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
    return -1, m


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
