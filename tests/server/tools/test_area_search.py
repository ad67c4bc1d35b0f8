"""`tomtom-area-search` (Geometry Search) and `tomtom-poi-categories`."""

from __future__ import annotations

import pytest

from tests.fixtures.tomtom import documented
from tests.server.harness import (
    AMSTERDAM,
    assert_map_data_shape,
    assert_model_text,
    features_of,
    line_of,
    tool_client,
)
from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.jobs import search_results

DAM_SQUARE = [[4.885, 52.37], [4.90, 52.37], [4.90, 52.378], [4.885, 52.378]]


async def test_area_search_finds_places_inside_a_circle_and_draws_it_under_them() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-area-search",
            {"query": "pharmacy", "polygons": [{"center": AMSTERDAM, "radius": 1500}]},
        )
    answer = assert_model_text(outcome, "tomtom-area-search")
    assert answer["count"] >= 1 and answer["areas"] == 1
    for result in answer["results"]:
        assert haversine_m(*result["position"], *AMSTERDAM) <= 1500 * 1.01
    envelope = outcome.envelope
    assert_map_data_shape(envelope["data"])
    kinds = [f["properties"]["kind"] for f in envelope["data"]["features"]]
    assert kinds[0] == "area" and kinds.count("result") == answer["count"]  # area drawn first


async def test_area_search_keeps_to_a_polygon_and_accepts_tomtom_mcp_area_forms() -> None:
    box = {"topLeft": {"lat": 52.378, "lon": 4.885}, "bottomRight": {"lat": 52.37, "lon": 4.90}}
    async with tool_client() as tools:
        polygon = await tools.call(
            "tomtom-area-search",
            {"query": "cafe", "polygon": [{"lat": lat, "lon": lon} for lon, lat in DAM_SQUARE]},
        )
        boxed = await tools.call("tomtom-area-search", {"query": "cafe", "boundingBox": box})
        circled = await tools.call(
            "tomtom-area-search",
            {"query": "cafe", "center": {"lat": 52.374, "lon": 4.8897}, "radius": 800},
        )
    for outcome in (polygon, boxed):
        answer = assert_model_text(outcome, "tomtom-area-search")
        assert answer["count"] >= 1
        for result in answer["results"]:
            lon, lat = result["position"]
            assert 4.885 <= lon <= 4.90 and 52.37 <= lat <= 52.378
        (ring,) = line_of(features_of(outcome.envelope, "area")[0])
        assert [4.885, 52.37] in [[round(x, 5), round(y, 5)] for x, y in ring]
    assert assert_model_text(circled, "tomtom-area-search")["count"] >= 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "Give the area to search"),
        ({"center": AMSTERDAM}, "needs both center"),
        ({"polygons": [{"center": AMSTERDAM}]}, "a circle needs both center and radius"),
        ({"polygon": [[4.9, 52.3], [4.8, 52.3]]}, "polygon"),
        (
            {"boundingBox": {"topLeft": {"lat": 52.3, "lon": 4.9},
                             "bottomRight": {"lat": 52.4, "lon": 4.8}}},
            "topLeft must be north-west",
        ),
        ({"polygon": [[4.88, 52.37], [4.9, 52.37], [4.9, 95.0]]}, "latitude 95.0 is outside"),
    ],
)  # fmt: skip
async def test_an_unusable_area_is_refused_before_any_request(
    arguments: dict, message: str
) -> None:
    async with tool_client(key="offline-500") as tools:
        outcome = await tools.call("tomtom-area-search", {"query": "cafe", **arguments})
    assert outcome.is_error
    assert message in outcome.text and "HTTP 500" not in outcome.text


def test_geometry_search_results_shaped_as_tomtom_documents_them_are_read() -> None:
    items, features = search_results(documented("geometry_search")["results"])
    assert items[0]["name"] == "Saemes 14ème Arrondissement Rue Saillard"
    assert items[0]["position"] == [2.32707, 48.83353]
    assert features[0]["properties"]["category"] == "electric vehicle station"
    assert items[1]["category"] == "italian"
    assert items[2]["name"] == "London" and items[2]["category"] == "Geography"


async def test_poi_categories_are_filtered_by_a_word_in_names_or_synonyms() -> None:
    async with tool_client() as tools:
        charging = await tools.call("tomtom-poi-categories", {"filter": "Charging"})
        everything = await tools.call("tomtom-poi-categories", {"limit": 5})
        nothing = await tools.call("tomtom-poi-categories", {"filter": "zeppelin port"})
    answer = assert_model_text(charging, "tomtom-poi-categories", show_ui=False)
    assert [c["id"] for c in answer["categories"]] == [7309]
    assert "com.tomtom/app-data" not in charging.meta
    listed = assert_model_text(everything, "tomtom-poi-categories", show_ui=False)
    assert len(listed["categories"]) == 5 and listed["count"] > 5 and "more" in listed
    assert (
        "No category" in assert_model_text(nothing, "tomtom-poi-categories", show_ui=False)["note"]
    )
