"""Routing's options beyond a plain car: trucks, best order, alternatives, every mode."""

from __future__ import annotations

import pytest

from tests.fixtures.tomtom import documented
from tests.server.harness import (
    AMSTERDAM,
    BERLIN,
    UTRECHT,
    assert_map_data_shape,
    assert_model_text,
    features_of,
    tool_client,
)
from tomtom_mcp_apps.server.errors import BodyError
from tomtom_mcp_apps.server.jobs import visiting_order
from tomtom_mcp_apps.server.jobs._image import ALTERNATIVE

ROTTERDAM = [4.4777, 51.9244]
GRONINGEN = [6.5665, 53.2194]
TRUCK = {
    "travelMode": "truck",
    "vehicleLength": 16.5,
    "vehicleWidth": 2.55,
    "vehicleHeight": 4.0,
    "vehicleWeight": 40_000,
    "vehicleAxleWeight": 10_000,
    "vehicleNumberOfAxles": 5,
    "vehicleCommercial": True,
    "vehicleLoadType": ["USHazmatClass3", "otherHazmatHarmfulToWater"],
    "vehicleAdrTunnelRestrictionCode": "D",
    "vehicleMaxSpeed": 50,
}


async def test_the_best_order_is_given_as_the_given_locations_in_visiting_order() -> None:
    # Given out of order: Berlin, then Utrecht, then Groningen between Amsterdam and Rotterdam.
    locations = [AMSTERDAM, BERLIN, UTRECHT, GRONINGEN, ROTTERDAM]
    async with tool_client() as tools:
        given = await tools.call("tomtom-routing", {"locations": locations})
        best = await tools.call(
            "tomtom-routing", {"locations": locations, "computeBestOrder": True}
        )
    answer = assert_model_text(best, "tomtom-routing")
    order = [int(i) for i in answer["optimized_order"].split(" → ")]
    assert order[0] == 0 and order[-1] == 4 and sorted(order) == [0, 1, 2, 3, 4]
    assert order != [0, 1, 2, 3, 4]
    assert answer["routes"][0]["length_km"] < given.answer["routes"][0]["length_km"]
    waypoints = features_of(best.envelope, "waypoint")
    assert [w["geometry"]["coordinates"] for w in waypoints] == [locations[i] for i in order]
    assert "location" in waypoints[1]["properties"]["label"]


def test_tomtoms_documented_optimized_waypoints_give_the_visiting_order() -> None:
    body = documented("optimized_waypoints")
    assert visiting_order(body, 5) == [0, 3, 1, 2, 4]
    assert visiting_order({}, 5) is None
    twice = [{"providedIndex": 0, "optimizedIndex": 0}, {"providedIndex": 0, "optimizedIndex": 1}]
    with pytest.raises(BodyError, match="exactly once"):
        visiting_order({"optimizedWaypoints": twice}, 4)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"locations": [AMSTERDAM, UTRECHT], "computeBestOrder": True}, "3 or more locations"),
        (
            {"locations": [AMSTERDAM, UTRECHT, BERLIN], "computeBestOrder": True,
             "maxAlternatives": 1},
            "set maxAlternatives to 0",
        ),
        ({"locations": [AMSTERDAM, UTRECHT], "vehicleAdrTunnelRestrictionCode": "C"},
         "vehicleAdrTunnelRestrictionCode applies to trucks only"),
        ({"locations": [AMSTERDAM, UTRECHT], "vehicleHeight": 40}, "vehicleHeight"),
        ({"locations": [AMSTERDAM, UTRECHT], "vehicleLoadType": ["plutonium"]},
         "vehicleLoadType.0"),
    ],
)  # fmt: skip
async def test_route_options_that_cannot_work_are_refused_before_any_request(
    arguments: dict, message: str
) -> None:
    async with tool_client(key="offline-500") as tools:
        outcome = await tools.call("tomtom-routing", arguments)
    assert outcome.is_error
    assert message in outcome.text and "HTTP 500" not in outcome.text


@pytest.mark.parametrize(
    "tool",
    ["tomtom-routing", "tomtom-search-along-route", "tomtom-reachable-range", "tomtom-dynamic-map"],
)
async def test_every_routing_tool_routes_a_hazmat_truck_at_its_top_speed(tool: str) -> None:
    stops = [AMSTERDAM, UTRECHT]
    arguments = {
        "tomtom-routing": {"locations": stops, **TRUCK},
        "tomtom-search-along-route": {"locations": stops, "query": "fuel", **TRUCK},
        "tomtom-reachable-range": {"origin": AMSTERDAM, "timeBudgetInSec": 1800, **TRUCK},
        "tomtom-dynamic-map": {"routes": [{"locations": stops, **TRUCK}]},
    }[tool]
    async with tool_client() as tools:
        truck = await tools.call(tool, arguments)
    assert_model_text(truck, tool)
    if tool == "tomtom-reachable-range":
        return
    route = truck.answer["routes"][0] if "routes" in truck.answer else truck.answer["route"]
    top = max(
        leg["lengthInMeters"] / leg["travelTimeInSeconds"] * 3.6
        for feature in features_of(truck.envelope, "route")
        for leg in (p["summary"] for p in feature["properties"]["legs"])
    )
    assert top <= 50 and route["length_km"] > 0


async def test_a_top_speed_below_the_roads_slows_the_route_down() -> None:
    async with tool_client() as tools:
        free = await tools.call("tomtom-routing", {"locations": [AMSTERDAM, BERLIN]})
        slow = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, BERLIN], "vehicleMaxSpeed": 50}
        )
    fast_s = free.answer["routes"][0]["travel_time_s"]
    slow_s = slow.answer["routes"][0]["travel_time_s"]
    assert slow_s > fast_s * 1.5
    assert slow.answer["routes"][0]["length_km"] / (slow_s / 3600) <= 50


async def test_alternatives_are_drawn_as_grey_secondary_lines_without_guidance() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, BERLIN], "maxAlternatives": 2}
        )
    answer = assert_model_text(outcome, "tomtom-routing")
    assert [r["route_index"] for r in answer["routes"]] == [0, 1, 2]
    routes = features_of(outcome.envelope, "route")
    assert_map_data_shape(outcome.envelope["data"])
    main, *alternatives = routes
    assert "guidance" in main["properties"] and not main["properties"].get("alternative")
    assert len(alternatives) == 2
    for n, route in enumerate(alternatives, start=1):
        props = route["properties"]
        assert props["alternative"] is True and props["color"] == ALTERNATIVE
        assert props["label"] == f"Alternative {n}" and "guidance" not in props


@pytest.mark.parametrize(
    "mode", ["car", "truck", "taxi", "bus", "van", "motorcycle", "bicycle", "pedestrian"]
)
async def test_every_travel_mode_routes(mode: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "travelMode": mode}
        )
    route = assert_model_text(outcome, "tomtom-routing")["routes"][0]
    sections = features_of(outcome.envelope, "route")[0]["properties"]["sections"]
    assert [s["travelMode"] for s in sections if s["sectionType"] == "TRAVEL_MODE"] == [mode]
    assert route["travel_time_s"] > 0
