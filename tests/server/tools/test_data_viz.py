"""Data-viz: caller GeoJSON checked with exact fault paths, never altered, in pages of features
when large; `tomtom-get-app-data` re-runs data-viz only."""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from tests.server.harness import assert_model_text, tool_client, wire_size
from tests.server.tools.data_viz_data import BIG, BIG_BUDGET, BIG_SETTINGS
from tests.server.tools.files_host import files_served
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.errors import GeoJsonError
from tomtom_mcp_apps.server.jobs import (
    APP_DATA_KEY,
    OMITTED_KEY,
    PAGE_KEY,
    PAGES_KEY,
    validate_geojson,
)

PLACES = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "properties": {"name": "A", "visitors": 3},
            "geometry": {"type": "Point", "coordinates": [4.9, 52.37]},
        },
        {
            "type": "Feature",
            "properties": {"name": "B", "kind": "park"},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[4.8, 52.3], [4.9, 52.3], [4.9, 52.4], [4.8, 52.3]]],
            },
        },
        {"type": "Feature", "properties": None, "geometry": None},
    ],
}


FILES = {"/places.geojson": orjson.dumps(PLACES), "/big.geojson": orjson.dumps(BIG)}


@pytest.fixture(scope="module")
def files_url() -> Iterator[str]:
    with files_served(FILES, {"geojson": "application/geo+json"}) as url:
        yield url


# --- GeoJSON checks -------------------------------------------------------------------------


def collection_with(geometry: Any, at: int = 3) -> dict[str, Any]:
    point = {
        "type": "Feature",
        "properties": {},
        "geometry": {"type": "Point", "coordinates": [0, 0]},
    }
    features = [copy.deepcopy(point) for _ in range(at)]
    features.append({"type": "Feature", "properties": {}, "geometry": geometry})
    return {"type": "FeatureCollection", "features": features}


@pytest.mark.parametrize(
    ("geojson", "message"),
    [
        (
            collection_with({"type": "LineString", "coordinates": [[0, 0]] * 12 + [[200, 1]]}),
            "features[3].geometry.coordinates[12]: longitude 200 is outside [-180, 180]",
        ),
        (
            collection_with({"type": "Point", "coordinates": [10, -91]}),
            "features[3].geometry.coordinates: latitude -91 is outside [-90, 90]",
        ),
        (
            collection_with({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}),
            "features[3].geometry.coordinates[0]: a linear ring must end at its first position",
        ),
        (
            collection_with({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}),
            "features[3].geometry.coordinates[0]: needs at least 4 positions, has 3",
        ),
        (
            collection_with({"type": "MultiPoint", "coordinates": [[1, 2], [3, "4"]]}),
            "features[3].geometry.coordinates[1]: a string '4' is not a number",
        ),
        (
            collection_with({"type": "LineString", "coordinates": [[1, 2], [3]]}),
            "features[3].geometry.coordinates[1]: a position has 2 or 3 numbers",
        ),
        (
            collection_with({"type": "Circle", "coordinates": [1, 2]}),
            "features[3].geometry.type: 'Circle' is not a GeoJSON geometry type",
        ),
        (collection_with({"type": "Point"}), "features[3].geometry.coordinates: missing"),
        ({"type": "FeatureCollection", "features": {}}, "features: expected a list, got an object"),
        (
            {"type": "FeatureCollection", "features": [{"type": "Point", "coordinates": [1, 2]}]},
            "features[0].type: expected 'Feature', got 'Point'",
        ),
        (
            {"type": "Feature", "properties": [], "geometry": None},
            "(root).properties: expected an object or null, got a list",
        ),
        ({"type": "Topology"}, "type: 'Topology' is not FeatureCollection, Feature or a geometry"),
        ([1, 2], "(root): expected a GeoJSON object, got a list"),
    ],
)
def test_malformed_geojson_is_reported_at_the_exact_place(geojson: Any, message: str) -> None:
    with pytest.raises(GeoJsonError) as caught:
        validate_geojson(geojson)
    assert str(caught.value).startswith(message)


def test_valid_geojson_is_summarised_and_left_untouched() -> None:
    data = {
        "type": "FeatureCollection",
        "features": [
            *PLACES["features"],
            {
                "type": "Feature",
                "properties": {"name": "C"},
                "geometry": {
                    "type": "GeometryCollection",
                    "geometries": [
                        {
                            "type": "MultiPolygon",
                            "coordinates": [[[[-10, -5], [-9, -5], [-9, -4], [-10, -5]]]],
                        },
                        {
                            "type": "MultiLineString",
                            "coordinates": [[[170, 60, 12.5], [171, 61, 3]]],
                        },
                    ],
                },
            },
        ],
    }
    before = copy.deepcopy(data)
    answer = validate_geojson(data).as_answer()
    assert data == before
    assert answer["features"] == 4
    assert answer["geometry_types"] == {
        "Point": 1,
        "Polygon": 1,
        "GeometryCollection": 1,
        "MultiPolygon": 1,
        "MultiLineString": 1,
    }
    assert answer["bbox"] == [-10, -5, 171, 61]
    assert answer["property_names"] == ["name", "visitors", "kind"]


# --- the tool -------------------------------------------------------------------------------


async def test_inline_geojson_is_sent_exactly_as_given_with_a_summary_for_the_model() -> None:
    layers = [
        {"type": "fill", "paint": {"fill-color": "#3a3"}, "name": "Parks", "opacity": 0.4},
        {"type": "circle", "filter": ["has", "visitors"], "label": "name"},
    ]
    arguments = {"geojson": PLACES, "layers": layers, "title": "Places"}
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-data-viz", arguments)
    answer = assert_model_text(outcome, "tomtom-data-viz")
    assert answer["features"] == 3 and answer["source"] == "inline"
    assert answer["geometry_types"] == {"Point": 1, "Polygon": 1}
    assert answer["property_names"] == ["name", "visitors", "kind"]
    envelope = outcome.envelope
    assert envelope["fitted"] is None
    assert envelope["data"] == {"geojson": PLACES, "layers": layers, "title": "Places"}


async def test_geojson_given_as_text_is_the_same_data() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-data-viz", {"geojson": orjson.dumps(PLACES).decode()})
    data = outcome.envelope["data"]
    assert data["geojson"] == PLACES
    assert [layer["type"] for layer in data["layers"]] == ["circle", "fill"]


async def test_data_url_is_downloaded_when_private_targets_are_allowed(files_url: str) -> None:
    async with tool_client(data_viz_allow_private=True) as tools:
        outcome = await tools.call("tomtom-data-viz", {"data_url": f"{files_url}/places.geojson"})
    answer = assert_model_text(outcome, "tomtom-data-viz")
    assert answer["source"] == "data_url"
    assert outcome.envelope["data"]["geojson"] == PLACES


async def test_a_private_data_url_is_refused_by_default(files_url: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-data-viz", {"data_url": f"{files_url}/places.geojson"})
    assert outcome.is_error
    assert "127.0.0.1 is a loopback address" in outcome.text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "give exactly one of data_url or geojson"),
        (
            {"geojson": PLACES, "data_url": "https://example.com/x.geojson"},
            "give exactly one of data_url or geojson",
        ),
        ({"geojson": "{not json"}, "geojson text is not valid JSON"),
        (
            {"geojson": collection_with({"type": "Point", "coordinates": [500, 0]})},
            "malformed at features[3].geometry.coordinates: longitude 500 is outside",
        ),
        ({"geojson": PLACES, "layers": [{"type": "circle"}] * 11}, "at most 10 items"),
        (
            {"geojson": PLACES, "layers": [{"type": "line", "paint": {"fill-color": "red"}}]},
            "paint property 'fill-color' does not apply to a line layer",
        ),
        ({"geojson": PLACES, "layers": [{"type": "symbol"}]}, "a symbol layer needs label"),
        ({"geojson": PLACES, "layers": [{"type": "extrusion"}]}, "layers.0.type"),
        ({"geojson": PLACES, "layers": [{"type": "circle", "size": 3}]}, "layers.0.size"),
    ],
)
async def test_bad_data_viz_inputs_get_a_specific_error(arguments: dict, message: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-data-viz", arguments)
    assert outcome.is_error
    assert message in outcome.text


async def too_large(tools: Any, arguments: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`tomtom-data-viz` of BIG (too large for its result): (the outcome, the model's text)."""
    outcome = await tools.call("tomtom-data-viz", arguments)
    answer = assert_model_text(outcome, "tomtom-data-viz")
    assert answer["features"] == len(BIG["features"])
    assert APP_DATA_KEY not in outcome.meta and OMITTED_KEY in outcome.meta
    return outcome, answer


async def test_data_too_large_for_one_result_comes_in_pages_of_features_exactly_as_given(
    files_url: str,
) -> None:
    arguments = {"data_url": f"{files_url}/big.geojson", "title": "Many"}
    async with tool_client(**BIG_SETTINGS) as tools:
        outcome, answer = await too_large(tools, arguments)
        plan = outcome.meta[PAGES_KEY]
        assert plan["features"] == len(BIG["features"]) and plan["title"] == "Many"
        bounds = plan["bounds"]
        assert (
            answer["map"]
            == f"sent to the view in {len(bounds) - 1} pages (too large for one result)"
        )
        ranges = list(itertools.pairwise(bounds))
        asked = [
            {
                "tool": "tomtom-data-viz",
                "arguments": arguments,
                "page": {"from": start, "to": stop, "digest": plan["digest"]},
            }
            for start, stop in ranges
        ]
        replies = await asyncio.gather(*(tools.call("tomtom-get-app-data", a) for a in asked))
    features = []
    for (start, stop), page in zip(ranges, replies, strict=True):
        assert not page.is_error, page.text
        assert wire_size(page.result) <= BIG_BUDGET
        assert page.meta[PAGE_KEY] == {"from": start, "to": stop, "digest": plan["digest"]}
        features += fitting.decode(page.meta[APP_DATA_KEY])["data"]["features"]
    assert len(ranges) > 1 and features == BIG["features"]


async def test_get_app_data_asks_for_a_plan_or_a_page_in_plain_words(files_url: str) -> None:
    arguments = {"data_url": f"{files_url}/big.geojson"}
    async with tool_client(**BIG_SETTINGS) as tools:
        neither = await tools.call(
            "tomtom-get-app-data", {"tool": "tomtom-data-viz", "arguments": arguments}
        )
    assert neither.is_error
    assert "plan: true" in neither.text and "page:" in neither.text


async def test_a_view_without_the_plan_gets_it_from_get_app_data(files_url: str) -> None:
    arguments = {"data_url": f"{files_url}/big.geojson"}
    async with tool_client(**BIG_SETTINGS) as tools:
        outcome = await tools.call("tomtom-data-viz", arguments)
        again = await tools.call(
            "tomtom-get-app-data", {"tool": "tomtom-data-viz", "arguments": arguments, "plan": True}
        )
    assert not again.is_error, again.text
    assert again.meta[PAGES_KEY] == outcome.meta[PAGES_KEY]
    assert again.answer == {
        "tool": "tomtom-data-viz",
        "features": len(BIG["features"]),
        "pages": len(outcome.meta[PAGES_KEY]["bounds"]) - 1,
    }


async def test_a_page_of_changed_data_is_a_tool_error_saying_to_run_data_viz_again() -> None:
    arguments = {"geojson": PLACES}
    async with tool_client() as tools:
        page = await tools.call(
            "tomtom-get-app-data",
            {
                "tool": "tomtom-data-viz",
                "arguments": arguments,
                "page": {"from": 0, "to": 2, "digest": "0000abcd-99"},
            },
        )
    assert page.is_error
    assert "the geojson changed since the map's pages were planned" in page.text
    assert "run tomtom-data-viz again" in page.text


async def test_get_app_data_refuses_every_tool_but_data_viz() -> None:
    arguments = {"locations": [[4.9, 52.37], [5.1, 52.09]]}
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-get-app-data", {"tool": "tomtom-routing", "arguments": arguments}
        )
    assert outcome.is_error
    assert "serves only tomtom-data-viz; 'tomtom-routing' is refused" in outcome.text


async def test_get_app_data_validates_its_arguments_as_data_viz_does() -> None:
    bad = {"geojson": collection_with({"type": "LineString", "coordinates": [[0, 0], [0, 95]]})}
    async with tool_client() as tools:
        direct = await tools.call("tomtom-data-viz", bad)
        again = await tools.call(
            "tomtom-get-app-data", {"tool": "tomtom-data-viz", "arguments": bad, "plan": True}
        )
        layered = await tools.call(
            "tomtom-get-app-data",
            {
                "tool": "tomtom-data-viz",
                "arguments": {"geojson": PLACES, "layers": [{"type": "symbol"}]},
                "plan": True,
            },
        )
    expected = "features[3].geometry.coordinates[1]: latitude 95 is outside [-90, 90]"
    assert direct.is_error and expected in direct.text
    assert again.is_error and expected in again.text
    assert layered.is_error and "a symbol layer needs label" in layered.text
