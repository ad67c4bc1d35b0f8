"""EV tools: charging stations with live availability, and EV trips with charging stops."""

from __future__ import annotations

import orjson
import pytest

from tests.fixtures.tomtom import documented
from tests.server.harness import (
    AMSTERDAM,
    BERLIN,
    LISBON,
    UTRECHT,
    WARSAW,
    assert_indices_hit_their_vertices,
    assert_map_data_shape,
    assert_model_text,
    features_of,
    line_of,
    tool_client,
    wire_size,
)
from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody

EV = {"maxChargeInkWh": 60, "currentChargePercent": 80}


async def test_ev_search_lists_stations_with_connectors_and_live_availability() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-ev-search", {"position": AMSTERDAM, "radius": 3000})
    answer = assert_model_text(outcome, "tomtom-ev-search")
    assert answer["count"] == len(answer["stations"]) >= 1
    distances = [s["distance_m"] for s in answer["stations"]]
    assert distances == sorted(distances) and distances[-1] <= 3000
    for station in answer["stations"]:
        assert station["connectors"] and station["name"] and station["operator"]
        counted = sum(c["count"] for c in station["connectors"])
        assert sum(station["availability"].values()) == counted
        for connector in station["connectors"]:
            assert 0 <= connector["free"] <= connector["count"]
    envelope = outcome.envelope
    assert_map_data_shape(envelope["data"])
    drawn = features_of(envelope, "station")
    assert len(drawn) == answer["count"]
    for feature, station in zip(drawn, answer["stations"], strict=True):
        free = station["availability"].get("free", 0)
        assert feature["properties"]["color"] == (jobs._ev.FREE if free else jobs._ev.BUSY) or (
            not free and feature["properties"]["color"] in (jobs._ev.BROKEN, jobs._ev.UNKNOWN)
        )
        assert feature["properties"]["detail"]  # the popup's availability line


async def test_ev_search_filters_by_connector_power_and_operator() -> None:
    async with tool_client() as tools:
        fast = await tools.call(
            "tomtom-ev-search",
            {"position": AMSTERDAM, "connectorTypes": ["IEC62196Type2CCS"], "minPowerKW": 100},
        )
        everything = await tools.call("tomtom-ev-search", {"position": AMSTERDAM, "limit": 50})
        operator = everything.answer["stations"][0]["operator"]
        one_brand = await tools.call(
            "tomtom-ev-search", {"position": AMSTERDAM, "operator": operator.upper()}
        )
    for station in assert_model_text(fast, "tomtom-ev-search")["stations"]:
        assert any(
            c["type"] == "IEC62196Type2CCS" and c["power_kw"] >= 100 for c in station["connectors"]
        )
    stations = assert_model_text(one_brand, "tomtom-ev-search")["stations"]
    assert stations and all(s["operator"] == operator for s in stations)


async def test_ev_search_refuses_a_power_range_that_is_upside_down_before_any_request() -> None:
    async with tool_client(key="offline-500") as tools:  # any request would fail with a 500
        outcome = await tools.call(
            "tomtom-ev-search", {"position": AMSTERDAM, "minPowerKW": 150, "maxPowerKW": 50}
        )
    assert outcome.is_error
    assert "minPowerKW (150) is above maxPowerKW (50)" in outcome.text


def test_stations_read_ev_search_answers_shaped_as_tomtom_documents_them() -> None:
    items, features = jobs.stations(documented("ev_search")["results"][:1], {})
    assert items[0]["operator"] == "Vattenfall InCharge"
    assert items[0]["connectors"] == [
        {"type": "IEC62196Type2Outlet", "power_kw": 11.0, "current": "AC3"}
    ]
    assert items[0]["availability"] == {"free": 1, "occupied": 1}  # per charging point status
    assert features[0]["properties"]["color"] == jobs._ev.FREE


def test_stations_join_documented_availability_counts_to_the_search_result() -> None:
    result = documented("ev_search")["results"][1]
    availability = documented("charging_availability")
    key = jobs.availability_id(result)
    assert key == availability["chargingAvailability"]
    items, _features = jobs.stations([result], {key: availability})
    station = items[0]
    assert station["availability"] == {"free": 1, "occupied": 3, "out_of_service": 1}
    ccs, chademo = station["connectors"]
    assert (ccs["type"], ccs["power_kw"], ccs["count"], ccs["free"]) == (
        "IEC62196Type2CCS",
        300.0,
        4,
        1,
    )
    assert (chademo["count"], chademo["free"]) == (1, 0)
    assert station["max_power_kw"] == 300.0
    failed, _ = jobs.stations([result], {key: None})
    assert failed[0]["availability"].startswith("unavailable")


async def test_ev_routing_adds_charging_stops_with_charge_and_minutes() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-ev-routing", {"locations": [AMSTERDAM, BERLIN], **EV})
    answer = assert_model_text(outcome, "tomtom-ev-routing")
    stops = answer["charging_stops"]
    assert answer["stops_for_charging"] == len(stops) >= 1
    assert answer["charging_time_s"] > 0 and answer["total_time_s"] > answer["charging_time_s"]
    assert answer["departure_charge_kwh"] == 48.0
    for stop in stops:
        assert stop["arrival_charge_kwh"] >= 6.0 - 0.01  # minChargeAtChargingStops: 10 %
        assert stop["departure_charge_kwh"] > stop["arrival_charge_kwh"]
        assert stop["charging_minutes"] >= 1 and stop["name"]
    assert answer["arrival_charge_kwh"] >= 12.0 - 0.01  # minChargeAtDestination: 20 %
    markers = features_of(outcome.envelope, "charging_stop")
    assert len(markers) == len(stops)


async def test_every_charging_stop_stays_on_the_fitted_route_line() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-ev-routing", {"locations": [LISBON, WARSAW], **EV})
    assert not outcome.is_error, outcome.text
    assert wire_size(outcome.result) <= 120_000
    envelope = outcome.envelope
    assert envelope["fitted"] is not None  # the line was simplified...
    (route,) = features_of(envelope, "route")
    assert_indices_hit_their_vertices(route)
    line = line_of(route)
    legs = route["properties"]["legs"]
    stops = features_of(envelope, "charging_stop")
    assert len(stops) >= 5
    for stop in stops:  # ...yet each stop is the vertex its leg ends on
        end = legs[stop["properties"]["leg"]]["endPointIndex"]
        assert line[end] == pytest.approx(stop["geometry"]["coordinates"], abs=1.1e-5)


async def test_a_short_ev_trip_needs_no_charging_stop_and_says_so() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-ev-routing", {"origin": AMSTERDAM, "destination": UTRECHT, **EV}
        )
    answer = assert_model_text(outcome, "tomtom-ev-routing")
    assert answer["charging_stops"] == [] and "No charging stop" in answer["note"]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"constantSpeedConsumptionInkWhPerHundredkm": "130,21.3:50,8.2"}, "speeds must increase"),
        ({"constantSpeedConsumptionInkWhPerHundredkm": "50,8.2:300,30"}, "outside [1, 250]"),
        ({"constantSpeedConsumptionInkWhPerHundredkm": "fifty"}, "constantSpeedConsumption"),
        ({"constantSpeedConsumptionInkWhPerHundredkm": ":".join(f"{v},10" for v in range(1, 27))},
         "at most 25"),
        ({"consumptionInKWH": [{"speedKMH": 50, "consumptionUnitsPer100KM": -1}]},
         "consumptionInKWH"),
        ({"currentChargePercent": None, "currentChargeInkWh": 70}, "currentChargeInkWh (70)"),
        ({"currentChargePercent": None}, "currentChargeInkWh (or currentChargePercent)"),
        ({"minChargeAtDestinationInkWh": 60}, "minChargeAtDestinationInkWh"),
        ({"batteryCurve": [{"stateOfChargeInkWh": 30, "maxPowerInkW": 100},
                           {"stateOfChargeInkWh": 20, "maxPowerInkW": 50}]},
         "batteryCurve.1.stateOfChargeInkWh"),
        ({"batteryCurve": [{"stateOfChargeInkWh": 90, "maxPowerInkW": 100}]},
         "batteryCurve.0.stateOfChargeInkWh (90) is above maxChargeInkWh"),
        ({"chargingConnectors": [{"currentType": "DC", "plugTypes": ["Mennekes"]}]},
         "chargingConnectors.0.plugTypes.0"),
        ({"maxChargeInkWh": 0}, "maxChargeInkWh"),
    ],
)  # fmt: skip
async def test_a_bad_vehicle_model_is_refused_before_any_request_with_the_field_named(
    change: dict, named: str
) -> None:
    arguments = {"locations": [AMSTERDAM, BERLIN], **EV, **change}
    arguments = {k: v for k, v in arguments.items() if v is not None}
    async with tool_client(key="offline-500") as tools:  # any request would answer 500
        outcome = await tools.call("tomtom-ev-routing", arguments)
    assert outcome.is_error
    assert named in outcome.text
    assert "HTTP 500" not in outcome.text


def test_ev_routes_shaped_as_tomtom_documents_them_give_each_stop_at_its_leg_end() -> None:
    raw = RawBody(orjson.dumps(documented("long_distance_ev_route")))
    battery = {"currentChargeInkWh": 50.0}
    prepared = jobs.ev_route(raw, [[13.405, 52.52], [8.58, 53.55]], battery, True, 120_000)
    answer = prepared.text
    assert answer["charging_time"] == "34 min"
    assert answer["arrival_charge_kwh"] == 18.1
    assert answer["charging_stops"] == [
        {
            "stop": 1,
            "name": "IONITY Hamburg-Stellingen",
            "operator": "IONITY",
            "after_km": 231.0,
            "arrival_charge_kwh": 9.8,
            "departure_charge_kwh": 40.0,
            "charging_minutes": 34,
            "power_kw": 350.0,
            "plug": "Combo_to_IEC_62196_Type_2_Base",
        }
    ]
