"""Search API: result shapes, positions and distances that agree, deterministic names, and
places found only by name among Natural Earth's populated places."""

from __future__ import annotations

import gzip

import httpx
import orjson
import pytest

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.offline._geo import gazetteer
from tomtom_mcp_apps.server.offline._search import NOTE_FIELD

NOT_KNOWN = "is not in the offline demo data"


async def _get(client: httpx.AsyncClient, path: str, params: dict | None = None) -> dict:
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _assert_result_shape(result: dict) -> None:
    assert {"type", "id", "score", "address", "position", "viewport"} <= set(result)
    assert {"freeformAddress", "countryCode", "country", "countryCodeISO3"} <= set(
        result["address"]
    )
    assert set(result["position"]) == {"lat", "lon"}
    assert {"topLeftPoint", "btmRightPoint"} == set(result["viewport"])


async def test_geocoding_a_place_answers_that_natural_earth_place(client: httpx.AsyncClient):
    body = await _get(client, "/search/2/geocode/Lisbon.json")
    assert body["summary"]["numResults"] == body["summary"]["totalResults"] == 1
    [result] = body["results"]
    _assert_result_shape(result)
    assert result["type"] == "Geography"
    assert result["address"]["municipality"] == "Lisbon"
    assert result["address"]["countryCodeISO3"] == "PRT"
    assert result["position"] == {"lat": 38.7247, "lon": -9.1468}  # Natural Earth's


async def test_utrecht_lands_in_utrecht_and_utrecht_centraal_beside_it(
    client: httpx.AsyncClient,
):
    [city] = (await _get(client, "/search/2/geocode/Utrecht.json"))["results"]
    assert city["address"]["municipality"] == "Utrecht"
    assert city["address"]["countryCodeISO3"] == "NLD"
    assert city["position"] == {"lat": 52.1003, "lon": 5.12}
    [station] = (await _get(client, "/search/2/geocode/Utrecht Centraal.json"))["results"]
    assert station["address"]["municipality"] == "Utrecht"
    p = station["position"]
    assert haversine_m(5.12, 52.1003, p["lon"], p["lat"]) < 5_000


async def test_an_address_in_a_known_city_geocodes_near_that_city(client: httpx.AsyncClient):
    body = await _get(client, "/search/2/geocode/Damrak 1, Amsterdam.json")
    [result] = body["results"]
    assert result["type"] == "Point Address"
    assert result["address"]["streetName"] == "Damrak"
    assert result["address"]["streetNumber"] == "1"
    p = result["position"]
    assert haversine_m(4.9147, 52.3519, p["lon"], p["lat"]) < 5_000


@pytest.mark.parametrize("query", ["Nowhereville", "NOWHEREVILLE", "Utrechtse Heuvelrug 7"])
async def test_a_name_the_offline_data_does_not_know_finds_nothing_and_says_why(
    client: httpx.AsyncClient, query: str
):
    body = await _get(client, f"/search/2/geocode/{query}.json", {"lat": 52.1, "lon": 5.1})
    assert body["results"] == [] and body["summary"]["numResults"] == 0
    note = body["summary"][NOTE_FIELD]
    assert f"{query!r} {NOT_KNOWN}" in note and "Natural Earth" in note


async def test_country_set_restricts_geocoding(client: httpx.AsyncClient):
    paris_in_germany = await _get(client, "/search/2/geocode/Paris.json", {"countrySet": "DE"})
    assert paris_in_germany["results"] == []
    assert f"'Paris' {NOT_KNOWN} in DE" in paris_in_germany["summary"][NOTE_FIELD]
    [ontario] = (await _get(client, "/search/2/geocode/London.json", {"countrySet": "CA"}))[
        "results"
    ]
    assert ontario["address"]["countryCode"] == "CA"


async def test_a_name_many_places_share_is_the_most_prominent_or_the_nearest_the_bias(
    client: httpx.AsyncClient,
):
    [england] = (await _get(client, "/search/2/geocode/London.json"))["results"]
    assert england["address"]["countryCodeISO3"] == "GBR"
    ontario = await _get(client, "/search/2/geocode/London.json", {"lat": 43.0, "lon": -81.2})
    assert ontario["results"][0]["address"]["countryCodeISO3"] == "CAN"


async def test_places_outside_europe_and_other_spellings_are_known(client: httpx.AsyncClient):
    [tokyo] = (await _get(client, "/search/2/geocode/Tokyo.json"))["results"]
    assert tokyo["address"]["countryCodeISO3"] == "JPN"
    [copenhagen] = (await _get(client, "/search/2/geocode/Copenhagen.json"))["results"]
    assert copenhagen["address"]["municipality"] == "København"
    [krakow] = (await _get(client, "/search/2/geocode/Krakow.json"))["results"]
    assert krakow["address"]["municipality"] == "Kraków"


def test_the_gazetteer_is_natural_earths_populated_places():
    places = gazetteer().places
    assert len(places) == 7343
    assert places[0].name == "Tokyo"  # most prominent first
    assert {p.iso3 for p in places if p.name == "Utrecht"} == {"NLD"}


async def test_reverse_geocoding_answers_an_address_with_a_lat_lon_string(
    client: httpx.AsyncClient,
):
    body = await _get(client, "/search/2/reverseGeocode/48.8566,2.3522.json")
    [item] = body["addresses"]
    lat, lon = (float(v) for v in item["position"].split(","))
    assert haversine_m(2.3522, 48.8566, lon, lat) < 50
    assert item["address"]["municipality"] == "Paris"
    assert item["address"]["countryCode"] == "FR"
    assert item["address"]["freeformAddress"].endswith("Paris")


async def test_fuzzy_search_with_a_bias_sorts_by_a_true_distance(client: httpx.AsyncClient):
    params = {"lat": 52.37, "lon": 4.89, "limit": 7, "radius": 2000}
    body = await _get(client, "/search/2/search/coffee.json", params)
    results = body["results"]
    assert body["summary"]["numResults"] == len(results) == 7
    assert body["summary"]["geoBias"] == {"lat": 52.37, "lon": 4.89}
    dists = [r["dist"] for r in results]
    assert dists == sorted(dists)
    for r in results:
        _assert_result_shape(r)
        assert r["type"] == "POI" and r["poi"]["categories"] == ["café"]
        p = r["position"]
        assert abs(r["dist"] - haversine_m(4.89, 52.37, p["lon"], p["lat"])) < 0.01
        assert r["dist"] <= 2000


async def test_a_bare_city_name_fuzzy_searches_to_the_city(client: httpx.AsyncClient):
    body = await _get(client, "/search/2/search/Berlin.json")
    assert body["results"][0]["type"] == "Geography"


async def test_a_search_with_no_known_place_and_no_position_has_nowhere_to_look(
    client: httpx.AsyncClient,
):
    body = await _get(client, "/search/2/search/cafe.json")
    assert body["results"] == []
    assert NOT_KNOWN in body["summary"][NOTE_FIELD]
    in_lyon = await _get(client, "/search/2/search/bar in Lyon.json", {"limit": 3})
    for r in in_lyon["results"]:
        p = r["position"]
        assert haversine_m(4.8281, 45.772, p["lon"], p["lat"]) < 5_000, "Lyon, not Bar"


async def test_poi_search_names_brands_and_uses_the_category_set(client: httpx.AsyncClient):
    body = await _get(client, "/search/2/poiSearch/Starbucks Berlin.json", {"limit": 3})
    assert [r["poi"]["name"] for r in body["results"]] == ["Starbucks"] * 3
    assert all(r["address"]["countryCodeISO3"] == "DEU" for r in body["results"])
    hotels = await _get(client, "/search/2/poiSearch/sleep.json", {"categorySet": "7314"})
    assert all(r["poi"]["categorySet"] == [{"id": 7314}] for r in hotels["results"])


async def test_nearby_search_stays_within_the_radius(client: httpx.AsyncClient):
    params = {"lat": 41.3851, "lon": 2.1734, "radius": 800, "limit": 20}
    body = await _get(client, "/search/2/nearbySearch/.json", params)
    assert len(body["results"]) == 20
    assert body["summary"]["queryType"] == "NEARBY"
    assert all(r["dist"] <= 800 for r in body["results"])


async def test_search_along_a_route_reports_detours_within_the_limit(client: httpx.AsyncClient):
    points = [{"lat": 52.37 + i * 0.01, "lon": 4.89 + i * 0.08} for i in range(110)]
    response = await client.post(
        "/search/2/searchAlongRoute/petrol.json",
        params={"maxDetourTime": 300, "limit": 8},
        content=orjson.dumps({"route": {"points": points}}),
    )
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert len(results) == 8
    times = [r["detourTime"] for r in results]
    assert times == sorted(times)
    assert all(0 <= t <= 300 for t in times)
    assert all(r["poi"]["categories"] == ["petrol station"] for r in results)


async def test_answers_are_deterministic(client: httpx.AsyncClient):
    params = {"lat": 45.46, "lon": 9.19, "limit": 5}
    first = await client.get("/search/2/search/museum.json", params=params)
    app = build_upstream_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://o") as c:
        second = await c.get("/search/2/search/museum.json", params=params)
    assert first.content == second.content


@pytest.mark.parametrize(
    ("path", "params", "target"),
    [
        ("/search/2/geocode/Paris.json", {"lat": "100", "lon": "3"}, "lat"),
        ("/search/2/geocode/Paris.json", {"lat": "48"}, "lon"),
        ("/search/2/geocode/Paris.json", {"limit": "0"}, "limit"),
        ("/search/2/search/cafe.json", {"lon": "abc", "lat": "1"}, "lon"),
        ("/search/2/nearbySearch/.json", {"lat": "48"}, "lon"),
        ("/search/2/nearbySearch/.json", {"lat": "48", "lon": "2", "radius": "-5"}, "radius"),
        ("/search/2/poiSearch/cafe.json", {"categorySet": "cafe"}, "categorySet"),
        ("/search/2/geocode/Paris.json", {"countrySet": "F1"}, "countrySet"),
    ],
)
async def test_bad_search_parameters_get_400_with_tomtoms_search_error_body(
    client: httpx.AsyncClient, path: str, params: dict, target: str
):
    response = await client.get(path, params=params)
    assert response.status_code == 400
    body = response.json()
    assert body["httpStatusCode"] == 400
    assert body["detailedError"]["target"] == target
    assert f"'{target}'" in body["errorText"]


async def test_a_reverse_geocode_position_out_of_range_is_refused(client: httpx.AsyncClient):
    response = await client.get("/search/2/reverseGeocode/91.0,2.0.json")
    assert response.status_code == 400
    assert "[-90, 90]" in response.json()["errorText"]


@pytest.mark.parametrize(
    ("body", "params", "says"),
    [
        (b"{}", {"maxDetourTime": 300}, "at least two points"),
        (b'{"route": {"points": [{"lat": 1}, {"lat": 2}]}}', {"maxDetourTime": 300}, "'lon'"),
        (b"[1", {"maxDetourTime": 300}, "not valid JSON"),
        (b'{"route": {"points": [{"lat": 1, "lon": 1}, {"lat": 2, "lon": 2}]}}', {}, "maxDetour"),
    ],
)
async def test_search_along_route_refuses_bad_bodies(
    client: httpx.AsyncClient, body: bytes, params: dict, says: str
):
    response = await client.post("/search/2/searchAlongRoute/fuel.json", params=params,
                                 content=body)  # fmt: skip
    assert response.status_code == 400
    assert says in response.json()["errorText"]


async def test_a_gzipped_route_body_gets_the_same_answer_as_a_plain_one(
    client: httpx.AsyncClient,
):
    points = [{"lat": 52.37 + i * 0.001, "lon": 4.89 + i * 0.008} for i in range(2_000)]
    body = orjson.dumps({"route": {"points": points}})
    url, params = "/search/2/searchAlongRoute/petrol.json", {"maxDetourTime": 300}
    plain = await client.post(url, params=params, content=body)
    zipped = await client.post(
        url, params=params, content=gzip.compress(body), headers={"content-encoding": "gzip"}
    )
    assert plain.status_code == zipped.status_code == 200, zipped.text
    assert zipped.json() == plain.json()


@pytest.mark.parametrize(
    ("content", "encoding", "says"),
    [
        (b"not gzip at all", "gzip", "not valid gzip"),
        (gzip.compress(b'{"route": {"points": []}}', mtime=0)[:-12], "gzip", "truncated gzip"),
        (b"{}", "br", "Unsupported Content-Encoding 'br'"),
        (gzip.compress(b" " * (33 * 2**20)), "gzip", "over 32 MB once decoded"),
    ],
)
async def test_a_body_that_does_not_decode_is_refused_with_what_is_wrong(
    client: httpx.AsyncClient, content: bytes, encoding: str, says: str
):
    response = await client.post(
        "/search/2/searchAlongRoute/fuel.json",
        params={"maxDetourTime": 300},
        content=content,
        headers={"content-encoding": encoding},
    )
    assert response.status_code == 400
    assert says in response.json()["errorText"]
