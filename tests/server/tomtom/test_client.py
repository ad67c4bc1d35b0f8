"""The TomTom client: request shapes, key handling, and errors a model can act on."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Callable
from urllib.parse import quote

import httpx
import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tomtom_mcp_apps.server.bodies import RawBody, request_body
from tomtom_mcp_apps.server.config import OFFLINE_BASE_URL
from tomtom_mcp_apps.server.errors import (
    BadRequestError,
    InvalidKeyError,
    MissingKeyError,
    RateLimitError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
)
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.tomtom import TomTomClient, scrub
from tomtom_mcp_apps.server.tomtom._client import request_url
from tomtom_mcp_apps.server.tomtom._errors import key_forms

SECRET = "s3cr3t-key-0123456789"
BASE = "https://api.example.test"


def client_for(
    handler: Callable[[httpx.Request], httpx.Response],
    *,
    default_key: str | None = SECRET,
    offline_mode: str = "auto",
) -> tuple[TomTomClient, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    client = TomTomClient(
        httpx.MockTransport(record), BASE, default_key=default_key, offline_mode=offline_mode
    )
    return client, seen


def ok(body: object = None) -> Callable[[httpx.Request], httpx.Response]:
    return lambda _: httpx.Response(200, content=orjson.dumps(body or {"results": []}))


async def test_a_query_with_spaces_slashes_and_unicode_stays_one_path_segment() -> None:
    client, seen = client_for(ok())
    await client.fuzzy_search("Café 10/12 Straße?#", key=None)
    path = seen[0].url.raw_path.decode().split("?")[0]
    assert path == "/search/2/search/Caf%C3%A9%2010%2F12%20Stra%C3%9Fe%3F%23.json"


async def test_the_callers_key_wins_over_the_configured_key() -> None:
    client, seen = client_for(ok())
    await client.geocode("Amsterdam", key="caller-key")
    await client.geocode("Amsterdam", key=None)
    assert seen[0].url.params["key"] == "caller-key"
    assert seen[1].url.params["key"] == SECRET


async def test_a_request_with_no_key_at_all_goes_to_the_offline_upstream_with_none() -> None:
    client, seen = client_for(ok(), default_key=None)
    await client.geocode("Amsterdam", key=None)
    await client.geocode("Amsterdam", key="callers-key")
    assert str(seen[0].url).startswith(OFFLINE_BASE_URL + "/search/2/geocode/")
    assert "key" not in seen[0].url.params
    assert str(seen[1].url).startswith(BASE + "/search/2/geocode/"), "a key always reaches TomTom"
    assert seen[1].url.params["key"] == "callers-key"
    assert client.serves_offline(None) and not client.serves_offline("callers-key")


async def test_offline_always_sends_no_request_to_tomtom_and_no_key_anywhere() -> None:
    client, seen = client_for(ok(), offline_mode="always")
    await client.geocode("Amsterdam", key="callers-key")
    assert str(seen[0].url).startswith(OFFLINE_BASE_URL) and "key" not in seen[0].url.params


async def test_offline_never_refuses_a_keyless_request_naming_the_header_and_the_variable() -> None:
    client, seen = client_for(ok(), default_key=None, offline_mode="never")
    with pytest.raises(MissingKeyError) as caught:
        await client.geocode("Amsterdam", key=None)
    assert "tomtom-api-key" in str(caught.value) and "TOMTOM_API_KEY" in str(caught.value)
    assert seen == []
    await client.geocode("Amsterdam", key="callers-key")
    assert seen[0].url.params["key"] == "callers-key"


def offline_count(endpoint: str) -> float:
    labels = {"endpoint": endpoint}
    value = metrics.REGISTRY.get_sample_value("tomtom_mcp_offline_requests_total", labels)
    return value or 0.0


async def test_offline_answers_are_counted_apart_from_tomtoms_latency() -> None:
    before = offline_count("search/fuzzy"), upstream_count("search/fuzzy", "ok")
    client, _ = client_for(ok(), default_key=None)
    await client.fuzzy_search("pizza", key=None)
    assert offline_count("search/fuzzy") == before[0] + 1
    assert upstream_count("search/fuzzy", "ok") == before[1]


def test_the_key_is_scrubbed_in_every_spelling_it_could_travel_in() -> None:
    key = "k+y/with=odd&chars"
    text = " ".join(sorted(key_forms(key))) + f" https://x.test/a?key={key}&b=1"
    scrubbed = scrub(text, key)
    assert all(form not in scrubbed for form in key_forms(key))
    assert "key=***" in scrubbed and "&b=1" in scrubbed


async def test_reverse_geocode_and_nearby_put_latitude_before_longitude() -> None:
    client, seen = client_for(ok())
    await client.reverse_geocode(4.9, 52.37, key=None)
    await client.nearby_search(4.9, 52.37, key=None, params=[("radius", 500)])
    assert seen[0].url.path == "/search/2/reverseGeocode/52.37,4.9.json"
    assert seen[1].url.path == "/search/2/nearbySearch/.json"
    assert (seen[1].url.params["lat"], seen[1].url.params["lon"]) == ("52.37", "4.9")
    assert seen[1].url.params["radius"] == "500"


async def test_calculate_route_asks_for_gzip_guidance_progress_and_every_section_type() -> None:
    client, seen = client_for(ok({"routes": []}))
    await client.calculate_route_raw(
        [(4.9, 52.37), (5.1, 52.09), (13.4, 52.52)],
        section_types=["traffic", "tollRoad"],
        key=None,
        params=[("routeType", "fast")],
    )
    url = seen[0].url
    path = b"/routing/1/calculateRoute/52.37,4.9:52.09,5.1:52.52,13.4/json?"
    assert url.raw_path.startswith(path)
    assert url.params.get_list("sectionType") == ["traffic", "tollRoad"]
    assert url.params.get_list("extendedRouteRepresentation") == ["distance", "travelTime"]
    assert url.params["instructionsType"] == "text"
    assert url.params["routeType"] == "fast"
    assert seen[0].headers["accept-encoding"] == "gzip"


async def test_search_along_route_posts_the_route_body_as_json() -> None:
    client, seen = client_for(ok())
    route = b'{"route":{"points":[{"lat":52.37,"lon":4.9},{"lat":52.09,"lon":5.1}]}}'
    await client.search_along_route("petrol station", RawBody(route), max_detour_time=300, key=None)
    request = seen[0]
    assert request.method == "POST"
    assert request.url.raw_path.startswith(b"/search/2/searchAlongRoute/petrol%20station.json?")
    assert request.url.params["maxDetourTime"] == "300"
    assert request.content == route
    assert request.headers["content-type"] == "application/json"
    assert "content-encoding" not in request.headers


async def test_a_long_route_is_posted_gzipped_and_says_so() -> None:
    client, seen = client_for(ok())
    points = [{"lat": 52.0 + i * 1e-5, "lon": 4.0 + i * 1e-5} for i in range(5_000)]
    payload = orjson.dumps({"route": {"points": points}})
    await client.search_along_route(
        "petrol station", request_body(payload), max_detour_time=300, key=None
    )
    request = seen[0]
    assert request.headers["content-encoding"] == "gzip"
    assert len(request.content) < len(payload) / 3
    assert gzip.decompress(request.content) == payload
    assert request.headers["content-type"] == "application/json"


async def test_coordinates_are_written_in_fixed_point_never_in_exponent_form() -> None:
    client, seen = client_for(ok())
    await client.reverse_geocode(0.00001, -0.0000001, key=None)
    await client.nearby_search(-1e-5, 89.99999999, key=None)
    assert seen[0].url.path == "/search/2/reverseGeocode/-0.0000001,0.00001.json"
    assert (seen[1].url.params["lat"], seen[1].url.params["lon"]) == ("90", "-0.00001")


async def test_incident_details_sends_the_bbox_as_min_lon_min_lat_max_lon_max_lat() -> None:
    client, seen = client_for(ok({"incidents": []}))
    await client.incident_details([4.85, 52.34, 4.95, 52.4], key=None)
    assert seen[0].url.path == "/traffic/services/5/incidentDetails"
    assert seen[0].url.params["bbox"] == "4.85,52.34,4.95,52.4"


@pytest.mark.parametrize("status", [401, 403])
async def test_a_refused_key_is_an_invalid_key_error_that_never_shows_the_key(status: int) -> None:
    body = {"detailedError": {"code": "Forbidden", "message": f"Key {SECRET} is inactive"}}
    client, _ = client_for(lambda _: httpx.Response(status, content=orjson.dumps(body)))
    with pytest.raises(InvalidKeyError) as caught:
        await client.geocode("Amsterdam", key=None)
    message = str(caught.value)
    assert f"HTTP {status}" in message and "tomtom-api-key" in message
    assert "inactive" in message
    assert SECRET not in message


async def test_a_rate_limit_says_when_to_retry() -> None:
    response = httpx.Response(429, headers={"Retry-After": "70"}, content=b"Too Many Requests")
    client, seen = client_for(lambda _: response)
    with pytest.raises(RateLimitError, match="retry in 70 s"):
        await client.geocode("Amsterdam", key=None)
    assert len(seen) == 1  # too long to wait for: not retried


@pytest.mark.parametrize(
    "body",
    [
        {"formatVersion": "0.0.12", "error": {"description": "Unknown sectionType: foo"}},
        {"errorText": "Unknown sectionType: foo", "httpStatusCode": 400},
        {"detailedError": {"code": "BAD_REQUEST", "message": "Unknown sectionType: foo"}},
    ],
)
async def test_a_bad_request_quotes_tomtoms_own_description(body: dict) -> None:
    client, _ = client_for(lambda _: httpx.Response(400, content=orjson.dumps(body)))
    with pytest.raises(BadRequestError, match=r"HTTP 400.*TomTom said: Unknown sectionType: foo"):
        await client.calculate_route_raw([(4.9, 52.37), (5.1, 52.09)], key=None)


async def test_a_server_error_is_reported_as_unavailable_and_not_retried() -> None:
    client, seen = client_for(lambda _: httpx.Response(503, content=b"<h1>Service down</h1>"))
    with pytest.raises(UpstreamUnavailableError, match=r"HTTP 503.*Service down"):
        await client.geocode("Amsterdam", key=None)
    assert len(seen) == 1


async def test_a_timeout_is_reported_without_the_key_in_message_or_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout(f"timed out reading {request.url}", request=request)

    client, seen = client_for(slow)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(UpstreamTimeoutError) as caught:
        await client.geocode("Amsterdam", key=None)
    assert "did not answer in time" in str(caught.value)
    assert SECRET not in str(caught.value) and SECRET not in caplog.text
    assert len(seen) == 1


async def test_a_connection_failure_is_reported_without_the_key_in_message_or_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"connection refused for {request.url}", request=request)

    client, _ = client_for(refused)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(UpstreamUnavailableError, match="could not be reached"):
        await client.geocode("Amsterdam", key="caller-secret-key")
    assert "caller-secret-key" not in caplog.text
    assert "key=***" in caplog.text


async def test_a_body_that_is_not_json_is_reported_as_unavailable() -> None:
    client, _ = client_for(lambda _: httpx.Response(200, content=b"<html>proxy page</html>"))
    with pytest.raises(UpstreamUnavailableError, match="not JSON"):
        await client.geocode("Amsterdam", key=None)


def upstream_count(endpoint: str, outcome: str) -> float:
    labels = {"endpoint": endpoint, "outcome": outcome}
    value = metrics.REGISTRY.get_sample_value("tomtom_mcp_upstream_seconds_count", labels)
    return value or 0.0


async def test_every_request_is_timed_by_endpoint_and_outcome() -> None:
    before_ok = upstream_count("routing/calculateRoute", "ok")
    before_refused = upstream_count("search/geocode", "invalid_key")
    client, _ = client_for(ok({"routes": []}))
    await client.calculate_route_raw([(4.9, 52.37), (5.1, 52.09)], key=None)
    refusing, _ = client_for(lambda _: httpx.Response(403, content=b"{}"))
    with pytest.raises(InvalidKeyError):
        await refusing.geocode("Amsterdam", key=None)
    assert upstream_count("routing/calculateRoute", "ok") == before_ok + 1
    assert upstream_count("search/geocode", "invalid_key") == before_refused + 1


QUERY_TEXT = st.text(alphabet=st.sampled_from("aZ09 ,:&=?/%+#é€-._~\"'"), max_size=6)


@given(
    path=QUERY_TEXT.map(lambda t: "/search/2/geocode/" + quote(t, safe="") + ".json"),
    params=st.lists(
        st.tuples(
            QUERY_TEXT,
            st.one_of(QUERY_TEXT, st.booleans(), st.integers(), st.floats(allow_nan=False)),
        ),
        max_size=5,
    ),
)
@example(path="/routing/1/calculateRoute/52.37,4.9:50.85,4.35/json", params=[("traffic", True)])
@example(path="/traffic/services/5/incidentDetails", params=[("bbox", "4.85,52.34,4.95,52.4")])
def test_request_urls_are_what_httpx_makes_of_the_same_params(
    path: str, params: list[tuple[str, str | int | float | bool]]
) -> None:
    # What httpx's `build_request(method, url, params=params)` makes of them (a client
    # without params of its own), without building a client (and its SSL context) each time.
    made = httpx.URL(BASE + path).copy_merge_params(httpx.QueryParams().merge(params))
    assert request_url(BASE, path, params) == made
    assert request_url(BASE, path, params) == str(made)  # byte for byte: path and query
