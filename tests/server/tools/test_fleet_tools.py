"""`tomtom-matrix` and `tomtom-plan-routes` in process, over the offline upstream."""

from __future__ import annotations

import pytest

from tests.server.harness import AMSTERDAM, UTRECHT, tool_client

pytestmark = pytest.mark.asyncio

ROTTERDAM = [4.4777, 51.9244]
HAARLEM = [4.6462, 52.3874]
LEIDEN = [4.4970, 52.1601]
DELFT = [4.3571, 52.0116]


async def test_a_small_matrix_gives_the_model_the_table_and_the_structured_result_every_cell():
    async with tool_client() as tools:
        out = await tools.call(
            "tomtom-matrix", {"origins": [AMSTERDAM, UTRECHT], "destinations": [ROTTERDAM]}
        )
    assert not out.is_error, out.text
    table = out.answer["table"]
    assert len(table["minutes"]) == 2 and len(table["minutes"][0]) == 1
    assert table["minutes"][0][0] > 30
    structured = out.result.structured_content
    assert structured["travelTimes"][0][0] == round(table["minutes"][0][0] * 60, -1) or (
        abs(structured["travelTimes"][0][0] / 60 - table["minutes"][0][0]) < 0.1
    )
    assert structured["statuses"] == [["OK"], ["OK"]]
    assert structured["billedCells"] == 2
    assert out.answer["nearest"][1]["destination"] == 0


async def test_a_matrix_beyond_the_synchronous_limit_is_fetched_as_an_asynchronous_job():
    points = [[4.3 + 0.02 * i, 52.0 + 0.01 * i] for i in range(12)]  # 144 cells, 400 km box
    async with tool_client(matrix_sync_max_cells=100) as tools:
        out = await tools.call("tomtom-matrix", {"origins": points})
    assert not out.is_error, out.text
    structured = out.result.structured_content
    assert len(structured["travelTimes"]) == 12
    assert structured["travelTimes"][3][3] == 0
    assert structured["billedCells"] == 60  # 5 x max(12, 12): TomTom's discount rule
    assert "nearest" in out.answer and isinstance(out.answer["table"], str)


async def test_a_matrix_over_the_limit_is_refused_before_anything_is_sent_naming_the_limit():
    points = [[4.0 + 0.001 * i, 52.0] for i in range(60)]
    async with tool_client() as tools:
        out = await tools.call("tomtom-matrix", {"origins": points})
    assert out.is_error
    assert "3,600" in out.text and "2,500" in out.text and "MATRIX_MAX_CELLS" in out.text


@pytest.mark.process  # runs the solver
async def test_a_plan_assigns_every_stop_with_arrivals_inside_the_windows():
    stops = [
        {
            "position": p,
            "serviceMinutes": 10,
            "timeWindow": {
                "start": "2026-06-24T09:00:00+02:00",
                "end": "2026-06-24T17:00:00+02:00",
            },
        }
        for p in (HAARLEM, LEIDEN, DELFT, ROTTERDAM, UTRECHT)
    ]
    vehicles = [
        {
            "start": AMSTERDAM,
            "shift": {"start": "2026-06-24T08:00:00+02:00", "end": "2026-06-24T18:00:00+02:00"},
        }
        for _ in range(2)
    ]
    async with tool_client() as tools:
        out = await tools.call(
            "tomtom-plan-routes", {"stops": stops, "vehicles": vehicles, "timeLimitSeconds": 0.5}
        )
    assert not out.is_error, out.text
    plan = out.result.structured_content
    served = sorted(s for r in plan["routes"] for s in r["stops"])
    assert served == [0, 1, 2, 3, 4] and plan["unassigned"] == []
    for route in plan["routes"]:
        assert len(route["arrivals"]) == len(route["stops"])
        for arrival in route["arrivals"]:
            assert "2026-06-24T" in arrival and arrival.endswith("+02:00")
            assert "T09:00" <= arrival[10:16] <= "T17:00"
    kinds = {f["properties"]["kind"] for f in out.envelope["data"]["features"]}
    assert {"route", "stop", "depot"} <= kinds


@pytest.mark.process  # runs the solver
async def test_a_stop_no_vehicle_can_reach_in_its_shift_is_returned_with_the_reason():
    stops = [
        {"position": UTRECHT},
        {
            "position": ROTTERDAM,
            "timeWindow": {
                "start": "2026-06-24T08:00:00+02:00",
                "end": "2026-06-24T08:05:00+02:00",
            },
        },
    ]
    vehicles = [
        {
            "start": AMSTERDAM,
            "shift": {"start": "2026-06-24T08:00:00+02:00", "end": "2026-06-24T12:00:00+02:00"},
        }
    ]
    async with tool_client() as tools:
        out = await tools.call(
            "tomtom-plan-routes", {"stops": stops, "vehicles": vehicles, "timeLimitSeconds": 0.5}
        )
    assert not out.is_error, out.text
    unassigned = out.result.structured_content["unassigned"]
    assert [u["stop"] for u in unassigned] == [1]
    assert "no vehicle can reach it within its time window" in unassigned[0]["reason"]


async def test_a_window_that_ends_before_it_starts_is_refused_naming_the_field():
    stops = [
        {
            "position": UTRECHT,
            "timeWindow": {
                "start": "2026-06-24T12:00:00+02:00",
                "end": "2026-06-24T09:00:00+02:00",
            },
        }
    ]
    async with tool_client() as tools:
        out = await tools.call(
            "tomtom-plan-routes", {"stops": stops, "vehicleCount": 1, "depot": AMSTERDAM}
        )
    assert out.is_error
    assert "stops" in out.text and "ends" in out.text and "before it starts" in out.text


async def test_both_tools_declare_the_output_schema_their_structured_content_follows():
    async with tool_client() as tools:
        listed = {tool.name: tool for tool in (await tools.client.list_tools()).tools}
    matrix = listed["tomtom-matrix"].output_schema
    assert {"travelTimes", "lengths", "statuses"} <= set(matrix["required"])
    assert matrix["properties"]["travelTimes"]["type"] == "array"
    plan = listed["tomtom-plan-routes"].output_schema
    assert {"routes", "unassigned"} <= set(plan["required"])
    vehicle = plan["$defs"]["PlannedVehicle"]["properties"]
    assert {"vehicle", "stops", "arrivals"} <= set(vehicle)
    assert listed["tomtom-routing"].output_schema is None  # the other tools declare none


async def test_a_time_without_its_offset_is_refused_naming_the_field():
    stops = [
        {
            "position": UTRECHT,
            "timeWindow": {"start": "2026-06-24T09:00:00", "end": "2026-06-24T12:00:00+02:00"},
        }
    ]
    async with tool_client() as tools:
        out = await tools.call(
            "tomtom-plan-routes", {"stops": stops, "vehicleCount": 1, "depot": AMSTERDAM}
        )
    assert out.is_error
    assert "stops" in out.text and "timeWindow" in out.text and "no UTC offset" in out.text


async def test_a_plan_of_more_places_than_a_matrix_holds_is_refused_before_anything_is_sent():
    stops = [{"position": [4.0 + 0.01 * i, 52.0]} for i in range(60)]
    async with tool_client() as tools:
        out = await tools.call(
            "tomtom-plan-routes", {"stops": stops, "vehicleCount": 2, "depot": AMSTERDAM}
        )
    assert out.is_error
    assert "61 x 61" in out.text and "2,500" in out.text
