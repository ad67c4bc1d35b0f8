"""Data-viz pages of features: planned under their room, each made from the caller's bytes
alone and read no further than its end, the features coming back exactly as given."""

from __future__ import annotations

import base64
import gzip
import itertools
from typing import Any

import numpy as np
import orjson
import pytest

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.errors import JobError
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, PAGE_KEY, PAGES_KEY, wire_size


def as_sent(value: Any) -> Any:
    """`value` with every number as its float64's bits: what a view draws, -0.0 apart."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return ("number", int(np.float64(value).view(np.int64)))
    if isinstance(value, dict):
        return {k: as_sent(v) for k, v in value.items()}
    return [as_sent(v) for v in value]


def lines(count: int, vertices: int = 60, seed: int = 3) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    features = []
    for i in range(count):
        start = rng.uniform([-9, 37], [24, 58])
        steps = np.round(start + rng.normal(0, 0.001, (vertices, 2)).cumsum(axis=0), 6)
        features.append(
            {
                "type": "Feature",
                "properties": {"id": i, "name": f"line {i}", "ok": i % 3 == 0},
                "geometry": {"type": "LineString", "coordinates": steps.tolist()},
            }
        )
    return {"type": "FeatureCollection", "features": features}


def pages(raw: bytes, page_chars: int) -> tuple[dict[str, Any], list[Any]]:
    """The page plan of `raw`, and every page's features, decoded."""
    plan = jobs.data_viz_plan("data_url", raw, None, None, page_chars).meta[PAGES_KEY]
    features: list[Any] = []
    for start, stop in itertools.pairwise(plan["bounds"]):
        page = jobs.data_viz_features("data_url", raw, start, stop, plan["digest"], page_chars)
        assert wire_size(page.result()) <= page_chars or stop - start == 1
        assert page.meta[PAGE_KEY] == {"from": start, "to": stop, "digest": plan["digest"]}
        envelope = fitting.decode(page.meta[APP_DATA_KEY])
        assert envelope["v"] == 3 and envelope["data"]["from"] == start
        features += envelope["data"]["features"]
    return plan, features


def test_pages_of_lines_fill_their_room_and_give_back_every_feature_bit_for_bit() -> None:
    data = lines(400)
    raw = orjson.dumps(data)
    plan, features = pages(raw, 40_000)
    assert plan["features"] == 400 and plan["bounds"][0] == 0 and plan["bounds"][-1] == 400
    assert len(plan["bounds"]) > 4
    assert as_sent(features) == as_sent(data["features"])
    sizes = [
        wire_size(jobs.data_viz_features("data_url", raw, a, b, plan["digest"], 40_000).result())
        for a, b in itertools.pairwise(plan["bounds"][:-1])
    ]
    assert min(sizes) > 0.85 * 40_000, sizes  # every page but the last is nearly full


def test_coordinates_travel_as_decimals_where_they_can_and_as_given_elsewhere() -> None:
    data = lines(40, vertices=10)
    awkward = data["features"][:5]
    awkward[0]["geometry"]["coordinates"][3] = [-0.0, 52.1]  # a negative zero: JSON stays
    awkward[1]["geometry"] = {
        "type": "GeometryCollection",
        "geometries": [{"type": "Point", "coordinates": [4.9, 52.3]}],
    }
    awkward[2]["properties"]["coordinates"] = [1.5, [2, 3]]
    awkward[3]["geometry"]["coordinates"][0] = [4.8976543210987654, 52.379189123456789]
    awkward[4]["geometry"] = {"type": "Point", "coordinates": [4.9, 52.37, 2.5]}
    raw = orjson.dumps(data)
    _, features = pages(raw, 20_000)
    assert as_sent(features) == as_sent(data["features"])
    page = jobs.data_viz_features("data_url", raw, 0, 40, jobs._pages.digest(raw), 10**7)
    geometries = [f["geometry"] for f in head_of(page.meta[APP_DATA_KEY])["data"]["features"]]
    assert [("dv" in g, "coordinates" in g) for g in geometries[:5]] == [
        (False, True),  # the negative zero
        (False, False),  # the collection: its member's text is in "geometries"
        (True, False),
        (False, True),  # 17 significant digits
        (True, False),
    ]
    assert all("dv" in g for g in geometries[5:])
    assert geometries[4]["dv"] == [2, 3] and geometries[5]["dv"] == [6, 2]


def head_of(app_data: str) -> dict[str, Any]:
    """A page's JSON as sent, its section unread."""
    raw = gzip.decompress(base64.b64decode(app_data))
    return orjson.loads(raw.partition(b"\0")[0])


@pytest.mark.parametrize(
    "root",
    [
        lines(1)["features"][0],
        lines(1)["features"][0]["geometry"],
        {"type": "GeometryCollection", "geometries": [lines(1)["features"][0]["geometry"]]},
    ],
)
def test_a_root_that_is_one_feature_is_one_page(root: dict[str, Any]) -> None:
    raw = orjson.dumps(root)
    plan, features = pages(raw, 10_000)
    assert plan["bounds"] == [0, 1]
    drawn = (
        root
        if root["type"] == "Feature"
        else {"type": "Feature", "properties": {}, "geometry": root}
    )
    assert as_sent(features) == as_sent([drawn])


def test_data_the_array_reader_declines_is_paged_the_ordinary_way() -> None:
    data = lines(60)
    data["features"][0]["properties"]["name"] = "a NUL \u0000 in a name"
    raw = orjson.dumps(data)
    _, features = pages(raw, 20_000)
    assert as_sent(features) == as_sent(data["features"])


def test_a_page_reads_the_data_no_further_than_its_last_feature() -> None:
    data = lines(200)
    data["features"][150]["geometry"]["coordinates"][2] = [500, 0]
    raw = orjson.dumps(data)
    digest = jobs._pages.digest(raw)
    page = jobs.data_viz_features("data_url", raw, 0, 100, digest, 10**7)
    assert len(fitting.decode(page.meta[APP_DATA_KEY])["data"]["features"]) == 100
    with pytest.raises(JobError) as caught:
        jobs.data_viz_features("data_url", raw, 100, 200, digest, 10**7)
    whole = "features[150].geometry.coordinates[2]: longitude 500 is outside [-180, 180]"
    assert str(caught.value) == f"The GeoJSON is malformed at {whole}"


def test_a_page_of_data_that_changed_since_its_plan_is_refused_with_what_to_do() -> None:
    raw = orjson.dumps(lines(20))
    with pytest.raises(JobError, match="changed since the map's pages were planned"):
        jobs.data_viz_features("data_url", raw, 0, 5, "00000000-12", 10**6)


@pytest.mark.parametrize(("start", "stop"), [(5, 5), (7, 3), (10, 30)])
def test_a_page_outside_the_data_is_refused(start: int, stop: int) -> None:
    raw = orjson.dumps(lines(20))
    with pytest.raises(JobError, match="feature"):
        jobs.data_viz_features("data_url", raw, start, stop, jobs._pages.digest(raw), 10**6)


def test_data_too_large_for_the_result_is_planned_there_as_the_plan_alone_plans_it() -> None:
    raw = orjson.dumps(lines(300))
    first = jobs.data_viz("data_url", raw, [{"type": "line"}], "Roads", True, 10_000, 30_000)
    assert first.outcome == "paged" and first.meta["com.tomtom/app-data-omitted"].startswith(
        "too_large: 300 features in "
    )
    again = jobs.data_viz_plan("data_url", raw, [{"type": "line"}], "Roads", 30_000)
    assert again.meta[PAGES_KEY] == first.meta[PAGES_KEY]
    assert first.meta[PAGES_KEY]["layers"] == [{"type": "line"}]
    assert first.meta[PAGES_KEY]["title"] == "Roads"
    assert first.text["map"].startswith(f"sent to the view in {again.text['pages']} pages")
