"""Traffic: incidents as text for the model, worst first; every incident as app data."""

from __future__ import annotations

import httpx
import pytest

from tests.server.harness import tool_client

AMSTERDAM_BOX = [4.80, 52.30, 5.00, 52.42]

# An incidentDetails v5 answer as TomTom's documentation shows one: a Point incident
# with only the default `iconCategory`, and a closure with every documented field
# (nulls, an empty roadNumbers list, and the aci/tmc blocks the view does not use).
DOCUMENTED = {
    "incidents": [
        {
            "type": "Feature",
            "properties": {"iconCategory": 6},
            "geometry": {"type": "Point", "coordinates": [4.8905266414, 52.3725919469]},
        },
        {
            "type": "Feature",
            "properties": {
                "id": "4819f7d0a15db3d9b0c3cd9203be7ba5",
                "iconCategory": 8,
                "magnitudeOfDelay": 4,
                "events": [{"description": "Closed", "code": 401, "iconCategory": 8}],
                "startTime": "2021-02-02T11:39:01Z",
                "endTime": "2021-04-02T12:59:00Z",
                "from": "Kaiser-Wilhelm-Straße (Stoltenstraße)",
                "to": "Kaiser-Wilhelm-Straße (Rosenstraße)",
                "length": 232.0,
                "delay": 0,
                "roadNumbers": [],
                "timeValidity": "present",
                "probabilityOfOccurrence": "certain",
                "numberOfReports": None,
                "lastReportTime": None,
                "aci": None,
                "tmc": {
                    "countryCode": "D",
                    "tableNumber": "1",
                    "tableVersion": "1",
                    "direction": "-",
                    "points": [{"location": 12345, "offset": 100}],
                },
            },
            "geometry": {
                "type": "LineString",
                "coordinates": [
                    [4.8905266414, 52.3725919469],
                    [4.8905306647, 52.372559847],
                    [4.8905360291, 52.3725144309],
                ],
            },
        },
    ]
}


def documented(request: httpx.Request) -> httpx.Response:
    assert request.url.path == "/traffic/services/5/incidentDetails"
    assert "geometry{type,coordinates}" in request.url.params["fields"]
    return httpx.Response(200, json=DOCUMENTED)


async def test_incidents_come_as_text_worst_first_and_all_of_them_as_app_data() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX, "maxIncidents": 2})
    assert not outcome.is_error, outcome.text
    answer = outcome.answer
    assert answer["bbox"] == AMSTERDAM_BOX and answer["show_ui"] is True
    assert answer["tool"] == "tomtom-traffic"
    assert answer["count"] > 2 and len(answer["incidents"]) == 2
    order = ["major", "undefined", "moderate", "minor", "unknown"]
    ranks = [order.index(i["magnitude"]) for i in answer["incidents"]]
    assert ranks == sorted(ranks)
    data = outcome.envelope["data"]
    assert data["type"] == "FeatureCollection"
    assert data["area"] == AMSTERDAM_BOX
    assert data["count"] == answer["count"] == len(data["features"])
    kinds = {f["geometry"]["type"] for f in data["features"]}
    assert kinds <= {"Point", "LineString"} and "LineString" in kinds
    assert all("e5" in f["geometry"] for f in data["features"] if f["geometry"]["type"] != "Point")
    first = data["features"][0]["properties"]
    assert first["kind"] == "incident"
    assert first["from"] == answer["incidents"][0]["from"]
    assert first["magnitude"] in (3, 4)


async def test_show_ui_false_sends_the_text_without_incident_geometry() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX, "show_ui": False})
    assert "com.tomtom/app-data" not in outcome.meta
    assert outcome.answer["count"] >= 1


async def test_an_answer_shaped_as_tomtom_documents_it_is_read_whole() -> None:
    async with tool_client(key="k", transport=httpx.MockTransport(documented)) as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
    assert not outcome.is_error, outcome.text
    closure, jam = outcome.answer["incidents"]
    assert closure["category"] == "road closed" and closure["magnitude"] == "undefined"
    assert closure["from"] == "Kaiser-Wilhelm-Straße (Stoltenstraße)" and closure["length_m"] == 232
    assert jam == {"category": "jam", "magnitude": "unknown", "description": ""}
    features = outcome.envelope["data"]["features"]
    assert [f["geometry"]["type"] for f in features] == ["LineString", "Point"]
    assert features[0]["properties"] == {
        "kind": "incident",
        "category": 8,
        "magnitude": 4,
        "description": "Closed",
        "delay_s": 0,
        "length_m": 232,
        "from": "Kaiser-Wilhelm-Straße (Stoltenstraße)",
        "to": "Kaiser-Wilhelm-Straße (Rosenstraße)",
        "start": "2021-02-02T11:39:01Z",
        "end": "2021-04-02T12:59:00Z",
        "id": "4819f7d0a15db3d9b0c3cd9203be7ba5",
    }
    assert features[1]["geometry"]["coordinates"] == [4.89053, 52.37259]
    assert features[1]["properties"] == {"kind": "incident", "category": 6, "magnitude": 0}


async def test_incidents_with_unusable_geometry_are_counted_but_not_drawn() -> None:
    hostile = {
        "incidents": [
            {"type": "Feature", "properties": {"iconCategory": 1}, "geometry": None},
            {"type": "Feature", "properties": {"iconCategory": 1},
             "geometry": {"type": "LineString", "coordinates": [[400, 52], [4.9, 52.4]]}},
            {"type": "Feature", "properties": {"iconCategory": 1},
             "geometry": {"type": "LineString", "coordinates": [["4.9", 52.4], [4.9, 52.4]]}},
            {"type": "Feature", "properties": {"iconCategory": 1, "from": "x" * 5000},
             "geometry": {"type": "LineString", "coordinates": [[4.9, 52.4], [4.9, 52.4]]}},
            "not an incident",
        ]
    }  # fmt: skip

    def answer(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=hostile)

    async with tool_client(key="k", transport=httpx.MockTransport(answer)) as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
    assert not outcome.is_error, outcome.text
    data = outcome.envelope["data"]
    assert data["count"] == 4
    [only] = data["features"]
    assert only["geometry"] == {"type": "Point", "coordinates": [4.9, 52.4]}
    assert len(only["properties"]["from"]) == 200


async def test_the_bbox_may_be_given_as_tomtom_mcp_text() -> None:
    async with tool_client() as tools:
        as_list = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
        as_text = await tools.call("tomtom-traffic", {"bbox": "4.80,52.30,5.00,52.42"})
    assert as_text.answer["incidents"] == as_list.answer["incidents"]


async def test_max_incidents_bounds_the_answer_and_says_how_many_were_left_out() -> None:
    async with tool_client() as tools:
        full = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
        short = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX, "maxIncidents": 1})
    assert len(short.answer["incidents"]) == 1
    assert short.answer["incidents_omitted"] == full.answer["count"] - 1


@pytest.mark.parametrize(
    ("bbox", "message"),
    [
        ([4.8, 52.3, 5.0], "bbox needs four numbers"),
        ([5.0, 52.3, 4.8, 52.4], "min < max"),
        ([4.8, 95, 5.0, 96], "bbox minLat 95.0 is outside [-90, 90]"),
        ("4.8;52.3;5.0;52.4", "is not 'minLon,minLat,maxLon,maxLat'"),
        ([0, 40, 10, 50], "TomTom allows at most 10,000 km²"),
    ],
)
async def test_a_bad_bbox_gets_an_error_saying_what_is_wrong(bbox: object, message: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": bbox})
    assert outcome.is_error
    assert message in outcome.text


async def test_an_unknown_incident_category_is_refused() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-traffic", {"bbox": AMSTERDAM_BOX, "categoryFilter": [1, 12]}
        )
    assert outcome.is_error and "unknown incident categories [12]" in outcome.text
