"""The offline upstream's Batch Search (synchronous, and asynchronous with its redirect and
long poll) and Snap to Roads, in TomTom's shapes."""

from __future__ import annotations

import itertools
import time
from urllib.parse import quote

import httpx
import numpy as np
import orjson
import pytest

from tests.server.offline.support import BASE, NOW
from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.offline._snap import parse_fields


def items(*texts: str) -> dict:
    return {"batchItems": [{"query": f"/geocode/{quote(t, safe='')}.json?limit=3"} for t in texts]}


async def test_a_synchronous_batch_answers_every_query_in_order_a_refused_one_as_its_own_item(
    client: httpx.AsyncClient,
):
    body = items("Damrak 1, Amsterdam", "??", "Springfield")
    body["batchItems"].append({"query": "/geocode/Paris.json?limit=0"})
    answer = (await client.post("/search/2/batch/sync.json", json=body)).json()
    assert answer["formatVersion"] == "0.0.1"
    assert answer["summary"] == {"successfulRequests": 3, "totalRequests": 4}
    found = [len(i["response"].get("results", [])) for i in answer["batchItems"]]
    assert [i["statusCode"] for i in answer["batchItems"]] == [200, 200, 200, 400]
    assert found[:3] == [1, 0, 3], "a match, none, and a name found in three places"
    refused = answer["batchItems"][3]["response"]
    assert refused["httpStatusCode"] == 400 and "limit" in refused["errorText"]
    assert answer["batchItems"][0]["response"]["summary"]["query"] == "damrak 1, amsterdam"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"not json", "not valid JSON"),
        (orjson.dumps({"batchItems": []}), "non-empty 'batchItems'"),
        (orjson.dumps({"batchItems": [{"query": "geocode/x.json"}]}), "batchItems[0]"),
        (orjson.dumps(items(*["x"] * 101)), "at most 100"),
    ],
)
async def test_a_bad_synchronous_batch_is_a_400_saying_what(
    client: httpx.AsyncClient, body: bytes, said: str
):
    response = await client.post("/search/2/batch/sync.json", content=body)
    assert response.status_code == 400
    assert said in response.json()["errorText"]


async def test_an_asynchronous_batch_redirects_303_by_default_and_202_in_manual_mode(
    client: httpx.AsyncClient,
):
    default = await client.post("/search/2/batch.json", json=items("Lisbon"))
    manual = await client.post(
        "/search/2/batch.json", params={"redirectMode": "manual"}, json=items("Lisbon")
    )
    assert default.status_code == 303 and manual.status_code == 202
    for answer in (default, manual):
        assert answer.headers["location"].startswith(f"{BASE}/search/2/batch/")
    done = await client.get(manual.headers["location"], params={"waitTimeSeconds": 5})
    assert done.status_code == 200
    assert done.json()["batchItems"][0]["statusCode"] == 200


async def test_the_long_poll_answers_202_with_the_location_until_the_batch_is_done():
    app = build_upstream_app(clock=lambda: NOW, batch_seconds=lambda n: 1.5)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE) as client:
        submitted = await client.post(
            "/search/2/batch.json", params={"redirectMode": "manual"}, json=items("Lisbon", "Porto")
        )
        where = submitted.headers["location"]
        early = await client.get(where, params={"waitTimeSeconds": 1})
        assert early.status_code == 202 and early.headers["location"] == where
        started = time.monotonic()
        done = await client.get(where, params={"waitTimeSeconds": 5})
        assert done.status_code == 200 and time.monotonic() - started < 4.5
        assert done.json()["summary"]["totalRequests"] == 2
        again = await client.get(where, params={"waitTimeSeconds": 5})
        assert again.content == done.content, "a batch may be downloaded again"


async def test_an_unknown_batch_is_a_404_and_a_bad_wait_a_400(client: httpx.AsyncClient):
    unknown = await client.get("/search/2/batch/45e0909c-625a-4822-a060-8f7f88498c0e")
    assert unknown.status_code == 404 and "not found" in unknown.json()["errorText"]
    bad = await client.get("/search/2/batch/x", params={"waitTimeSeconds": 500})
    assert bad.status_code == 400 and "waitTimeSeconds" in bad.json()["errorText"]


def trace(n: int, step: float = 0.0002) -> list[list[float]]:
    return [[4.89 + i * step, 52.37 + i * step / 2] for i in range(n)]


async def test_snap_to_roads_answers_each_point_with_its_projection_and_road_element(
    client: httpx.AsyncClient,
):
    points = trace(60)
    points[30] = [4.9, 52.39]  # a GPS jump
    features = [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": p}, "properties": {}}
        for p in points
    ]
    answer = (await client.post("/snapToRoads/1", json={"points": features})).json()
    projected = answer["projectedPoints"]
    assert len(projected) == 60
    assert projected[30]["properties"] == {"snapResult": "NotMatched"}
    assert all(
        p["properties"]["snapResult"] == "Matched" for i, p in enumerate(projected) if i != 30
    )
    route = answer["route"]
    indices = [p["properties"]["routeIndex"] for i, p in enumerate(projected) if i != 30]
    assert indices == sorted(indices) and indices[-1] == len(route) - 1
    for a, b in itertools.pairwise(route):  # the road is continuous
        assert a["geometry"]["coordinates"][-1] == b["geometry"]["coordinates"][0]
    assert route[0]["properties"]["speedLimits"]["unit"] == "kmph"
    road = sum(
        float(haversine_m(*np.array(f["geometry"]["coordinates"])[:-1].T,
                          *np.array(f["geometry"]["coordinates"])[1:].T).sum())
        for f in route
    )  # fmt: skip
    assert answer["distances"]["road"] == pytest.approx(road, abs=1)
    assert answer["distances"]["offRoad"] == 0.0, "the road runs on past a lone jump"


async def test_snap_to_roads_by_get_answers_only_the_fields_asked_for(client: httpx.AsyncClient):
    fields = "{projectedPoints{properties{snapResult}},distances{total}}"
    params = {"points": ";".join(f"{x},{y}" for x, y in trace(10)), "fields": fields}
    answer = (await client.get("/snapToRoads/1", params=params)).json()
    assert set(answer) == {"projectedPoints", "distances"}
    assert answer["projectedPoints"][0] == {"properties": {"snapResult": "Matched"}}
    assert set(answer["distances"]) == {"total"}


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"points": "4.89,52.37"}, "between 2 and 5000"),
        ({"points": "4.89,52.37;4.99,52.37"}, "at most 6000 m apart"),
        ({"points": ";".join(f"{x},{y}" for x, y in trace(300, 0.006))}, "at most 100 km"),
        (
            {
                "points": "4.89,52.37;4.891,52.37",
                "timestamps": "2021-01-01T00:01:00Z;2021-01-01T00:00:00Z",
            },
            "ascending",
        ),
        ({"points": "4.89,52.37;4.891,52.37", "headings": "0;400"}, "headings[1]"),
        ({"points": "4.89,52.37;4.891,52.37", "fields": "{route{"}, "fields"),
    ],
)
async def test_snap_to_roads_refuses_what_tomtom_refuses_with_a_400(
    client: httpx.AsyncClient, params: dict, said: str
):
    response = await client.get("/snapToRoads/1", params=params)
    assert response.status_code == 400, response.text
    assert said in response.json()["detailedError"]["message"]


def test_field_selections_of_snap_to_roads_parse_into_nested_names():
    assert parse_fields("{route{properties{id,speedLimits{value}}},distances{total}}") == {
        "route": {"properties": {"id": None, "speedLimits": {"value": None}}},
        "distances": {"total": None},
    }


async def test_a_posted_trace_of_more_than_5000_points_is_refused(client: httpx.AsyncClient):
    features = [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": p}, "properties": {}}
        for p in trace(5001, 1e-6)
    ]
    response = await client.post("/snapToRoads/1", json={"points": features})
    assert response.status_code == 400
    assert "between 2 and 5000; got 5001" in response.json()["detailedError"]["message"]
