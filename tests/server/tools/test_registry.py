"""The tool registry: every tool listed, linked to its view, documented for the model."""

from __future__ import annotations

import orjson

from tests.server.harness import APP_TOOLS, MODEL_TOOLS, PLAIN_TOOLS, coordinate_lists, tool_client


async def test_every_tool_of_the_design_is_listed_with_its_view_and_output_template() -> None:
    async with tool_client() as tools:
        listed = {t.name: t for t in (await tools.client.list_tools()).tools}
    assert set(listed) == set(MODEL_TOOLS) | APP_TOOLS | PLAIN_TOOLS
    for name, uri in MODEL_TOOLS.items():
        meta = listed[name].meta or {}
        assert meta["ui"]["resourceUri"] == uri, name
        assert meta["openai/outputTemplate"] == uri, name
        assert "visibility" not in meta["ui"], name
        schema = listed[name].input_schema
        assert schema["properties"]["show_ui"]["default"] is True, name
        assert "ctx" not in schema["properties"], name
        assert listed[name].description, name
    for name in APP_TOOLS:
        assert (listed[name].meta or {})["ui"]["visibility"] == ["app"], name
    for name in PLAIN_TOOLS:
        assert "ui" not in (listed[name].meta or {}), name
        assert listed[name].input_schema["properties"]["show_ui"]["default"] is False, name


async def test_every_routing_tool_takes_the_whole_truck_profile_with_units() -> None:
    truck = {
        "vehicleLength": "metres",
        "vehicleWidth": "metres",
        "vehicleHeight": "metres",
        "vehicleWeight": "kg",
        "vehicleAxleWeight": "kg",
        "vehicleNumberOfAxles": "axles",
        "vehicleCommercial": "Commercial",
        "vehicleLoadType": "USHazmatClass",
        "vehicleAdrTunnelRestrictionCode": "ADR",
        "vehicleMaxSpeed": "km/h",
    }
    async with tool_client() as tools:
        listed = {t.name: t for t in (await tools.client.list_tools()).tools}
    for name in ("tomtom-routing", "tomtom-search-along-route", "tomtom-reachable-range"):
        properties = listed[name].input_schema["properties"]
        for field, unit in truck.items():
            assert unit in orjson.dumps(properties[field]).decode(), (name, field)
    travel_modes = listed["tomtom-routing"].input_schema["properties"]["travelMode"]["enum"]
    assert set(travel_modes) == {
        "car", "truck", "taxi", "bus", "van", "motorcycle", "bicycle", "pedestrian"
    }  # fmt: skip
    route = listed["tomtom-dynamic-map"].input_schema["$defs"]["MapRoute"]["properties"]
    assert set(truck) <= set(route)


async def test_positions_are_documented_as_longitude_latitude_pairs() -> None:
    async with tool_client() as tools:
        listed = {t.name: t for t in (await tools.client.list_tools()).tools}
    locations = listed["tomtom-routing"].input_schema["properties"]["locations"]
    assert locations["minItems"] == 2
    assert "[longitude, latitude]" in orjson.dumps(locations).decode()


def test_the_coordinate_list_detector_tells_a_position_from_a_line() -> None:
    assert coordinate_lists({"position": [4.9, 52.3]}) == []
    assert coordinate_lists({"bbox": [4.1, 52.0, 4.9, 52.3]}) == []
    assert coordinate_lists({"a": {"line": [[4.9, 52.3], [4.8, 52.2]]}}) == [".a.line"]
    assert coordinate_lists({"e5": [1, 2, 3, 4, 5, 6]}) == [".e5"]
