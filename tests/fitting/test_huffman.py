"""The line section's coder (`fitting._huffman`) held to zlib-ng as the reference.

zlib-ng's deflate with `Z_HUFFMAN_ONLY` at memLevel 9 writes the same kind of
stream: blocks of literals, each with a Huffman code of its own, one block per
32 Ki literals. Ours must inflate to the same bytes as the reference's, with
zlib-ng's inflater as well as zlib's, and take at most one byte a block more
(two equally short codes may differ in how their lengths are sent), plus
`STORED_SHARE` on bytes that do not compress.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from zlib_ng import zlib_ng

from loadtest import recorded
from tomtom_mcp_apps.fitting import _parts, _varint
from tomtom_mcp_apps.fitting._huffman import BLOCK, Section, _Plan

MEM_LEVEL = 9  # zlib-ng ends a block of literals every 2 ** (memLevel + 6): ours are BLOCK bytes
STORED_SHARE = 0.002
"""How much shorter zlib-ng may be on bytes that do not compress: it sends a block stored
where its literals cost more than 8 bits, ours keeps a code of its own (header ~0.15% of a
block of uniform random bytes; varint lines compress)."""


def reference(raw: np.ndarray) -> bytes:
    """zlib-ng's Huffman-only deflate of `raw`: a raw deflate stream, its last block final."""
    compressor = zlib_ng.compressobj(1, zlib_ng.DEFLATED, -15, MEM_LEVEL, zlib_ng.Z_HUFFMAN_ONLY)
    return compressor.compress(raw) + compressor.flush(zlib_ng.Z_FINISH)


def blocks(raw: np.ndarray) -> int:
    return max(1, -(-raw.shape[0] // BLOCK))


STORED_HEADER_BITS = 3 + 32
"""A stored block's header at its shortest (RFC 1951, 3.2.4): 3 bits, no padding, LEN, NLEN."""


def stored_saving(raw: np.ndarray) -> int:
    """Bytes the reference may save by storing blocks, which this coder never does.

    zlib-ng stores a block where that is shorter than coding it: bytes that do not
    compress, such as a short last block (a hundred bytes or two, many of them 144
    or more, 9 bits each in deflate's fixed code). Each of our blocks is allowed what
    storing it would save, at most what storing saves over the fixed code (RFC 1951,
    3.2.6: 8 or 9 bits a byte, 7 for the end of the block), which this coder sends
    where that is shorter than a code of its own. A block whose bytes compress is
    allowed nothing.
    """
    bits = 0
    for start in range(0, raw.shape[0], BLOCK):
        block = raw[start : start + BLOCK]
        fixed = 3 + int(np.where(block < 144, 8, 9).sum()) + 7
        ours = min(_Plan(block).bits, fixed)
        bits += max(0, ours - STORED_HEADER_BITS - 8 * block.shape[0])
    return -(-bits // 8)


def assert_like_the_reference(raw: np.ndarray, slack: int) -> None:
    section, expected = Section(raw), reference(raw)
    data = raw.tobytes()
    assert zlib_ng.decompress(section.data, wbits=-15) == data
    assert zlib.decompress(section.data, wbits=-15) == data
    assert zlib_ng.decompress(expected, wbits=-15) == data
    assert section.length == len(section.data) <= len(expected) + slack


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.integers(0, 3 * BLOCK + 5),
    values=st.integers(1, 256),
    shape=st.floats(0.3, 5.0),
)
@example(seed=0, size=BLOCK + 5, values=256, shape=0.7)  # a last block for the fixed code
@example(seed=1, size=5, values=3, shape=1.0)  # a section short enough for LZ77 to pay
@example(seed=1, size=BLOCK + 132, values=211, shape=3.0)  # a last block zlib-ng stores
def test_a_coded_section_reads_as_the_reference_and_is_within_a_byte_a_block_of_it(
    seed: int, size: int, values: int, shape: float
) -> None:
    """Bytes that compress, from very skewed (a few values common, as in varints) to
    nearly even. Two equally short codes may differ in how their lengths are sent. A
    short last block may not compress: the reference may store it (`stored_saving`)."""
    rng = np.random.default_rng(seed)
    weights = rng.pareto(shape, 256) + 1e-3
    raw = (rng.choice(256, size, p=weights / weights.sum()) % values).astype(np.uint8)
    assert_like_the_reference(raw, blocks(raw) + stored_saving(raw))


def deep() -> np.ndarray:
    """Byte counts in a Fibonacci series: an unlimited Huffman code would take 19 bits."""
    fib = [1, 2]
    while sum(fib) + fib[-1] + fib[-2] < BLOCK:
        fib.append(fib[-1] + fib[-2])
    return np.repeat(np.arange(len(fib), dtype=np.uint8), fib)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(deep(), id="codes limited to 15 bits"),
        pytest.param(np.tile(deep(), 3), id="limited codes over several blocks"),
        pytest.param(np.full(40_000, 7, dtype=np.uint8), id="one byte value"),
        pytest.param(np.arange(256, dtype=np.uint8), id="every byte value once"),
    ],
)
def test_edge_cases_of_the_code_read_as_the_reference_within_a_byte_a_block(
    raw: np.ndarray,
) -> None:
    assert_like_the_reference(raw, blocks(raw))


def test_bytes_that_do_not_compress_cost_at_most_the_stored_share_more() -> None:
    raw = np.random.default_rng(5).integers(0, 256, 100_000, dtype=np.uint8)
    expected = len(reference(raw))
    assert expected <= raw.shape[0] + 5 * blocks(raw)  # the reference stored its blocks
    assert_like_the_reference(raw, blocks(raw) + int(STORED_SHARE * expected))


@pytest.mark.parametrize("q", [1, 2, 5, 10, 50])
@pytest.mark.parametrize("share", [1.0, 0.5, 0.1, 0.01])
def test_recorded_lines_are_coded_within_a_byte_a_block_of_the_reference(
    q: int, share: float
) -> None:
    """The trip's line section on grids a fit may choose, from every vertex to 1 in 100."""
    trip = _parts.collect(recorded.route_envelope(recorded.legs())["data"])
    units = np.rint(trip.e5 / q).astype(np.int64)
    keep = np.random.default_rng(q).random(units.shape[0]) < share
    keep[trip.offsets[:-1]] = keep[trip.offsets[1:] - 1] = True
    raw, _ = _varint.encode(units, np.flatnonzero(keep), trip.offsets)
    assert_like_the_reference(raw, blocks(raw))
