"""Search tools: names and positions for the model, `result` points for the map."""

from __future__ import annotations

import pytest

from tests.server.harness import (
    AMSTERDAM,
    assert_model_text,
    features_of,
    tool_client,
)


async def test_geocode_answers_with_positions_the_model_can_route_to() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-geocode", {"query": "Damrak 1, Amsterdam", "limit": 3})
    answer = assert_model_text(outcome, "tomtom-geocode")
    assert answer["query"] == "Damrak 1, Amsterdam"
    assert 1 <= answer["count"] == len(answer["results"]) <= 3
    first = answer["results"][0]
    assert first["address"] and len(first["position"]) == 2
    envelope = outcome.envelope
    assert envelope["v"] == 2 and envelope["tool"] == "tomtom-geocode"
    assert envelope["fitted"] is None
    results = features_of(envelope, "result")
    assert len(results) == answer["count"]
    assert results[0]["geometry"]["type"] == "Point"  # points travel rounded to 1e-5 degrees
    assert results[0]["geometry"]["coordinates"] == pytest.approx(first["position"], abs=1e-5)
    assert {"name", "address", "category"} <= set(results[0]["properties"])
    west, south, east, north = envelope["data"]["bbox"]
    assert west <= first["position"][0] <= east and south <= first["position"][1] <= north


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("tomtom-fuzzy-search", {"query": "pizza", "position": AMSTERDAM, "radius": 3000}),
        ("tomtom-poi-search", {"query": "cafe", "position": AMSTERDAM, "categorySet": "9376"}),
        ("tomtom-nearby", {"position": AMSTERDAM, "radius": 1500, "limit": 5}),
    ],
)
async def test_place_searches_send_every_result_to_the_map(tool: str, arguments: dict) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(tool, arguments)
    answer = assert_model_text(outcome, tool)
    assert answer["count"] >= 1
    assert all(r["name"] and r["position"] for r in answer["results"])
    envelope = outcome.envelope
    assert envelope["tool"] == tool
    assert len(features_of(envelope, "result")) == answer["count"]


async def test_nearby_marks_the_search_centre_on_the_map() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-nearby", {"position": AMSTERDAM})
    (origin,) = features_of(outcome.envelope, "origin")
    assert origin["geometry"]["coordinates"] == pytest.approx(AMSTERDAM, abs=1e-5)


async def test_reverse_geocode_names_the_address_at_a_position() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-reverse-geocode", {"position": AMSTERDAM})
    answer = assert_model_text(outcome, "tomtom-reverse-geocode")
    assert answer["position"] == AMSTERDAM
    assert answer["results"][0]["address"]
    assert len(features_of(outcome.envelope, "result")) == answer["count"]


async def test_show_ui_false_sends_no_app_data_but_the_same_answer() -> None:
    async with tool_client() as tools:
        shown = await tools.call("tomtom-geocode", {"query": "Amsterdam"})
        hidden = await tools.call("tomtom-geocode", {"query": "Amsterdam", "show_ui": False})
    answer = assert_model_text(hidden, "tomtom-geocode", show_ui=False)
    assert "com.tomtom/app-data" not in hidden.meta
    assert hidden.meta["show_ui"] is False
    assert answer["results"] == shown.answer["results"]


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("tomtom-geocode", {"query": ""}, "at least 1 character"),
        ("tomtom-geocode", {"query": "x", "limit": 500}, "less than or equal to 100"),
        ("tomtom-geocode", {"query": "x", "countrySet": "Netherlands!"}, "countrySet"),
        ("tomtom-nearby", {"position": [52.37, 95.0]}, "latitude 95.0 is outside [-90, 90]"),
        ("tomtom-reverse-geocode", {"position": [181, 0]}, "longitude 181.0 is outside"),
        ("tomtom-poi-search", {"query": "x", "categorySet": "cafes"}, "categorySet"),
    ],
)
async def test_bad_search_inputs_get_an_error_naming_the_argument(
    tool: str, arguments: dict, message: str
) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(tool, arguments)
    assert outcome.is_error
    assert message in outcome.text


async def test_a_refused_key_reaches_the_model_as_an_actionable_error() -> None:
    async with tool_client(key="offline-403") as tools:
        outcome = await tools.call("tomtom-geocode", {"query": "Amsterdam"})
        retry = await tools.call("tomtom-fuzzy-search", {"query": "Amsterdam"})
    assert outcome.is_error and retry.is_error
    assert "refused the API key (HTTP 403)" in outcome.text
    assert "offline-403" not in outcome.text


async def test_a_place_the_offline_data_does_not_know_is_no_result_and_the_text_says_why() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-geocode", {"query": "Utrechtse Heuvelrug 7"})
    answer = assert_model_text(outcome, "tomtom-geocode")
    assert answer["count"] == 0 and answer["results"] == []
    assert "'Utrechtse Heuvelrug 7' is not in the offline demo data" in answer["note"]
    assert features_of(outcome.envelope, "result") == [], "no made-up pin on the map"


async def test_only_the_offline_upstreams_answers_may_explain_an_empty_result() -> None:
    async with tool_client(key="a-key") as tools:  # the offline app stands in for TomTom
        outcome = await tools.call("tomtom-geocode", {"query": "Utrechtse Heuvelrug 7"})
    answer = assert_model_text(outcome, "tomtom-geocode")
    assert answer["note"].startswith("No results.")
