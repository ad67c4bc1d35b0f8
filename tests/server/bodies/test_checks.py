"""Checks at the speed of the bytes: `plain_json` only ever spares a copy `plain` would make
equal, and the one-pass `indexed_entries` keeps, drops and counts exactly what the
two-pass reading it replaced did (written out below as the reference)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.fixtures.tomtom import documented
from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import (
    Dropped,
    entries,
    indexed_entries,
    integer,
    parsed,
    plain,
    plain_json,
    split_route_body,
)
from tomtom_mcp_apps.server.bodies._raw import RawBody
from tomtom_mcp_apps.server.offline._query import Query
from tomtom_mcp_apps.server.offline._routing import calculate_route, parse_request

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from('ab1e0[]{}"\\ ,:-E.'), max_size=8),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=40,
)


def nested(levels: int) -> Any:
    value: Any = [1]
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def values_at(node: Any, level: int, at: int = 1) -> Iterator[Any]:
    """Every container of `node` at least `level` deep (`node` itself is 1)."""
    if not isinstance(node, dict | list):
        return
    if at >= level:
        yield node
    for child in node.values() if isinstance(node, dict) else node:
        yield from values_at(child, level, at + 1)


@settings(max_examples=400, deadline=None)
@given(doc=JSON, level=st.integers(1, 5))
@example(doc={"r": [{"s": nested(8)}]}, level=3)
@example(doc={"r": [{"s": nested(7)}]}, level=3)
@example(doc={"r": {"n": 2**53 + 1}}, level=2)
@example(doc={"r": {"n": 1.5e300}}, level=2)
@example(doc={"r": {"s": '"]]]]]]]]"'}}, level=1)
def test_a_text_judged_plain_holds_only_values_plain_copies_unchanged(doc: Any, level: int) -> None:
    text = json.dumps(doc, separators=(",", ":")).encode()
    value = orjson.loads(text)
    if plain_json(text, level):
        for part in values_at(value, level):
            assert plain(part) == part


@pytest.mark.parametrize(
    ("doc", "plain_as_parsed"),
    [
        ({"a": [{"b": {"c": 1}}]}, True),
        ({"a": nested(10)}, True),  # its deepest list at level 11: members at 4 keep it
        ({"a": nested(11)}, False),  # at level 12, 8 below level 4: plain cuts it
        ({"a": 10**15 - 1}, True),
        ({"a": 2**53 - 1}, False),  # 16 digits: erring, on purpose
        ({"a": 123456789012345678}, False),
        ({"a": 1e-7}, False),
        ({"street": "1e Jan van der Heijdenstraat"}, False),  # erring, on purpose
        ({"message": "Take exit [12]"}, True),  # brackets in a string are text
        ({"message": 'Say "hi"'}, True),
        ({"message": 'Say "[hi\\"' + "[" * 20}, True),  # escapes end no string
        ({"message": "\\", "a": nested(11)}, False),  # nor start one
    ],
)
def test_plain_json_judges_numbers_and_depth_from_the_bytes(
    doc: Any, plain_as_parsed: bool
) -> None:
    assert plain_json(json.dumps(doc).encode(), 4) is plain_as_parsed


def route_text(body: dict[str, Any] | bytes) -> tuple[Any, bytes]:
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    return parsed(RawBody(raw), split_route_body)


def test_tomtoms_documented_route_and_the_offline_one_go_through_uncopied() -> None:
    asked = Query([("instructionsType", "text")], datetime(2026, 12, 1, 12, tzinfo=UTC))
    offline = calculate_route(parse_request("52.37,4.9:50.85,4.35", asked, b""))
    for body in (documented("calculate_route"), offline):
        _, text = route_text(body)
        assert plain_json(text, 4)


def test_a_route_read_as_parsed_is_the_route_read_through_copies() -> None:
    body, text = route_text(documented("calculate_route"))
    dropped_fast, dropped_copied = Dropped(), Dropped()
    fast = jobs.checked_routes(body, text, dropped_fast)
    assert plain_json(text, 4)
    body, _ = route_text(documented("calculate_route"))
    copied = [jobs.checked_route(r, "routes[0]", dropped_copied) for r in body["routes"]]
    assert dropped_fast.counts == dropped_copied.counts
    for one, other in zip(fast, copied, strict=True):
        for leg, same in zip(one.pop("legs"), other.pop("legs"), strict=True):
            np.testing.assert_array_equal(leg["points"], same["points"])
            assert leg["summary"] == same["summary"]
        assert one == other


# --- one pass, the same drops as the two passes before it -----------------------------------


def two_pass(
    value: Any, where: str, keys: tuple[str, ...], count: int, required: bool
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The reading `indexed_entries` replaced (`entries`, then a pass checking indices)."""
    dropped = Dropped()
    kept: list[dict[str, Any]] = []
    left_out = 0
    for item in entries(value, where, dropped):
        present = [k for k in keys if k in item]
        values = [integer(item[k]) for k in present]
        usable = (len(present) == len(keys) or not required) and all(
            v is not None and 0 <= v < count for v in values
        )
        if not usable or (len(values) == 2 and values[0] > values[1]):  # type: ignore[operator]
            left_out += 1
            continue
        kept.append(plain(item))
    dropped.add(where, left_out)
    return kept, dropped.counts


INDEX = st.one_of(
    st.integers(-3, 12),
    st.just(2**53 + 1),
    st.sampled_from([None, True, 2.0, "3", math.nan, np.int64(4), [1], {}]),
)
ENTRY = st.one_of(
    st.dictionaries(
        st.sampled_from(["startPointIndex", "endPointIndex", "pointIndex", "message"]),
        INDEX,
        max_size=4,
    ),
    st.sampled_from([None, 1, "x", [], True]),
)


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(st.lists(ENTRY, max_size=8), st.sampled_from([None, {}, "x", 3])),
    keys=st.sampled_from([("startPointIndex", "endPointIndex"), ("pointIndex",)]),
    required=st.booleans(),
)
def test_one_pass_keeps_drops_and_counts_what_two_passes_did(
    value: Any, keys: tuple[str, ...], required: bool
) -> None:
    dropped = Dropped()
    kept = indexed_entries(value, "routes[0].x", dropped, keys, 10, required=required)
    expected, counts = two_pass(value, "routes[0].x", keys, 10, required)
    assert dropped.counts == counts
    assert kept == expected
