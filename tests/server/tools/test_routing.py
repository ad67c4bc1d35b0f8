"""Routing, search along a route, reachable range and dynamic map: figures for the model,
whole lines with TomTom's indices for the map, inside the budget."""

from __future__ import annotations

import pytest

from tests.server.harness import (
    AMSTERDAM,
    BERLIN,
    BUDGET,
    LISBON,
    MADRID,
    UTRECHT,
    WARSAW,
    assert_indices_hit_their_vertices,
    assert_model_text,
    features_of,
    line_of,
    tool_client,
    wire_size,
)
from tomtom_mcp_apps import fitting


async def test_a_route_answers_with_figures_sections_and_guidance_but_no_line() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-routing", {"locations": [AMSTERDAM, BERLIN]})
    answer = assert_model_text(outcome, "tomtom-routing")
    (route,) = answer["routes"]
    assert route["length_km"] > 500 and route["travel_time_s"] > 0
    assert "TRAFFIC" in route["sections"] and "COUNTRY" in route["sections"]
    assert route["sections"]["COUNTRY"]["countries"][0] == "NLD"
    assert route["instructions"][0]
    envelope = outcome.envelope
    assert envelope["tool"] == "tomtom-routing" and envelope["fitted"] is None
    (feature,) = features_of(envelope, "route")
    assert "e5" in feature["geometry"]
    assert feature["properties"]["summary"]["lengthInMeters"] == pytest.approx(
        route["length_km"] * 1000, abs=10
    )
    assert_indices_hit_their_vertices(feature)
    waypoints = features_of(envelope, "waypoint")
    assert [w["properties"]["label"] for w in waypoints] == ["Start", "End"]


async def test_legs_of_a_route_with_a_stop_are_contiguous_in_the_concatenated_line() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT, BERLIN]})
    answer = assert_model_text(outcome, "tomtom-routing")
    assert len(answer["routes"][0]["legs"]) == 2
    (feature,) = features_of(outcome.envelope, "route")
    line = line_of(feature)
    first, second = feature["properties"]["legs"]
    assert first["startPointIndex"] == 0
    # The stop ends one leg and starts the next (once or twice in the line, as sent).
    assert second["startPointIndex"] - first["endPointIndex"] in (0, 1)
    assert line[first["endPointIndex"]] == pytest.approx(UTRECHT, abs=1e-5)
    assert line[second["startPointIndex"]] == pytest.approx(UTRECHT, abs=1e-5)
    assert second["endPointIndex"] == len(line) - 1
    assert [w["properties"]["label"] for w in features_of(outcome.envelope, "waypoint")] == [
        "Start",
        "Stop 1",
        "End",
    ]


async def test_section_types_accept_tomtom_mcp_spellings_and_only_those_come_back() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, BERLIN], "sectionType": ["toll", "TUNNEL"]}
        )
    assert_model_text(outcome, "tomtom-routing")
    (feature,) = features_of(outcome.envelope, "route")
    kinds = {s["sectionType"] for s in feature["properties"]["sections"]}
    assert kinds <= {"TOLL_ROAD", "TUNNEL", "TRAVEL_MODE"}
    assert "TUNNEL" in kinds


async def test_alternatives_each_become_a_route_feature() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "maxAlternatives": 2}
        )
    answer = assert_model_text(outcome, "tomtom-routing")
    routes = features_of(outcome.envelope, "route")
    assert len(routes) == len(answer["routes"]) >= 2
    assert [r["properties"]["route_index"] for r in routes] == list(range(len(routes)))


async def test_a_3300_km_route_is_fitted_under_the_budget_with_indices_renumbered() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-routing", {"locations": [LISBON, WARSAW]})
    assert_model_text(outcome, "tomtom-routing")
    assert wire_size(outcome.result) <= BUDGET
    envelope = outcome.envelope
    fitted = envelope["fitted"]
    assert fitted is not None and fitted["original_points"] > 30_000
    assert fitted["points"] < fitted["original_points"]
    (feature,) = features_of(envelope, "route")
    assert len(line_of(feature)) == fitted["points"]
    assert_indices_hit_their_vertices(feature)


async def test_search_along_route_sends_the_route_its_stops_and_the_places() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-search-along-route",
            {"locations": [AMSTERDAM, BERLIN], "query": "petrol station", "maxDetourTime": 900},
        )
    answer = assert_model_text(outcome, "tomtom-search-along-route")
    assert answer["route"]["length_km"] > 500
    assert answer["count"] >= 1 and answer["results"][0]["name"]
    envelope = outcome.envelope
    assert len(features_of(envelope, "route")) == 1
    assert len(features_of(envelope, "waypoint")) == 2
    assert len(features_of(envelope, "result")) == answer["count"]


async def test_reachable_range_is_a_closed_polygon_around_its_origin() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-reachable-range", {"origin": AMSTERDAM, "timeBudgetInSec": 1800}
        )
    answer = assert_model_text(outcome, "tomtom-reachable-range")
    assert answer["area_km2"] > 0 and answer["timeBudgetInSec"] == 1800
    west, south, east, north = answer["extent"]
    assert west < AMSTERDAM[0] < east and south < AMSTERDAM[1] < north
    (area,) = features_of(outcome.envelope, "range")
    ring = fitting.to_geojson(area["geometry"])["coordinates"][0]
    assert len(ring) >= 4 and ring[0] == ring[-1]
    assert len(features_of(outcome.envelope, "origin")) == 1


async def test_a_dynamic_map_composes_markers_routes_and_areas() -> None:
    arguments = {
        "title": "Trip",
        "markers": [{"position": AMSTERDAM, "label": "Home", "color": "#e33"}],
        "routes": [{"locations": [AMSTERDAM, UTRECHT], "label": "Commute", "color": "blue"}],
        "polygons": [
            {"center": UTRECHT, "radius": 2000, "label": "Centre"},
            {"coordinates": [[4.8, 52.3], [4.9, 52.3], [4.9, 52.4]], "label": "Triangle"},
        ],
    }
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-dynamic-map", arguments)
    answer = assert_model_text(outcome, "tomtom-dynamic-map")
    assert answer["markers"] == 1 and answer["areas"] == 2
    assert answer["routes"][0]["label"] == "Commute" and answer["routes"][0]["length_km"] > 20
    data = outcome.envelope["data"]
    assert data["title"] == "Trip"
    (route,) = features_of(outcome.envelope, "route")
    assert route["properties"]["color"] == "blue"
    circle, triangle = features_of(outcome.envelope, "area")
    circle_ring = fitting.to_geojson(circle["geometry"])["coordinates"][0]
    assert circle_ring[0] == circle_ring[-1] and len(circle_ring) == 65
    triangle_ring = fitting.to_geojson(triangle["geometry"])["coordinates"][0]
    assert len(triangle_ring) == 4 and triangle_ring[0] == triangle_ring[-1]
    (marker,) = features_of(outcome.envelope, "marker")
    assert marker["properties"] == {"kind": "marker", "label": "Home", "color": "#e33"}


async def test_a_dynamic_map_of_several_long_routes_stays_under_the_budget() -> None:
    routes = [
        {"locations": [AMSTERDAM, MADRID]},
        {"locations": [LISBON, WARSAW]},
        {"locations": [MADRID, BERLIN]},
    ]
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-dynamic-map", {"routes": routes})
    answer = assert_model_text(outcome, "tomtom-dynamic-map")
    assert len(answer["routes"]) == 3
    assert wire_size(outcome.result) <= BUDGET
    envelope = outcome.envelope
    assert envelope["fitted"] is not None
    for route in features_of(envelope, "route"):
        assert_indices_hit_their_vertices(route)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "tomtom-routing",
            {"locations": [AMSTERDAM]},
            "locations: give at least 2 positions, got 1",
        ),
        ("tomtom-routing", {"locations": [[52.37, 4.89], [200, 52]]}, "longitude 200.0"),
        (
            "tomtom-routing",
            {"locations": [AMSTERDAM, BERLIN], "travelMode": "rocket"},
            "travelMode",
        ),
        (
            "tomtom-routing",
            {"locations": [AMSTERDAM, BERLIN], "sectionType": ["views"]},
            "sectionType",
        ),
        (
            "tomtom-routing",
            {"locations": [AMSTERDAM, BERLIN], "departAt": "tomorrow"},
            "not an ISO 8601 date-time",
        ),
        (
            "tomtom-routing",
            {
                "locations": [AMSTERDAM, BERLIN],
                "departAt": "now",
                "arriveAt": "2026-06-01T10:00:00",
            },
            "departAt or arriveAt, not both",
        ),
        ("tomtom-reachable-range", {"origin": AMSTERDAM}, "exactly one of timeBudgetInSec"),
        (
            "tomtom-reachable-range",
            {"origin": AMSTERDAM, "timeBudgetInSec": 600, "distanceBudgetInMeters": 5000},
            "exactly one of timeBudgetInSec",
        ),
        ("tomtom-dynamic-map", {}, "at least one of markers, routes or polygons"),
        (
            "tomtom-dynamic-map",
            {"polygons": [{"center": AMSTERDAM}]},
            "needs both center and radius",
        ),
        (
            "tomtom-dynamic-map",
            {"routes": [{"locations": [AMSTERDAM, [0, 91]]}]},
            "routes.0.locations.1",
        ),
        (
            "tomtom-search-along-route",
            {"locations": [AMSTERDAM, BERLIN], "query": "x", "maxDetourTime": 7200},
            "maxDetourTime",
        ),
    ],
)
async def test_bad_route_inputs_get_an_error_naming_what_to_fix(
    tool: str, arguments: dict, message: str
) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(tool, arguments)
    assert outcome.is_error
    assert message in outcome.text


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("offline-403", "refused the API key (HTTP 403)"),
        ("offline-429", "retry in 1 s"),
        ("offline-500", "TomTom is unavailable (HTTP 500)"),
    ],
)
async def test_upstream_failures_become_tool_errors_and_the_next_call_still_works(
    key: str, message: str
) -> None:
    async with tool_client(key=key) as failing:
        outcome = await failing.call("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    assert outcome.is_error and message in outcome.text and key not in outcome.text
    async with tool_client() as working:
        again = await working.call("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    assert not again.is_error


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("tomtom-routing", {"locations": [AMSTERDAM, BERLIN]}),
        ("tomtom-dynamic-map", {"routes": [{"locations": [AMSTERDAM, BERLIN]}]}),
    ],
)
async def test_without_a_widget_routes_still_answer_with_their_figures(
    tool: str, arguments: dict
) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(tool, {**arguments, "show_ui": False})
    answer = assert_model_text(outcome, tool, show_ui=False)
    assert "com.tomtom/app-data" not in outcome.meta
    assert answer["routes"][0]["length_km"] > 500
