"""The line section's entropy coding: deflate blocks of literals, each with its own Huffman code.

Varint bytes leave LZ77 little to find, and a block of literals costs what its byte
histogram says before a bit is written: the budget search measures a candidate exactly
without compressing it (docs/fitting.md, What it writes).
"""

from __future__ import annotations

import numpy as np
from isal import isal_zlib
from numba import njit, uint64

from ._varint import store8

BLOCK = 1 << 15
"""Bytes of the section per deflate block, the last one shorter: a prefix's complete blocks
are the whole's first blocks, so their cost is a lower bound of the whole's."""
# Sections up to this many bytes are also deflated (ISA-L, LZ77 and all) and sent
# that way when shorter: on short lines header bytes and repeats weigh more.
SMALL = 8192
# `lz77_pays` deflates this much of a candidate, and switches when that saves over 2%.
SAMPLE = 1 << 13
_LZ77_MARGIN = 0.98
GZIP_LEVEL = 2  # as `_codec`'s
_LITERALS = 257  # 256 byte values and end-of-block
_END = 256
_DISTANCES = 2  # two 1-bit distance codes (none used), as zlib writes blocks of literals
_MAX_BITS = 15
_MAX_LENGTH_BITS = 7
# The order in which the code-length code's lengths are sent (RFC 1951, 3.2.7).
_ORDER = np.array([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15])
_EXTRA_BITS = np.array([0] * 16 + [2, 3, 7])  # of code-length symbols 16, 17, 18
_SEQUENCE = _LITERALS + _DISTANCES  # code lengths sent per block
# Deflate's fixed literal/length code (RFC 1951, 3.2.6), of which the stream uses 0-256.
_FIXED_LENGTHS = np.array([8] * 144 + [9] * 112 + [7] * 24 + [8] * 8, dtype=np.int64)


class Section:
    """A line section and its deflate stream, whose length is known before it is written.

    Blocks are planned on construction (histograms, codes, header); the
    stream is written on first use of `data`. It starts byte-aligned (after the
    JSON's sync flush, `_codec.Member`) and its last block is final. zlib-ng's
    `Z_HUFFMAN_ONLY` writes the same kind of stream; tests/fitting/test_huffman.py
    holds this coder to it (same bytes inflated, at most a byte a block longer).
    """

    def __init__(self, raw: np.ndarray, lz77: bool = False) -> None:
        self.raw = raw
        self._data: bytes | None = None
        if lz77:  # deflated by ISA-L, repeats and all (`lz77_pays`)
            self._data = _deflate(raw)
            self.length = len(self._data)
            return
        self._plan = _Plan(raw)
        self.length = self._plan.length  # bytes of the deflate stream
        if raw.shape[0] <= SMALL:  # where LZ77 can still pay, and costs microseconds
            deflated = _deflate(raw)
            if len(deflated) < self.length:
                self._data, self.length = deflated, len(deflated)

    @property
    def crc(self) -> int:
        return isal_zlib.crc32(self.raw)

    @property
    def size(self) -> int:
        """Bytes of the section itself."""
        return int(self.raw.shape[0])

    @property
    def data(self) -> bytes:
        if self._data is None:  # planned literal blocks, written once
            self._data = self._plan.write(self.raw)
        return self._data


def _deflate(raw: np.ndarray) -> bytes:
    compressor = isal_zlib.compressobj(GZIP_LEVEL, isal_zlib.DEFLATED, -15)
    return compressor.compress(raw) + compressor.flush(isal_zlib.Z_FINISH)


def lz77_pays(raw: np.ndarray) -> bool:
    """Whether ISA-L's deflate beats our literal blocks on a sample of this section.

    Varint lines rarely repeat themselves, but some do: on a coarse grid a smooth
    line's deltas recur, and LZ77 then keeps more vertices. The middle `SAMPLE` bytes
    decide, for a fraction of a full deflate's time.
    """
    if raw.shape[0] <= SMALL:
        return False  # `Section` tries both anyway
    start = max(0, (raw.shape[0] - SAMPLE) // 2)
    sample = raw[start : start + SAMPLE]
    return len(_deflate(sample)) < _Plan(sample).length * _LZ77_MARGIN


def bytes_within(pieces, limit: int) -> tuple[Section | None, int, int]:
    """The section given in pieces if its stream takes at most `limit` bytes; else None.

    Stops reading pieces once the complete blocks so far pass `limit` (each
    block's cost is exact and the rest can only add). Returns (the section or
    None, the stream's bytes so far, pieces read).
    """
    held: list[np.ndarray] = []
    costed = 0  # bytes of the section in costed blocks
    size = 0
    bits = 0
    read = 0
    for piece in pieces:
        held.append(piece)
        size += piece.shape[0]
        read += 1
        if size - costed >= BLOCK:
            raw = np.concatenate(held)
            whole = costed + (size - costed) // BLOCK * BLOCK
            bits += _blocks_bits(raw[costed:whole])
            held, costed = [raw], whole
            if (bits + 7) // 8 > limit:
                return None, (bits + 7) // 8, read
    section = Section(np.concatenate(held) if held else np.empty(0, dtype=np.uint8))
    return (section if section.length <= limit else None), section.length, read


def _blocks_bits(raw: np.ndarray) -> int:
    return _Plan(raw).bits


class _Plan:
    """Every block's code lengths and header, and the bits they take."""

    def __init__(self, raw: np.ndarray) -> None:
        blocks = max(1, -(-raw.shape[0] // BLOCK))
        self.literal_lengths = np.zeros((blocks, _LITERALS), dtype=np.int64)
        self.code_lengths = np.zeros((blocks, 19), dtype=np.int64)
        self.sequence = np.zeros((blocks, _SEQUENCE, 2), dtype=np.int64)  # (symbol, extra)
        self.counts = np.zeros((blocks, 2), dtype=np.int64)  # (sequence length, code lengths sent)
        self.bits = int(
            _plan(
                raw,
                self.literal_lengths,
                self.code_lengths,
                self.sequence,
                self.counts,
                _ORDER,
                _EXTRA_BITS,
                _FIXED_LENGTHS,
            )
        )
        self.length = (self.bits + 7) // 8

    def write(self, raw: np.ndarray) -> bytes:
        out = np.zeros(self.length + 16, dtype=np.uint8)
        written = _write(
            raw,
            self.literal_lengths,
            self.code_lengths,
            self.sequence,
            self.counts,
            _ORDER,
            _EXTRA_BITS,
            _FIXED_CODES,
            out,
        )
        return out[:written].tobytes()


@njit(cache=True)
def _plan(
    raw, literal_lengths, code_lengths, sequence, counts, order, extra_bits, fixed_lengths
) -> int:
    """Fills each block's code lengths, header sequence and counts; returns the stream's bits.

    A block whose literals cost less in deflate's fixed code (RFC 1951, 3.2.6)
    than in a code of its own and its header gets the fixed code's lengths and
    0 code lengths sent.
    """
    n = raw.shape[0]
    blocks = literal_lengths.shape[0]
    freq = np.zeros(_LITERALS, dtype=np.int64)
    lengths = np.zeros(_SEQUENCE, dtype=np.int64)
    length_freq = np.zeros(19, dtype=np.int64)
    scratch = np.zeros((4, 256), dtype=np.int64)
    total = 0
    for block in range(blocks):
        start = block * BLOCK
        end = min(n, start + BLOCK)
        _histogram(raw, start, end, freq, scratch)
        freq[_END] = 1
        if end <= start:  # an empty section: a code needs two symbols, byte 0 is never sent
            freq[0] = 1
            _code_lengths(freq, _MAX_BITS, literal_lengths[block])
            freq[0] = 0
        else:
            _code_lengths(freq, _MAX_BITS, literal_lengths[block])
        lengths[:_LITERALS] = literal_lengths[block]
        lengths[_LITERALS:] = 1  # two 1-bit distance codes
        count = _run_lengths(lengths, sequence[block])
        length_freq[:] = 0
        for k in range(count):
            length_freq[sequence[block, k, 0]] += 1
        if np.count_nonzero(length_freq) < 2:  # a code needs two symbols to be complete
            length_freq[0 if length_freq[0] == 0 else 1] = 1
        _code_lengths(length_freq, _MAX_LENGTH_BITS, code_lengths[block])
        sent = 19
        while sent > 4 and code_lengths[block, order[sent - 1]] == 0:
            sent -= 1
        counts[block, 0] = count
        counts[block, 1] = sent
        bits = 3 + 5 + 5 + 4 + 3 * sent
        for k in range(count):
            symbol = sequence[block, k, 0]
            bits += code_lengths[block, symbol] + extra_bits[symbol]
        for s in range(_LITERALS):
            bits += freq[s] * literal_lengths[block, s]
        # A short block pays less with deflate's fixed code than with a header of its own.
        fixed = 3
        for s in range(_LITERALS):
            fixed += freq[s] * fixed_lengths[s]
        if fixed < bits:
            bits = fixed
            literal_lengths[block] = fixed_lengths[:_LITERALS]
            counts[block, 1] = 0  # no code lengths sent: the fixed code
        total += bits
    return total


@njit(cache=True, inline="always")
def _histogram(raw, start: int, end: int, freq, scratch) -> None:
    """Counts of each byte value in raw[start:end] into freq[:256].

    Four interleaved tables, summed at the end: consecutive equal bytes (common
    in varints) would otherwise make each increment wait on the one before.
    """
    scratch[:] = 0
    four = uint64(4)
    stop = uint64(start) + (uint64(end - start) // four) * four
    for i in range(uint64(start), stop, four):
        scratch[0, raw[i]] += 1
        scratch[1, raw[i + uint64(1)]] += 1
        scratch[2, raw[i + uint64(2)]] += 1
        scratch[3, raw[i + uint64(3)]] += 1
    for i in range(stop, uint64(end)):
        scratch[0, raw[i]] += 1
    for v in range(256):
        freq[v] = scratch[0, v] + scratch[1, v] + scratch[2, v] + scratch[3, v]


@njit(cache=True)
def _run_lengths(lengths, out) -> int:
    """The code lengths as code-length symbols (RFC 1951, 3.2.7): (symbol, extra) pairs.

    16 repeats the previous length 3-6 times, 17 and 18 give 3-10 and
    11-138 zeros; returns how many pairs.
    """
    n = lengths.shape[0]
    k = 0
    i = 0
    while i < n:
        value = lengths[i]
        run = 1
        while i + run < n and lengths[i + run] == value:
            run += 1
        i += run
        if value == 0:
            while run >= 11:
                r = min(run, 138)
                out[k, 0], out[k, 1] = 18, r - 11
                k += 1
                run -= r
            if run >= 3:
                out[k, 0], out[k, 1] = 17, run - 3
                k += 1
                run = 0
        else:
            out[k, 0], out[k, 1] = value, 0
            k += 1
            run -= 1
            while run >= 3:
                r = min(run, 6)
                out[k, 0], out[k, 1] = 16, r - 3
                k += 1
                run -= r
        for _ in range(run):
            out[k, 0], out[k, 1] = value, 0
            k += 1
    return k


@njit(cache=True)
def _code_lengths(freq, limit: int, out) -> None:
    """Huffman code lengths of the symbols with freq > 0 (at least two), at most `limit` bits.

    Two-queue Huffman over the symbols sorted by frequency, then JPEG's Annex
    K.3 adjustment if any length passes the limit (a complete code stays
    complete), lengths handed out shortest to the most frequent.
    """
    out[:] = 0
    order = np.argsort(freq, kind="mergesort")
    first = 0
    while freq[order[first]] == 0:
        first += 1
    leaves = order[first:]
    k = leaves.shape[0]
    weight = np.empty(2 * k - 1, dtype=np.int64)
    parent = np.empty(2 * k - 1, dtype=np.int64)
    for i in range(k):
        weight[i] = freq[leaves[i]]
    leaf = 0
    node = k
    for made in range(k, 2 * k - 1):
        # The two lightest of the leaves left and the nodes made so far (both ascending).
        if leaf < k and (node >= made or weight[leaf] <= weight[node]):
            a = leaf
            leaf += 1
        else:
            a = node
            node += 1
        if leaf < k and (node >= made or weight[leaf] <= weight[node]):
            b = leaf
            leaf += 1
        else:
            b = node
            node += 1
        weight[made] = weight[a] + weight[b]
        parent[a] = made
        parent[b] = made
    depth = np.zeros(2 * k - 1, dtype=np.int64)
    for i in range(2 * k - 3, -1, -1):
        depth[i] = depth[parent[i]] + 1
    longest = 0
    for i in range(k):
        longest = max(longest, depth[i])
    count = np.zeros(max(longest, limit) + 1, dtype=np.int64)
    for i in range(k):
        count[depth[i]] += 1
    for i in range(longest, limit, -1):
        while count[i] > 0:
            j = i - 2
            while count[j] == 0:
                j -= 1
            count[i] -= 2
            count[i - 1] += 1
            count[j + 1] += 2
            count[j] -= 1
    # Shortest codes to the most frequent: leaves are in ascending frequency.
    i = k - 1
    for bits in range(1, limit + 1):
        for _ in range(count[bits]):
            out[leaves[i]] = bits
            i -= 1


@njit(cache=True)
def _canonical(lengths, codes) -> None:
    """Canonical codes for `lengths` (RFC 1951, 3.2.2), bit-reversed for LSB-first writing."""
    longest = 0
    for s in range(lengths.shape[0]):
        longest = max(longest, lengths[s])
    count = np.zeros(longest + 2, dtype=np.int64)
    for s in range(lengths.shape[0]):
        count[lengths[s]] += 1
    count[0] = 0
    nxt = np.zeros(longest + 2, dtype=np.int64)
    code = 0
    for bits in range(1, longest + 1):
        code = (code + count[bits - 1]) << 1
        nxt[bits] = code
    for s in range(lengths.shape[0]):
        n = lengths[s]
        if n:
            c = nxt[n]
            nxt[n] += 1
            r = 0
            for _ in range(n):
                r = (r << 1) | (c & 1)
                c >>= 1
            codes[s] = r


@njit(cache=True)
def _write(
    raw, literal_lengths, code_lengths, sequence, counts, order, extra_bits, fixed_codes, out
) -> int:
    """Writes every block, LSB first (RFC 1951, 3.1.1); returns the bytes written."""
    n = raw.shape[0]
    blocks = literal_lengths.shape[0]
    codes = np.zeros(_LITERALS, dtype=np.int64)
    length_codes = np.zeros(19, dtype=np.int64)
    acc = uint64(0)
    filled = uint64(0)
    pos = uint64(0)
    for block in range(blocks):
        start = block * BLOCK
        end = min(n, start + BLOCK)
        final = 1 if block == blocks - 1 else 0
        count, sent = counts[block, 0], counts[block, 1]
        acc, filled, pos = _put(out, acc, filled, pos, final, 1)
        if sent == 0:  # the fixed code
            codes[:] = fixed_codes[:_LITERALS]
            acc, filled, pos = _put(out, acc, filled, pos, 1, 2)
        else:
            _canonical(literal_lengths[block], codes)
            _canonical(code_lengths[block], length_codes)
            acc, filled, pos = _put(out, acc, filled, pos, 2, 2)  # dynamic Huffman codes
            acc, filled, pos = _put(out, acc, filled, pos, _LITERALS - 257, 5)
            acc, filled, pos = _put(out, acc, filled, pos, _DISTANCES - 1, 5)
            acc, filled, pos = _put(out, acc, filled, pos, sent - 4, 4)
            for k in range(sent):
                acc, filled, pos = _put(out, acc, filled, pos, code_lengths[block, order[k]], 3)
            for k in range(count):
                symbol = sequence[block, k, 0]
                acc, filled, pos = _put(
                    out, acc, filled, pos, length_codes[symbol], code_lengths[block, symbol]
                )
                if extra_bits[symbol]:
                    acc, filled, pos = _put(
                        out, acc, filled, pos, sequence[block, k, 1], extra_bits[symbol]
                    )
        lengths = literal_lengths[block]
        # Three codes (<= 15 bits each) join the < 8 bits pending before each store.
        three = uint64(3)
        stop = uint64(start) + (uint64(end - start) // three) * three
        for i in range(uint64(start), stop, three):
            b = raw[i]
            acc |= uint64(codes[b]) << filled
            filled += uint64(lengths[b])
            b = raw[i + uint64(1)]
            acc |= uint64(codes[b]) << filled
            filled += uint64(lengths[b])
            b = raw[i + uint64(2)]
            acc |= uint64(codes[b]) << filled
            filled += uint64(lengths[b])
            store8(out, pos, acc)
            step = filled >> uint64(3)
            pos += step
            acc >>= step << uint64(3)
            filled -= step << uint64(3)
        for i in range(stop, uint64(end)):
            b = raw[i]
            acc |= uint64(codes[b]) << filled
            filled += uint64(lengths[b])
            store8(out, pos, acc)
            step = filled >> uint64(3)
            pos += step
            acc >>= step << uint64(3)
            filled -= step << uint64(3)
        acc, filled, pos = _put(out, acc, filled, pos, codes[_END], lengths[_END])
    if filled:
        store8(out, pos, acc)
        pos += uint64(1)
    return pos


@njit(cache=True, inline="always")
def _put(out, acc, filled, pos, value, width):
    """Appends `width` bits of `value` (LSB first); returns the writer's (acc, filled, pos)."""
    acc |= uint64(value) << filled
    filled += uint64(width)
    store8(out, pos, acc)
    step = filled >> uint64(3)
    return acc >> (step << uint64(3)), filled - (step << uint64(3)), pos + step


_FIXED_CODES = np.zeros(_FIXED_LENGTHS.shape[0], dtype=np.int64)
# In Python: importing this module compiles or loads no kernel, so a process that never
# fits (one answering only short calls) never waits for numba.
_canonical.py_func(_FIXED_LENGTHS, _FIXED_CODES)
