"""Reachable range polygons and traffic incidents."""

from __future__ import annotations

import httpx
import pytest
from shapely.geometry import Polygon, box, shape

from tomtom_mcp_apps.server.offline._traffic import parse_fields

RANGE = "/routing/1/calculateReachableRange/52.37,4.89/json"
INCIDENTS = "/traffic/services/5/incidentDetails"
ALL_FIELDS = (
    "{incidents{type,geometry{type,coordinates},properties{id,iconCategory,magnitudeOfDelay,"
    "events{description,code},from,to,length,delay,startTime,endTime}}}"
)


def _polygon(body: dict) -> Polygon:
    boundary = body["reachableRange"]["boundary"]
    return Polygon([(p["longitude"], p["latitude"]) for p in boundary])


async def test_reachable_range_is_a_simple_irregular_polygon_around_the_origin(
    client: httpx.AsyncClient,
):
    response = await client.get(RANGE, params={"timeBudgetInSec": 1800})
    assert response.status_code == 200
    body = response.json()
    assert body["reachableRange"]["center"] == {"latitude": 52.37, "longitude": 4.89}
    polygon = _polygon(body)
    assert 200 <= len(body["reachableRange"]["boundary"]) <= 400
    assert polygon.is_valid and polygon.exterior.is_simple
    assert polygon.contains(Polygon.from_bounds(4.889, 52.369, 4.891, 52.371))
    assert polygon.area < 0.95 * polygon.convex_hull.area  # irregular, not a disc


async def test_reachable_range_grows_with_the_budget(client: httpx.AsyncClient):
    areas = []
    for params in ({"timeBudgetInSec": 600}, {"timeBudgetInSec": 3600},
                   {"distanceBudgetInMeters": 150_000}):  # fmt: skip
        areas.append(_polygon((await client.get(RANGE, params=params)).json()).area)
    assert areas[0] < areas[1] < areas[2]
    walking = await client.get(RANGE, params={"timeBudgetInSec": 3600, "travelMode": "pedestrian"})
    assert _polygon(walking.json()).area < areas[0]


async def test_fuel_and_energy_budgets_need_a_consumption_model(client: httpx.AsyncClient):
    refused = await client.get(RANGE, params={"energyBudgetInkWh": 20})
    assert refused.status_code == 400
    assert "constantSpeedConsumptionInkWhPerHundredkm" in refused.json()["error"]["description"]
    ok = await client.get(
        RANGE,
        params={"energyBudgetInkWh": 20,
                "constantSpeedConsumptionInkWhPerHundredkm": "50,8.2:130,21.3"},
    )  # fmt: skip
    assert ok.status_code == 200


@pytest.mark.parametrize(
    "params",
    [{}, {"timeBudgetInSec": 600, "distanceBudgetInMeters": 1000}, {"timeBudgetInSec": "-1"}],
)
async def test_reachable_range_needs_exactly_one_positive_budget(
    client: httpx.AsyncClient, params: dict
):
    response = await client.get(RANGE, params=params)
    assert response.status_code == 400
    assert response.json()["detailedError"]["code"] == "INVALID_REQUEST"


async def test_incidents_lie_in_the_box_with_tomtoms_fields(client: httpx.AsyncClient):
    bbox = (4.80, 52.30, 5.00, 52.42)
    response = await client.get(
        INCIDENTS, params={"bbox": ",".join(map(str, bbox)), "fields": ALL_FIELDS}
    )
    assert response.status_code == 200
    incidents = response.json()["incidents"]
    assert len(incidents) >= 3
    area = box(*bbox)
    for incident in incidents:
        assert incident["type"] == "Feature"
        geometry = incident["geometry"]
        assert geometry["type"] in ("Point", "LineString")
        # TomTom's rule: a point inside the box, or a line whose bounds meet it.
        assert box(*shape(geometry).bounds).intersects(area)
        p = incident["properties"]
        assert 0 <= p["magnitudeOfDelay"] <= 4
        assert p["events"] and {"description", "code"} == set(p["events"][0])
        assert p["endTime"] > p["startTime"]


async def test_default_fields_return_only_the_icon_category_as_tomtom_does(
    client: httpx.AsyncClient,
):
    response = await client.get(INCIDENTS, params={"bbox": "4.8,52.3,5.0,52.42"})
    for incident in response.json()["incidents"]:
        assert set(incident) == {"type", "geometry", "properties"}
        assert set(incident["properties"]) == {"iconCategory"}


async def test_overlapping_boxes_agree_on_the_incidents_they_share(client: httpx.AsyncClient):
    small = await client.get(INCIDENTS, params={"bbox": "4.85,52.33,4.95,52.40",
                                                "fields": ALL_FIELDS})  # fmt: skip
    large = await client.get(INCIDENTS, params={"bbox": "4.70,52.25,5.10,52.50",
                                                "fields": ALL_FIELDS})  # fmt: skip
    in_large = {i["properties"]["id"]: i for i in large.json()["incidents"]}
    shared = small.json()["incidents"]
    assert shared
    for incident in shared:
        assert in_large[incident["properties"]["id"]] == incident


async def test_a_box_above_10000_square_km_is_refused_like_tomtom(client: httpx.AsyncClient):
    response = await client.get(INCIDENTS, params={"bbox": "4.0,52.0,6.0,53.0"})
    assert response.status_code == 400
    body = response.json()
    assert body["httpStatusCode"] == 400
    assert "10,000 km²" in body["detailedError"]["message"]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"bbox": "4.8,52.3,5.0"},
        {"bbox": "5.0,52.3,4.8,52.4"},
        {"bbox": "4.8,52.3,5.0,52.4", "fields": "{incidents{type"},
        {"bbox": "4.8,52.3,5.0,52.4", "categoryFilter": "jam"},
    ],
)
async def test_bad_incident_requests_get_400(client: httpx.AsyncClient, params: dict):
    response = await client.get(INCIDENTS, params=params)
    assert response.status_code == 400
    assert response.json()["detailedError"]["message"]


def test_field_selections_parse_into_nested_names():
    assert parse_fields("{incidents{type,properties{id,events{code}}}}") == {
        "incidents": {"type": None, "properties": {"id": None, "events": {"code": None}}}
    }
