"""The one bounded decoding: which codings pass, how far a bomb gets, what a liar costs."""

from __future__ import annotations

import asyncio
import gzip
import tracemalloc
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps.server.bodies import (
    DATA_URL,
    GZIP,
    IDENTITY,
    Inflation,
    RawBody,
    coding_of,
    decode,
    prefix,
)
from tomtom_mcp_apps.server.bodies._decoding import STEP
from tomtom_mcp_apps.server.errors import BodyError
from tomtom_mcp_apps.server.offline._app import _bomb, _stacked_bomb
from tomtom_mcp_apps.server.pool import POOL_BYTES, Placement

MIB = 1024 * 1024


@pytest.mark.parametrize(
    ("header", "coding"),
    [("", IDENTITY), ("identity", IDENTITY), ("gzip", GZIP), (" GZip ", GZIP), ("x-gzip", GZIP),
     ("identity, gzip", GZIP), ("gzip,", GZIP)],
)  # fmt: skip
def test_identity_and_one_layer_of_gzip_are_the_codings_accepted(header: str, coding: str) -> None:
    assert coding_of(header) == coding


@pytest.mark.parametrize("header", ["gzip, gzip", "gzip,gzip,gzip", "deflate, gzip", "gzip, br"])
def test_a_stack_of_codings_is_refused_naming_what_came(header: str) -> None:
    with pytest.raises(BodyError, match=r"content codings stacked \(.*gzip.*\).*at most one"):
        coding_of(header)


@pytest.mark.parametrize("header", ["br", "deflate", "zstd", "compress", "x-bomb"])
def test_a_coding_nobody_asked_for_is_refused_by_name(header: str) -> None:
    with pytest.raises(BodyError, match=rf"unrequested encoding \({header}\)"):
        coding_of(header)


def test_the_messages_name_the_bodys_origin() -> None:
    with pytest.raises(BodyError, match=r"^The data_url's body came with 2 content codings"):
        coding_of("gzip, gzip", DATA_URL)
    with pytest.raises(BodyError, match=r"^The data_url's body is larger .* filter it first"):
        decode(gzip.compress(bytes(5000)), GZIP, 1000, DATA_URL)


@settings(max_examples=60, deadline=None)
@given(
    members=st.lists(st.binary(max_size=3000), min_size=1, max_size=4),
    padding=st.integers(0, 16),
)
def test_gzip_members_decode_to_what_gzip_itself_decodes(
    members: list[bytes], padding: int
) -> None:
    packed = b"".join(gzip.compress(m, mtime=0) for m in members) + bytes(padding)
    assert decode(packed, GZIP, 10**6) == b"".join(members)


def test_a_bomb_stops_one_byte_past_its_limit_never_inflated_further() -> None:
    bomb = _bomb()  # 256 MiB of zeros in 250 KB
    inflation = Inflation(bomb, 3 * MIB)
    tracemalloc.start()
    try:
        with pytest.raises(BodyError, match=r"larger than this server accepts \(3 MiB"):
            inflation.run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert inflation.size == 3 * MIB + 1
    assert peak < 3 * MIB + 2 * STEP


def test_inflation_stops_after_its_budget_and_goes_on_from_there() -> None:
    body = bytes(range(256)) * 20_000  # 5 MB
    inflation = Inflation(gzip.compress(body), 10 * MIB)
    assert inflation.run(budget=MIB) is False
    assert inflation.size == MIB
    assert inflation.run() is True
    assert inflation.result() == body


def test_truncated_and_corrupt_streams_are_named() -> None:
    packed = gzip.compress(bytes(range(256)) * 400)
    with pytest.raises(BodyError, match="truncated"):
        decode(packed[: len(packed) // 2], GZIP, MIB)
    with pytest.raises(BodyError, match="corrupt gzip"):
        decode(packed[:20] + bytes(40) + packed[60:], GZIP, MIB)


def test_an_identity_body_over_its_limit_is_refused() -> None:
    with pytest.raises(BodyError, match="larger than"):
        decode(b"x" * 11, IDENTITY, 10)


def test_the_start_of_an_error_answer_decodes_whatever_is_wrong_with_it() -> None:
    text = b'{"errorText": "bad"}' + b" " * 100_000
    packed = gzip.compress(text)
    assert prefix(packed, "gzip", 64) == text[:64]
    assert prefix(packed[:30], "gzip", 64) == text[: len(prefix(packed[:30], "gzip", 64))]
    assert prefix(_bomb(), "gzip", 65536) == bytes(65536)
    assert prefix(_stacked_bomb(), "gzip, gzip, gzip", 65536) == b""
    assert prefix(b"plain", "", 3) == b"pla"


def test_a_small_body_is_settled_decoded_and_a_large_one_left_for_the_pool() -> None:
    small = RawBody(gzip.compress(b"x" * 1000), GZIP)
    assert small.settled(POOL_BYTES) == RawBody(b"x" * 1000, IDENTITY)
    large = RawBody(gzip.compress(bytes(POOL_BYTES * 2)), GZIP)
    assert large.settled(POOL_BYTES) is large  # its claim sends it on, nothing inflated


def test_a_trailer_that_lies_costs_the_loop_its_budget_then_the_body_counts_as_large() -> None:
    lying = RawBody(_bomb()[:-4] + (1024).to_bytes(4, "little"), GZIP)
    assert lying.size == 1024
    settled = lying.settled(POOL_BYTES)
    assert settled.encoding == GZIP and settled.size >= POOL_BYTES
    assert Placement(None).for_bodies([settled]) == settled.size  # a pool job
    with pytest.raises(BodyError, match="larger than"):
        settled.decoded()  # where it is decoded, the limit holds as before


async def test_a_long_body_the_loop_needs_is_inflated_past_the_threshold_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[object] = []
    real = asyncio.to_thread

    async def to_thread(func, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        threads.append(func)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    placement = Placement(None, inline_only=False)
    body = bytes(range(256)) * 8192  # 2 MiB
    assert await placement.decoded(RawBody(gzip.compress(body), GZIP, 4 * MIB)) == body
    assert len(threads) == 1
    small = b"y" * 1000
    assert await placement.decoded(RawBody(zlib.compress(small, wbits=31), GZIP)) == small
    assert len(threads) == 1, "a short body is inflated on the loop"
    with pytest.raises(BodyError, match="stacked"):
        await placement.decoded(RawBody(_stacked_bomb(), "gzip, gzip, gzip"))
