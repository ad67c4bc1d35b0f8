"""Lines as zigzag varint deltas: the line section of envelope v2 (docs/result.md).

Each part is its vertices in units of `q` e5 steps, the first pair absolute and the rest
differences, each number zigzag-mapped and written as a little-endian base-128 varint.
Coordinates are validated to [-180, 180] x [-90, 90], so every value takes at most 4
bytes; a decoder refuses longer ones.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types, uint64
from numba.extending import intrinsic

if sys.byteorder != "little":  # `store8` writes a machine word as little-endian bytes
    raise ImportError("fitting's varint encoder needs a little-endian machine")

# Zigzag values stay below 2**28 (|delta| <= 3.6e7 e5 steps): 4 bytes of 7 bits.
MAX_BYTES = 4


def encode(units: np.ndarray, kept_at: np.ndarray, offsets: np.ndarray):
    """The kept vertices of `units` ((m, 2) int64, q-unit coordinates) as varint deltas.

    `kept_at` lists the kept vertices in order, every part's first and last
    among them. Returns (uint8 bytes, start of each part in them plus the end).
    """
    # 8 bytes per vertex at most, and 8 more: each vertex is one 8-byte store.
    out = np.empty(2 * MAX_BYTES * (kept_at.shape[0] + 1), dtype=np.uint8)
    bounds = np.empty(offsets.shape[0], dtype=np.int64)
    size = _encode_into(np.ascontiguousarray(units).reshape(-1), kept_at, offsets, out, bounds)
    return out[:size], bounds


def pieces(units: np.ndarray, offsets: np.ndarray, step: int, bounds: np.ndarray):
    """Every vertex of `units` as `encode` writes them, `step` vertices a piece.

    For streaming an as-is line section that may be abandoned after a few
    pieces (`_huffman.bytes_within`). `bounds` (one per part plus one) gets
    each part's start as the part begins, and the end after the last piece.
    """
    flat = np.ascontiguousarray(units).reshape(-1)
    m = units.shape[0]
    written = 0
    part = 0
    for start in range(0, m, step):
        stop = min(m, start + step)
        out = np.empty(2 * MAX_BYTES * (stop - start + 1), dtype=np.uint8)
        size, part = _encode_run(flat, offsets, part, start, stop, out, written, bounds)
        written += size
        yield out[:size]
    bounds[-1] = written


@njit(cache=True)
def _encode_run(flat, offsets, part: int, start: int, stop: int, out, written: int, bounds):
    """Writes vertices start..stop-1 (a delta from the one before unless it starts a part).

    `part` holds vertex `start` or precedes it; returns (bytes written, the
    part of the last vertex). Part starts go into `bounds`, offset by `written`.
    """
    words = np.empty(_CHUNK, dtype=np.uint64)
    lens = np.empty(_CHUNK, dtype=np.uint64)
    pos = uint64(0)
    i = start
    while i < stop:
        while i >= offsets[part + 1]:
            part += 1
        if i == offsets[part]:  # a part's first vertex: absolute
            bounds[part] = written + pos
            pos = _store_pair(out, pos, flat[2 * i], flat[2 * i + 1])
            i += 1
        run = min(stop, offsets[part + 1]) - i  # deltas to the vertex before, within the part
        while run > 0:
            c = min(run, _CHUNK)
            base = uint64(2 * i)
            for j in range(uint64(c)):
                at = base + uint64(2) * j
                words[j], lens[j] = _pair(
                    flat[at] - flat[at - uint64(2)], flat[at + uint64(1)] - flat[at - uint64(1)]
                )
            pos = _store_words(out, pos, words, lens, c)
            i += c
            run -= c
    return pos, part


# The as-is pieces (consecutive vertices) are encoded a chunk at a time: every vertex's word
# and length first (independent of each other, unsigned indices), then the stores at a
# running sum of the lengths, which pipelines better than one loop per vertex. Kept
# vertices (`_encode_into`, gathered through `kept_at`) stay one loop: chunked, they are
# slower.
_CHUNK = 512


@njit(cache=True, inline="always")
def _pair(dx: int, dy: int):
    """Both numbers' varint bytes in one little-endian word, and their bytes."""
    wx, nx = _word(dx)
    wy, ny = _word(dy)
    return uint64(wx | (wy << (8 * nx))), uint64(nx + ny)


@njit(cache=True, inline="always")
def _store_pair(out, pos, dx: int, dy: int):
    word, n = _pair(dx, dy)
    store8(out, pos, word)
    return pos + n


@njit(cache=True, inline="always")
def _store_words(out, pos, words, lens, c: int):
    for j in range(uint64(c)):
        store8(out, pos, words[j])
        pos += lens[j]
    return pos


@intrinsic
def store8(typingctx, out, pos, value):
    """Stores uint64 `value` at byte `pos` of the uint8 array `out`, unaligned, unchecked.

    One store where four byte stores per number would be the encoder's bottleneck.
    The caller guarantees `out` has 8 bytes from `pos`.
    """

    def codegen(context, builder, signature, args):
        array, at, word = args
        data = context.make_array(signature.args[0])(context, builder, array).data
        target = builder.bitcast(builder.gep(data, [at]), ir.IntType(64).as_pointer())
        builder.store(word, target).align = 1
        return context.get_dummy_value()

    return types.void(out, pos, value), codegen


@njit(cache=True, inline="always")
def _word(value: int):
    """The varint of `value` (zigzag first) as little-endian bytes in an integer, and its length.

    Branch-free: varint lengths vary from number to number, so a loop's exit
    would mispredict; all four bytes are built and the length says how many count.
    """
    u = (value << 1) ^ (value >> 63)
    c1 = u >= 0x80
    c2 = u >= 0x4000
    c3 = u >= 0x200000
    word = (
        ((u & 0x7F) | (c1 << 7))
        | ((((u >> 7) & 0x7F) | (c2 << 7)) << 8)
        | ((((u >> 14) & 0x7F) | (c3 << 7)) << 16)
        | (((u >> 21) & 0x7F) << 24)
    )
    return word, 1 + c1 + c2 + c3


@njit(cache=True)
def _encode_into(flat, kept_at, offsets, out, bounds) -> int:
    """Writes the kept vertices (`flat` is units raveled: x0, y0, x1, ...); returns the size.

    A vertex is one unaligned 8-byte store of both numbers' bytes; the next
    vertex overwrites what lies past their length. Unsigned positions and
    indices spare numba's negative-index wraparound on every access.
    """
    pos = uint64(0)
    k = uint64(0)
    count = uint64(kept_at.shape[0])
    for p in range(offsets.shape[0] - 1):
        bounds[p] = pos
        end = uint64(offsets[p + 1])
        px = np.int64(0)
        py = np.int64(0)
        while k < count:
            i = uint64(kept_at[k])
            if i >= end:
                break
            x = flat[uint64(2) * i]
            y = flat[uint64(2) * i + uint64(1)]
            wx, nx = _word(x - px)
            wy, ny = _word(y - py)
            store8(out, pos, uint64(wx | (wy << (8 * nx))))
            pos += uint64(nx + ny)
            px = x
            py = y
            k += uint64(1)
    bounds[offsets.shape[0] - 1] = pos
    return pos


def decode(data: np.ndarray, start: int, end: int) -> np.ndarray | str:
    """The flat integer deltas in `data[start:end]` (uint8), or why they are not varints."""
    if not 0 <= start <= end <= data.shape[0]:
        return f"bytes {start} to {end} lie outside the {data.shape[0]}-byte line section"
    out = np.empty(end - start, dtype=np.int64)
    count, bad = _decode_into(data, start, end, out)
    if bad >= 0:
        return f"the varint at byte {bad} is longer than {MAX_BYTES} bytes or cut off"
    if count % 2:
        return f"bytes {start} to {end} hold {count} numbers, not pairs"
    return out[:count]


@njit(cache=True)
def _decode_into(data, start, end, out) -> tuple[int, int]:
    count = 0
    i = start
    while i < end:
        first = i
        u = np.int64(0)
        shift = 0
        while True:
            if i >= end or shift >= 7 * MAX_BYTES:
                return count, first
            b = np.int64(data[i])
            i += 1
            u |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        out[count] = (u >> 1) ^ -(u & 1)
        count += 1
    return count, -1


@njit(cache=True)
def size(units, sig, offsets, threshold: float) -> int:
    """Bytes `encode` writes for the vertices with significance >= `threshold`, in one pass.

    Lets the budget search aim with a size model instead of a trial encode.
    Branch-free (whether a vertex is kept is a coin toss near the threshold,
    so a branch would mispredict half the time): every vertex's length is
    computed and counted only if kept, the previous vertex moves only if kept.
    """
    flat = units.reshape(-1)  # (m, 2) units or already flat
    one = uint64(1)
    total = 0
    for p in range(offsets.shape[0] - 1):
        px = np.int64(0)
        py = np.int64(0)
        for i in range(uint64(offsets[p]), uint64(offsets[p + 1])):
            kept = sig[i] >= threshold
            x = flat[uint64(2) * i]
            y = flat[uint64(2) * i + one]
            total += (length(x - px) + length(y - py)) * kept
            px = x if kept else px
            py = y if kept else py
    return total


@njit(cache=True, inline="always")
def length(value: int) -> int:
    """Bytes of the varint of `value` (zigzag first)."""
    u = (value << 1) ^ (value >> 63)
    return 1 + (u >= 0x80) + (u >= 0x4000) + (u >= 0x200000)
