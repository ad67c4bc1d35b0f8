"""EV Search, charging availability, Long Distance EV Routing, Geometry Search, POI
categories and static images, as the offline upstream answers them."""

from __future__ import annotations

import io
import itertools

import httpx
import numpy as np
import pytest
from PIL import Image

from tests.server.offline.support import route_points
from tomtom_mcp_apps.fitting.geo import haversine_m

AMSTERDAM = (4.8897, 52.374)
LDEVR = "/routing/1/calculateLongDistanceEVRoute/52.374,4.8897:40.4168,-3.7038/json"
BATTERY = {
    "vehicleEngineType": "electric",
    "constantSpeedConsumptionInkWhPerHundredkm": "50,8.2:130,21.3",
    "currentChargeInkWh": "50",
    "maxChargeInkWh": "75",
    "minChargeAtDestinationInkWh": "10",
    "minChargeAtChargingStopsInkWh": "7.5",
}
CHARGING = {
    "chargingParameters": {
        "batteryCurve": [
            {"stateOfChargeInkWh": 37.5, "maxPowerInkW": 150},
            {"stateOfChargeInkWh": 60, "maxPowerInkW": 90},
            {"stateOfChargeInkWh": 75, "maxPowerInkW": 30},
        ],
        "chargingConnectors": [
            {"currentType": "DC", "plugTypes": ["Combo_to_IEC_62196_Type_2_Base"],
             "maxPowerInkW": 150}
        ],
    }
}  # fmt: skip


async def _ev_search(client: httpx.AsyncClient, **params: object) -> dict:
    query = {"lat": AMSTERDAM[1], "lon": AMSTERDAM[0], **params}
    response = await client.get("/search/2/evsearch.json", params=query)
    assert response.status_code == 200, response.text
    return response.json()


async def test_ev_search_answers_charging_parks_nearest_first_within_the_radius(
    client: httpx.AsyncClient,
) -> None:
    body = await _ev_search(client, radius=2000, limit=8)
    results = body["results"]
    assert body["summary"]["numResults"] == len(results) == 8
    assert [r["dist"] for r in results] == sorted(r["dist"] for r in results)
    for result in results:
        assert result["dist"] <= 2000
        assert result["poi"]["categorySet"] == [{"id": 7309}]
        assert result["chargingPark"]["connectors"]
        assert result["dataSources"]["chargingAvailability"]["id"]


async def test_ev_search_filters_connectors_and_power_as_asked(client: httpx.AsyncClient) -> None:
    body = await _ev_search(client, connector="IEC62196Type2CCS", minPowerKW=100)
    assert body["results"]
    for result in body["results"]:
        assert any(
            c["connectorType"] == "IEC62196Type2CCS" and c["ratedPowerKW"] >= 100
            for c in result["chargingPark"]["connectors"]
        )
    refused = await client.get(
        "/search/2/evsearch.json", params={"lat": 52.3, "lon": 4.9, "connector": "Mennekes"}
    )
    assert refused.status_code == 400
    assert "'connector'" in refused.json()["errorText"]


async def test_availability_agrees_with_the_park_its_search_result_named(
    client: httpx.AsyncClient,
) -> None:
    for result in (await _ev_search(client, limit=5))["results"]:
        key = result["dataSources"]["chargingAvailability"]["id"]
        response = await client.get(
            "/search/2/chargingAvailability.json", params={"chargingAvailability": key}
        )
        assert response.status_code == 200
        body = response.json()
        assert body["chargingAvailability"] == key
        types = {c["connectorType"] for c in result["chargingPark"]["connectors"]}
        assert {c["type"] for c in body["connectors"]} == types
        for connector in body["connectors"]:
            current = connector["availability"]["current"]
            assert sum(current.values()) == connector["total"]
            levels = connector["availability"]["perPowerLevel"]
            assert (
                sum(sum(v for k, v in level.items() if k != "powerKW") for level in levels)
                == (connector["total"])
            )


async def test_an_unknown_availability_id_is_a_400_naming_the_parameter(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get(
        "/search/2/chargingAvailability.json", params={"chargingAvailability": "not-an-id"}
    )
    assert response.status_code == 400
    assert response.json()["detailedError"]["target"] == "chargingAvailability"


async def test_a_long_ev_route_stops_to_charge_before_the_battery_runs_low(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(LDEVR, params=BATTERY, json=CHARGING)
    assert response.status_code == 200, response.text
    (route,) = response.json()["routes"]
    legs = route["legs"]
    stops = [leg["summary"]["chargingInformationAtEndOfLeg"] for leg in legs[:-1]]
    assert len(stops) >= 3 and "chargingInformationAtEndOfLeg" not in legs[-1]["summary"]
    for leg, following in itertools.pairwise(legs):
        assert leg["points"][-1] == following["points"][0]  # a stop ends one leg, starts the next
        assert leg["summary"]["remainingChargeAtArrivalInkWh"] >= 7.5 - 0.01
    for stop in stops:
        assert 7.5 < stop["targetChargeInkWh"] <= 75
        assert stop["chargingTimeInSeconds"] > 60
        assert stop["chargingStopType"] == "Auto_Generated"
    summary = route["summary"]
    assert summary["remainingChargeAtArrivalInkWh"] >= 10 - 0.01
    assert summary["totalChargingTimeInSeconds"] == sum(s["chargingTimeInSeconds"] for s in stops)
    used = sum(leg["summary"]["batteryConsumptionInkWh"] for leg in legs)
    assert summary["batteryConsumptionInkWh"] == pytest.approx(used, abs=0.05)
    points = route_points(route)
    lengths = haversine_m(points[:-1, 0], points[:-1, 1], points[1:, 0], points[1:, 1])
    assert summary["lengthInMeters"] == pytest.approx(float(np.sum(lengths)), rel=0.01)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"constantSpeedConsumptionInkWhPerHundredkm": "130,21:50,8"}, "speeds must increase"),
        ({"vehicleEngineType": "combustion"}, "vehicleEngineType=electric"),
        ({"currentChargeInkWh": "80"}, "'currentChargeInkWh'"),
        ({"minChargeAtChargingStopsInkWh": None}, "'minChargeAtChargingStopsInkWh'"),
        ({"travelMode": "bicycle"}, "not supported by Long Distance EV Routing"),
    ],
)
async def test_an_unusable_ev_request_is_a_routing_400_saying_why(
    client: httpx.AsyncClient, change: dict, message: str
) -> None:
    params = {k: v for k, v in {**BATTERY, **change}.items() if v is not None}
    response = await client.post(LDEVR, params=params, json=CHARGING)
    assert response.status_code == 400
    assert message in response.json()["error"]["description"]


async def test_an_ev_request_without_its_charging_model_is_refused(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(LDEVR, params=BATTERY, json={})
    assert response.status_code == 400
    assert "chargingParameters" in response.json()["detailedError"]["message"]


async def test_geometry_search_answers_only_places_inside_the_posted_geometries(
    client: httpx.AsyncClient,
) -> None:
    body = {
        "geometryList": [
            {"type": "POLYGON",
             "vertices": ["52.37, 4.88", "52.37, 4.90", "52.38, 4.90", "52.38, 4.88"]},
            {"type": "CIRCLE", "position": "51.9244, 4.4777", "radius": 1000},
        ]
    }  # fmt: skip
    response = await client.post(
        "/search/2/geometrySearch/cafe.json", params={"limit": 20}, json=body
    )
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert len(results) == 20
    for result in results:
        lat, lon = result["position"]["lat"], result["position"]["lon"]
        in_square = 4.88 <= lon <= 4.90 and 52.37 <= lat <= 52.38
        in_circle = float(haversine_m(4.4777, 51.9244, lon, lat)) <= 1000
        assert in_square or in_circle
    bad = await client.post(
        "/search/2/geometrySearch/cafe.json", json={"geometryList": [{"type": "HEXAGON"}]}
    )
    assert bad.status_code == 400 and "POLYGON or CIRCLE" in bad.json()["errorText"]


async def test_poi_categories_are_a_tree_of_ids_names_children_and_synonyms(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/search/2/poiCategories.json")).json()
    categories = {c["id"]: c for c in body["poiCategories"]}
    assert set(categories[7315]) == {"id", "name", "childCategoryIds", "synonyms"}
    for category in categories.values():
        assert all(child in categories for child in category["childCategoryIds"])


async def test_the_static_image_is_a_png_of_the_asked_size(client: httpx.AsyncClient) -> None:
    params = {"bbox": "4.8,52.3,5.0,52.4", "width": 300, "height": 200, "format": "png"}
    response = await client.get("/map/1/staticimage", params=params)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(response.content)).size == (300, 200)
    wrong = await client.get("/map/1/staticimage", params={**params, "width": 9000})
    assert wrong.status_code == 400
