"""A caller's GeoJSON read with its coordinates as arrays: the rest parsed as orjson parses it,
each coordinates array a stand-in; a run of features read no further than its end; None
for what the ordinary reader must read."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from tomtom_mcp_apps.server.bodies import read_features, read_geojson, segment

POINTS = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "properties": {"name": f"p{i}", "coordinates": [i, i]},
            "geometry": {"type": "Point", "coordinates": [i / 8, -i / 4]},
        }
        for i in range(20)
    ],
}


def restored(value: object, raw: bytes, doc: object) -> object:
    """`value` with every stand-in replaced by its array, parsed by orjson from `raw`."""
    found = segment(value)
    if found is not None:
        return orjson.loads(raw[doc.scan.segment_starts[found] : doc.scan.segment_ends[found]])
    if isinstance(value, dict):
        return {k: restored(v, raw, doc) for k, v in value.items()}
    if isinstance(value, list):
        return [restored(v, raw, doc) for v in value]
    return value


@pytest.mark.parametrize("indent", [0, orjson.OPT_INDENT_2])
def test_a_document_reads_as_orjson_reads_it_with_its_coordinates_as_arrays(indent: int) -> None:
    raw = orjson.dumps(POINTS, option=indent)
    doc = read_geojson(raw)
    assert doc is not None
    first = doc.document["features"][3]
    assert segment(first["geometry"]["coordinates"]) is not None
    assert segment(first["properties"]["coordinates"]) is not None  # a property is one too
    assert restored(doc.document, raw, doc) == POINTS
    xs = doc.values[doc.scan.node_first[doc.scan.node_numbers == 2]]
    assert xs.tolist()[:4] == [0.0, 0.0, 1.0, 0.125]  # in document order


def test_a_run_of_features_is_read_without_the_bytes_after_it() -> None:
    raw = orjson.dumps(POINTS)
    cut = raw.index(b'{"type":"Feature","properties":{"name":"p9"')
    doc = read_features(raw[:cut] + b"-- never read --", 5, 9)
    assert doc is not None
    assert restored(doc.document, raw, doc) == POINTS["features"][5:9]


def test_a_run_past_the_last_feature_or_of_a_root_that_is_no_collection_is_none() -> None:
    raw = orjson.dumps(POINTS)
    assert read_features(raw, 18, 21) is None
    assert read_features(orjson.dumps(POINTS["features"][0]), 0, 1) is None
    fake = {**POINTS["features"][0], "features": POINTS["features"][:2]}  # a foreign member
    assert read_features(orjson.dumps(fake), 0, 1) is None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"Point","coordinates":[1,2],"name":"\\u0000 looks like a stand-in"}',
        b'{"type":"Point","coordinates":[1,true]}',
        b'{"type":"Point","coordinates":[1,2]',
        b'{"type":"Point","coordinates":[1,2]} trailing',
        b'{"type":"Point","coordinates":[1,1e400]}',
    ],
)
def test_what_the_ordinary_reader_must_read_is_none(raw: bytes) -> None:
    assert read_geojson(raw) is None


def test_numbers_come_out_as_the_doubles_orjson_gives() -> None:
    texts = ["4.9", "-0.0", "1e-7", "52.37918912345678912", "-0", "12E3"]
    raw = (
        b'{"type":"MultiPoint","coordinates":[['
        + b"],[".join(f"{t},0".encode() for t in texts)
        + b"]]}"
    )
    doc = read_geojson(raw)
    assert doc is not None
    expected = np.array([float(v[0]) for v in orjson.loads(raw)["coordinates"]])
    assert doc.values[::2].view(np.int64).tolist() == expected.view(np.int64).tolist()
