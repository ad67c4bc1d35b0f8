"""calculateRoute: TomTom's shapes, indices that point at the right vertices, determinism."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import numpy as np
import orjson
import pytest

from tests.server.offline.support import BASE, route_points
from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.offline import _routing, build_upstream_app
from tomtom_mcp_apps.server.offline._geo import countries_of

LISBON_WARSAW = "38.7223,-9.1393:52.2297,21.0122"
AMSTERDAM_BERLIN_VIA_HANOVER = "52.3676,4.9041:52.3759,9.7320:52.52,13.405"
ALL_SECTIONS = [("sectionType", s) for s in ("traffic", "toll", "country", "motorway", "tunnel")]
FULL = [
    *ALL_SECTIONS,
    ("instructionsType", "text"),
    ("extendedRouteRepresentation", "distance"),
    ("extendedRouteRepresentation", "travelTime"),
]


async def _route(client: httpx.AsyncClient, locations: str, params: list | None = None) -> dict:
    response = await client.get(f"/routing/1/calculateRoute/{locations}/json", params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_lisbon_to_warsaw_carries_tens_of_thousands_of_points(client: httpx.AsyncClient):
    route = (await _route(client, LISBON_WARSAW, FULL))["routes"][0]
    assert 30_000 <= len(route_points(route)) <= 60_000


async def test_lisbon_to_warsaw_is_a_road_length_route_in_tomtoms_format(
    client: httpx.AsyncClient,
):
    body = await _route(client, LISBON_WARSAW, FULL)
    assert body["formatVersion"] == "0.0.12"
    assert list(body["routes"][0]) == ["summary", "legs", "sections", "guidance", "progress"]
    assert 2_800_000 < body["routes"][0]["summary"]["lengthInMeters"] < 4_000_000


async def test_each_leg_runs_between_its_waypoints_and_sums_to_the_route(
    client: httpx.AsyncClient,
):
    route = (await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, FULL))["routes"][0]
    waypoints = [(4.9041, 52.3676), (9.7320, 52.3759), (13.405, 52.52)]
    assert len(route["legs"]) == 2
    for leg, start, end in zip(route["legs"], waypoints, waypoints[1:], strict=False):
        first, last = leg["points"][0], leg["points"][-1]
        assert (first["longitude"], first["latitude"]) == start
        assert (last["longitude"], last["latitude"]) == end
    total = route["summary"]
    for field in ("lengthInMeters", "travelTimeInSeconds", "trafficDelayInSeconds"):
        assert abs(sum(leg["summary"][field] for leg in route["legs"]) - total[field]) <= 2
    points = route_points(route)
    along = float(haversine_m(points[:-1, 0], points[:-1, 1], points[1:, 0], points[1:, 1]).sum())
    assert abs(total["lengthInMeters"] - along) <= 1
    assert total["arrivalTime"] > total["departureTime"]


async def test_section_indices_are_within_the_concatenated_points(client: httpx.AsyncClient):
    route = (await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, FULL))["routes"][0]
    n = len(route_points(route))
    types = {s["sectionType"] for s in route["sections"]}
    assert {"TRAVEL_MODE", "COUNTRY", "MOTORWAY", "TRAFFIC"} <= types
    for section in route["sections"]:
        assert 0 <= section["startPointIndex"] < section["endPointIndex"] <= n - 1, section
    travel = [s for s in route["sections"] if s["sectionType"] == "TRAVEL_MODE"]
    assert travel == [
        {"startPointIndex": 0, "endPointIndex": n - 1, "sectionType": "TRAVEL_MODE",
         "travelMode": "car"}
    ]  # fmt: skip


async def test_country_sections_change_country_exactly_at_their_boundaries(
    client: httpx.AsyncClient,
):
    route = (await _route(client, LISBON_WARSAW, FULL))["routes"][0]
    points = route_points(route)
    countries = countries_of(points[:, 0], points[:, 1])
    sections = [s for s in route["sections"] if s["sectionType"] == "COUNTRY"]
    assert sections[0]["countryCode"] == "PRT"
    assert sections[-1]["countryCode"] == "POL"
    assert sections[0]["startPointIndex"] == 0
    assert sections[-1]["endPointIndex"] == len(points) - 1
    for before, after in itertools.pairwise(sections):
        assert before["endPointIndex"] == after["startPointIndex"]
        assert before["countryCode"] != after["countryCode"]
    for s in sections:
        inside = countries[s["startPointIndex"] : s["endPointIndex"]]
        assert set(inside.tolist()) == {s["countryCode"]}
    assert {"ESP", "FRA", "DEU"} <= {s["countryCode"] for s in sections}


async def test_motorways_are_sparse_tolls_lie_on_motorways_and_tunnels_are_short(
    client: httpx.AsyncClient,
):
    route = (await _route(client, LISBON_WARSAW, FULL))["routes"][0]
    points = route_points(route)
    seg = haversine_m(points[:-1, 0], points[:-1, 1], points[1:, 0], points[1:, 1])
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    by_type: dict[str, list[dict]] = {}
    for s in route["sections"]:
        by_type.setdefault(s["sectionType"], []).append(s)
    on_motorway = np.zeros(len(points), dtype=bool)
    for s in by_type["MOTORWAY"]:
        a, b = s["startPointIndex"], s["endPointIndex"]
        assert cum[b] - cum[a] >= 2_000
        assert (cum[b] - cum[a]) / (b - a) > 60  # metres per vertex: long straight stretches
        on_motorway[a : b + 1] = True
    assert by_type["TOLL_ROAD"]
    for s in by_type["TOLL_ROAD"]:
        assert on_motorway[s["startPointIndex"] : s["endPointIndex"] + 1].all()
    for s in by_type["TUNNEL"]:
        assert cum[s["endPointIndex"]] - cum[s["startPointIndex"]] < 3_000


async def test_traffic_sections_carry_delays_that_add_up_to_the_summary(
    client: httpx.AsyncClient,
):
    route = (await _route(client, LISBON_WARSAW, FULL))["routes"][0]
    jams = [s for s in route["sections"] if s["sectionType"] == "TRAFFIC"]
    assert len(jams) >= 3
    for jam in jams:
        assert jam["magnitudeOfDelay"] in (1, 2, 3, 4)
        assert jam["simpleCategory"] in ("JAM", "ROAD_WORK")
        assert jam["delayInSeconds"] >= 0 and jam["effectiveSpeedInKmh"] > 0
    total = sum(j["delayInSeconds"] for j in jams)
    assert abs(route["summary"]["trafficDelayInSeconds"] - total) <= len(jams)
    km_per_h = route["summary"]["lengthInMeters"] / route["summary"]["travelTimeInSeconds"] * 3.6
    assert 50 < km_per_h < 130


async def test_progress_points_at_vertices_with_their_distance_and_time(
    client: httpx.AsyncClient,
):
    route = (await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, FULL))["routes"][0]
    points = route_points(route)
    seg = haversine_m(points[:-1, 0], points[:-1, 1], points[1:, 0], points[1:, 1])
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    progress = route["progress"]
    assert progress[0] == {"pointIndex": 0, "distanceInMeters": 0, "travelTimeInSeconds": 0}
    assert progress[-1]["pointIndex"] == len(points) - 1
    assert progress[-1]["travelTimeInSeconds"] == route["summary"]["travelTimeInSeconds"]
    indices = [p["pointIndex"] for p in progress]
    assert indices == sorted(set(indices))
    for p in progress:
        assert abs(p["distanceInMeters"] - cum[p["pointIndex"]]) <= 1
    times = [p["travelTimeInSeconds"] for p in progress]
    assert times == sorted(times)


async def test_instructions_point_at_their_vertices_in_route_order(client: httpx.AsyncClient):
    route = (await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, FULL))["routes"][0]
    points = route_points(route)
    instructions = route["guidance"]["instructions"]
    assert instructions[0]["maneuver"] == "DEPART"
    assert instructions[-1]["maneuver"] == "ARRIVE"
    assert instructions[-1]["pointIndex"] == len(points) - 1
    assert [i["maneuver"] for i in instructions].count("WAYPOINT_REACHED") == 1
    offsets = [i["routeOffsetInMeters"] for i in instructions]
    assert offsets == sorted(offsets)
    for ins in instructions:
        lon, lat = points[ins["pointIndex"]]
        assert (ins["point"]["longitude"], ins["point"]["latitude"]) == (lon, lat)
        assert ins["message"]
    waypoint = next(i for i in instructions if i["maneuver"] == "WAYPOINT_REACHED")
    assert waypoint["pointIndex"] == len(route["legs"][0]["points"]) - 1
    assert any(i["maneuver"] == "ENTER_MOTORWAY" for i in instructions)


async def test_coded_instructions_have_no_message_and_tagged_ones_mark_streets(
    client: httpx.AsyncClient,
):
    coded = await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, [("instructionsType", "coded")])
    tagged = await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, [("instructionsType", "tagged")])
    assert all("message" not in i for i in coded["routes"][0]["guidance"]["instructions"])
    messages = [i["message"] for i in tagged["routes"][0]["guidance"]["instructions"]]
    assert any("<street>" in m for m in messages)


async def test_only_requested_sections_and_representations_are_reported(
    client: httpx.AsyncClient,
):
    route = (await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER))["routes"][0]
    assert {s["sectionType"] for s in route["sections"]} == {"TRAVEL_MODE"}
    assert "guidance" not in route and "progress" not in route
    avoided = (
        await _route(client, AMSTERDAM_BERLIN_VIA_HANOVER, [*ALL_SECTIONS, ("avoid", "motorways")])
    )["routes"][0]
    assert not {"MOTORWAY", "TOLL_ROAD"} & {s["sectionType"] for s in avoided["sections"]}


async def test_alternatives_are_distinct_routes_between_the_same_waypoints(
    client: httpx.AsyncClient,
):
    body = await _route(client, "52.3676,4.9041:52.52,13.405", [("maxAlternatives", "2")])
    routes = body["routes"]
    assert len(routes) == 3
    lengths = {r["summary"]["lengthInMeters"] for r in routes}
    assert len(lengths) == 3
    for r in routes:
        first, last = r["legs"][0]["points"][0], r["legs"][-1]["points"][-1]
        assert (first["latitude"], last["latitude"]) == (52.3676, 52.52)


async def test_the_same_request_answers_the_same_bytes_from_a_fresh_upstream():
    url = f"/routing/1/calculateRoute/{AMSTERDAM_BERLIN_VIA_HANOVER}/json"
    bodies = []
    for _ in range(2):
        app = build_upstream_app()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE) as c:
            bodies.append((await c.get(url, params=FULL)).content)
    assert bodies[0] == bodies[1]
    orjson.loads(bodies[0])


async def test_post_answers_like_get(client: httpx.AsyncClient):
    url = f"/routing/1/calculateRoute/{AMSTERDAM_BERLIN_VIA_HANOVER}/json"
    got = await client.get(url, params=FULL)
    posted = await client.post(url, params=FULL, content=b'{"supportingPoints": []}')
    assert posted.status_code == 200
    assert posted.content == got.content


@pytest.mark.parametrize(
    ("locations", "params", "says"),
    [
        ("52.37,4.89", [], "at least 2 locations"),
        ("52.37,4.89:abc,13.4", [], "not a number"),
        ("95.0,4.89:52.52,13.4", [], "outside [-90, 90]"),
        ("52.37,4.89:52.52,181", [], "outside [-180, 180]"),
        ("52.37;4.89:52.52,13.4", [], "latitude,longitude"),
        ("52.37,4.89:52.52,13.4", [("sectionType", "scenic")], "sectionType"),
        ("52.37,4.89:52.52,13.4", [("travelMode", "rocket")], "travelMode"),
        ("52.37,4.89:52.52,13.4", [("maxAlternatives", "9")], "maxAlternatives"),
        ("52.37,4.89:52.52,13.4", [("instructionsType", "verbose")], "instructionsType"),
        ("52.37,4.89:52.52,13.4", [("departAt", "tomorrow")], "departAt"),
    ],
)
async def test_bad_route_requests_get_400_with_tomtoms_routing_error_body(
    client: httpx.AsyncClient, locations: str, params: list, says: str
):
    response = await client.get(f"/routing/1/calculateRoute/{locations}/json", params=params)
    assert response.status_code == 400
    body = response.json()
    assert body["formatVersion"] == "0.0.12"
    assert body["detailedError"]["code"] == "INVALID_REQUEST"
    assert says in body["error"]["description"]
    assert body["detailedError"]["message"] == body["error"]["description"]


async def test_a_malformed_post_body_is_refused(client: httpx.AsyncClient):
    url = "/routing/1/calculateRoute/52.37,4.89:52.52,13.4/json"
    response = await client.post(url, content=b"{not json")
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["error"]["description"]


async def test_identical_concurrent_requests_compute_the_route_once(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
):
    calls = []
    real = _routing.calculate_route

    def counting(req: _routing.RouteRequest) -> bytes:
        calls.append(req)
        return real(req)

    monkeypatch.setattr(_routing, "calculate_route", counting)
    url = f"/routing/1/calculateRoute/{LISBON_WARSAW}/json"
    responses = await asyncio.gather(*(client.get(url, params=FULL) for _ in range(6)))
    assert {r.status_code for r in responses} == {200}
    assert len({r.content for r in responses}) == 1
    assert len(calls) == 1
    await client.get(url, params=FULL)  # later: from the cache
    assert len(calls) == 1


def test_points_serialize_to_the_same_bytes_as_a_list_of_dicts():
    leg = np.array([[-9.1393, 38.7223], [0.0, -0.00001], [179.99999, -89.5], [13.405, 52.52]])
    expected = orjson.dumps([{"latitude": lat, "longitude": lon} for lon, lat in leg.tolist()])
    assert _routing._points_json(leg) == expected


async def test_departure_and_arrival_times_follow_depart_at_or_arrive_at(
    client: httpx.AsyncClient,
):
    locations = "52.3676,4.9041:52.52,13.405"
    departing = await _route(client, locations, [("departAt", "2026-03-02T07:30:00+01:00")])
    assert departing["routes"][0]["summary"]["departureTime"] == "2026-03-02T07:30:00+01:00"
    arriving = await _route(client, locations, [("arriveAt", "2026-03-02T18:00:00+01:00")])
    summary = arriving["routes"][0]["summary"]
    assert summary["arrivalTime"] == "2026-03-02T18:00:00+01:00"
    assert summary["departureTime"] < summary["arrivalTime"]
    both = await client.get(
        f"/routing/1/calculateRoute/{locations}/json",
        params={"departAt": "2026-03-02T07:30:00", "arriveAt": "2026-03-02T18:00:00"},
    )
    assert both.status_code == 400


async def test_percent_encoded_locations_answer_like_plain_ones(client: httpx.AsyncClient):
    plain = await client.get("/routing/1/calculateRoute/52.3676,4.9041:52.52,13.405/json")
    encoded = await client.get("/routing/1/calculateRoute/52.3676%2C4.9041%3A52.52%2C13.405/json")
    assert encoded.status_code == 200
    assert encoded.content == plain.content


async def test_a_route_between_one_place_twice_is_a_zero_length_route(client: httpx.AsyncClient):
    route = (await _route(client, "52.37,4.89:52.37,4.89", FULL))["routes"][0]
    assert route["summary"]["lengthInMeters"] == 0
    assert len(route_points(route)) == 2
    assert route["guidance"]["instructions"][-1]["maneuver"] == "ARRIVE"


async def test_locations_a_world_apart_find_no_route(client: httpx.AsyncClient):
    there_and_back = "52.37,4.89:-33.87,151.21:52.37,4.89"
    response = await client.get(f"/routing/1/calculateRoute/{there_and_back}/json")
    assert response.status_code == 400
    assert response.json()["detailedError"]["code"] == "NO_ROUTE_FOUND"


async def test_a_long_route_comes_gzipped_to_clients_that_accept_it(client: httpx.AsyncClient):
    path = f"/routing/1/calculateRoute/{LISBON_WARSAW}/json"
    plain = await client.get(path, headers={"accept-encoding": "identity"})
    zipped = await client.get(path, headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content
    assert zipped.num_bytes_downloaded * 4 < len(plain.content)
