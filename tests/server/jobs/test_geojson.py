"""GeoJSON read with its coordinates as arrays is checked by the same rules: `check_arrays`
agrees with `validate_geojson`, whose messages are the only ones, on valid documents and on
every kind of fault (a property test over generated documents, valid and broken)."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps.server.bodies import read_features, read_geojson
from tomtom_mcp_apps.server.errors import GeoJsonError
from tomtom_mcp_apps.server.jobs._geojson import check_arrays, check_features, validate_geojson

coordinate = st.one_of(
    st.integers(-180, 180),
    st.floats(-180, 180, allow_nan=False).map(lambda v: round(v, 6)),
    st.sampled_from([-0.0, 0.0, 180, -180, 1e-7]),
)
position = st.tuples(coordinate, coordinate.map(lambda v: v / 2)).map(list)
position3 = st.tuples(coordinate, coordinate.map(lambda v: v / 2), st.integers(-50, 5000)).map(list)
positions = st.one_of(st.lists(position, max_size=6), st.lists(position3, max_size=6))


def ring(points: list[list[float]]) -> list[list[float]]:
    return [*points, points[0]] if points else points


rings = st.lists(position, min_size=3, max_size=6).map(ring)
geometries = st.one_of(
    st.builds(lambda c: {"type": "Point", "coordinates": c}, position),
    st.builds(lambda c: {"type": "MultiPoint", "coordinates": c}, positions),
    st.builds(lambda c: {"type": "LineString", "coordinates": c}, positions),
    st.builds(
        lambda c: {"type": "MultiLineString", "coordinates": c}, st.lists(positions, max_size=3)
    ),
    st.builds(lambda c: {"type": "Polygon", "coordinates": c}, st.lists(rings, max_size=3)),
    st.builds(
        lambda c: {"type": "MultiPolygon", "coordinates": c},
        st.lists(st.lists(rings, max_size=2), max_size=2),
    ),
)
geometry_or_collection = st.one_of(
    geometries,
    st.builds(
        lambda g: {"type": "GeometryCollection", "geometries": g}, st.lists(geometries, max_size=2)
    ),
)
properties = st.one_of(
    st.none(),
    st.dictionaries(
        st.sampled_from(["name", "value", "coordinates", "kind"]),
        st.one_of(
            st.integers(-(2**40), 2**40),
            st.text(max_size=5),
            st.lists(st.integers(0, 9), max_size=3),
        ),
        max_size=3,
    ),
)
features = st.builds(
    lambda p, g: {"type": "Feature", "properties": p, "geometry": g},
    properties,
    st.one_of(st.none(), geometry_or_collection),
)
documents = st.one_of(
    st.builds(
        lambda f: {"type": "FeatureCollection", "features": f}, st.lists(features, max_size=8)
    ),
    features,
    geometry_or_collection,
)

BREAKS = [
    ("coordinates", lambda c: [*c, [500, 0]] if isinstance(c, list) else c),
    ("coordinates", lambda c: [[1, 2, 3, 4]]),
    ("coordinates", lambda c: [[1, "2"]]),
    ("coordinates", lambda c: [[1, True]]),
    ("coordinates", lambda c: [[1, None]]),
    ("coordinates", lambda c: [[0, 0], [1, 1, 1]]),
    ("coordinates", lambda c: [c]),
    ("coordinates", lambda c: c[:1] if isinstance(c, list) else c),
    ("coordinates", lambda c: {"not": "an array"}),
    ("type", lambda t: "Circle"),
    ("geometry", lambda g: [g]),
    ("properties", lambda p: ["not", "an object"]),
    ("features", lambda f: {"not": "a list"}),
]


def broken(doc: Any, choice: int, depth: int) -> Any:
    """`doc` with one member changed somewhere (many changes leave it valid)."""
    doc = copy.deepcopy(doc)
    key, change = BREAKS[choice % len(BREAKS)]
    nodes = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if key in node:
                nodes.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    if nodes:
        node = nodes[depth % len(nodes)]
        node[key] = change(node[key])
    return doc


def verdicts(raw: bytes) -> tuple[Any, Any]:
    """(`validate_geojson`'s summary or its error's message, `check_arrays`'s summary or
    None)."""
    try:
        slow: Any = validate_geojson(orjson.loads(raw)).as_answer()
    except GeoJsonError as exc:
        slow = str(exc)
    doc = read_geojson(raw)
    fast = check_arrays(doc) if doc is not None else None
    return slow, fast.summary.as_answer() if fast is not None else None


@settings(max_examples=800, deadline=None)
@given(documents, st.booleans())
@example({"type": "Point", "coordinates": [-0.0, 0.0]}, False)
@example({"type": "FeatureCollection", "features": []}, True)
@example(
    {
        "type": "FeatureCollection",
        "features": [{"type": "Feature", "properties": {"name": "\x00"}, "geometry": None}],
    },
    False,
)
def test_documents_read_as_arrays_get_the_verdict_and_summary_validate_geojson_gives(
    doc: Any, indent: bool
) -> None:
    raw = orjson.dumps(doc, option=orjson.OPT_INDENT_2 if indent else 0)
    slow, fast = verdicts(raw)
    if b"\\u0000" in raw:  # a NUL in a string: read the ordinary way (stand-ins start with one)
        assert fast is None
    elif isinstance(slow, dict):
        assert fast == slow
    else:  # a fault (too few positions, an open ring...): validate_geojson names it
        assert fast is None


@settings(max_examples=1_500, deadline=None)
@given(documents, st.integers(0, 1_000), st.integers(0, 100))
def test_a_broken_document_is_never_found_valid_where_validate_geojson_finds_a_fault(
    doc: Any, choice: int, depth: int
) -> None:
    raw = orjson.dumps(broken(doc, choice, depth))
    slow, fast = verdicts(raw)
    if isinstance(slow, str):
        assert fast is None, f"validate_geojson says {slow!r}"
    elif fast is not None:
        assert fast == slow


@settings(max_examples=300, deadline=None)
@given(st.lists(features, min_size=2, max_size=8), st.integers(0, 1_000), st.integers(0, 100))
def test_a_page_of_features_is_valid_exactly_when_its_features_are(
    items: list, choice: int, depth: int
) -> None:
    doc = broken({"type": "FeatureCollection", "features": items}, choice, depth)
    if not isinstance(doc.get("features"), list):
        return
    raw = orjson.dumps(doc)
    page = read_features(raw, 1, len(doc["features"]))
    if page is None:
        return
    try:
        validate_geojson({"type": "FeatureCollection", "features": doc["features"][1:]})
        valid = True
    except GeoJsonError:
        valid = False
    assert (check_features(page) is not None) is valid
