"""Failure injection by `key`, unknown paths, and the upstream served as its own process."""

from __future__ import annotations

import time

import httpx
import pytest

from loadtest.topology import Service
from tomtom_mcp_apps.server.offline._cache import ResponseCache

ENDPOINTS = {
    "search": "/search/2/geocode/Paris.json",
    "routing": "/routing/1/calculateRoute/52.37,4.89:52.52,13.40/json",
    "traffic": "/traffic/services/5/incidentDetails?bbox=4.8,52.3,5.0,52.4",
}


def _message(service: str, body: dict) -> str:
    if service == "search":
        return body["errorText"]
    if service == "routing":
        return body["error"]["description"]
    return body["detailedError"]["message"]


@pytest.mark.parametrize("service", list(ENDPOINTS))
@pytest.mark.parametrize(
    ("key", "status", "says"),
    [
        ("offline-403", 403, "Developer Inactive"),
        ("offline-429", 429, "Over Qps"),
        ("offline-500", 500, "Internal Server Error"),
    ],
)
async def test_failure_keys_answer_like_tomtom_in_each_services_shape(
    client: httpx.AsyncClient, service: str, key: str, status: int, says: str
):
    response = await client.get(ENDPOINTS[service], params={"key": key})
    assert response.status_code == status
    assert says in _message(service, response.json())
    assert ("retry-after" in response.headers) == (status == 429)


async def test_any_other_key_or_none_succeeds(client: httpx.AsyncClient):
    for params in ({"key": "a-real-looking-key"}, {}):
        assert (await client.get(ENDPOINTS["search"], params=params)).status_code == 200


async def test_the_timeout_key_stalls_then_answers_gateway_timeout(client: httpx.AsyncClient):
    started = time.monotonic()
    response = await client.get(ENDPOINTS["routing"], params={"key": "offline-timeout"})
    assert time.monotonic() - started >= 0.2  # the fixture's app stalls 0.2 s
    assert response.status_code == 504
    assert response.json()["detailedError"]["code"] == "GatewayTimeout"


async def test_unknown_paths_get_404_and_wrong_methods_405(client: httpx.AsyncClient):
    missing = await client.get("/search/2/teleport/x.json")
    assert missing.status_code == 404
    assert missing.json()["detailedError"]["code"] == "NotFound"
    wrong = await client.delete(ENDPOINTS["routing"])
    assert wrong.status_code == 405


async def test_health_reports_ready(client: httpx.AsyncClient):
    response = await client.get("/health")
    assert response.json() == {"status": "ok", "upstream": "offline"}


def test_the_cache_drops_the_least_recently_used_bodies_beyond_its_size():
    cache = ResponseCache(max_bytes=10)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    assert cache.get("a") == b"1234"  # now "b" is the oldest
    cache.put("c", b"1234")
    assert cache.get("b") is None
    assert cache.get("a") == cache.get("c") == b"1234"
    cache.put("huge", b"x" * 11)
    assert cache.get("huge") is None and len(cache) == 2


def test_the_upstream_subcommand_serves_tomtom_shapes_over_http(upstream: Service):
    with httpx.Client(base_url=upstream.url, timeout=10) as http:
        assert http.get("/health").status_code == 200
        route = http.get(ENDPOINTS["routing"], params={"sectionType": "country"}).json()
        assert {s["sectionType"] for s in route["routes"][0]["sections"]} >= {"COUNTRY"}
        assert http.get(ENDPOINTS["search"], params={"key": "offline-403"}).status_code == 403
        with pytest.raises(httpx.ReadTimeout):
            http.get(ENDPOINTS["search"], params={"key": "offline-timeout"}, timeout=0.5)
        assert http.get("/health").status_code == 200  # a stalled answer blocks nothing else
