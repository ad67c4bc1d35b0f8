"""Every tool over real HTTP: a server process against a separate offline-upstream process,
through the official MCP client, with the caller's key in the `tomtom-api-key` header."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import fitting
from loadtest.topology import Service
from server.jobs import APP_DATA_KEY
from server.tools.app_only import MAP_CONFIG_KEY
from tests.conftest import TEST_KEY
from tests.server.harness import (
    AMSTERDAM,
    BERLIN,
    BUDGET,
    LISBON,
    MADRID,
    UTRECHT,
    WARSAW,
    assert_adr_0001,
    assert_indices_hit_their_vertices,
    coordinate_lists,
    features_of,
    wire_size,
)

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("tomtom-geocode", {"query": "Damrak 1, Amsterdam"}),
    ("tomtom-reverse-geocode", {"position": AMSTERDAM}),
    ("tomtom-fuzzy-search", {"query": "pizza", "position": AMSTERDAM}),
    ("tomtom-poi-search", {"query": "cafe", "position": AMSTERDAM, "radius": 2000}),
    ("tomtom-nearby", {"position": AMSTERDAM}),
    ("tomtom-search-along-route", {"locations": [AMSTERDAM, BERLIN], "query": "petrol"}),
    ("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT, BERLIN]}),
    ("tomtom-reachable-range", {"origin": AMSTERDAM, "distanceBudgetInMeters": 20_000}),
    (
        "tomtom-dynamic-map",
        {"markers": [{"position": AMSTERDAM}], "routes": [{"locations": [AMSTERDAM, UTRECHT]}]},
    ),
    ("tomtom-data-viz", {"geojson": {"type": "Point", "coordinates": AMSTERDAM}}),
    ("tomtom-ev-search", {"position": AMSTERDAM, "minPowerKW": 50}),
    (
        "tomtom-ev-routing",
        {"locations": [AMSTERDAM, BERLIN], "maxChargeInkWh": 60, "currentChargeInkWh": 40},
    ),
    ("tomtom-area-search", {"query": "hotel", "polygons": [{"center": AMSTERDAM, "radius": 2000}]}),
]


@asynccontextmanager
async def connected(mcp_url: str, key: str | None = None, mode: str = "auto"
                    ) -> AsyncIterator[Client]:  # fmt: skip
    headers = {"tomtom-api-key": key} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(mcp_url, http_client=http)
        async with Client(transport, mode=mode, cache=None) as client:
            yield client


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[c[0] for c in CALLS])
async def test_every_tool_answers_over_http_within_the_contract(
    mcp_url: str, tool: str, arguments: dict, mode: str
) -> None:
    async with connected(mcp_url, mode=mode) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    answer = orjson.loads(result.content[0].text)
    assert answer["show_ui"] is True and answer["tool"] == tool
    assert coordinate_lists(answer) == []
    assert wire_size(result) <= BUDGET
    envelope = fitting.decode(result.meta[APP_DATA_KEY])
    assert envelope["v"] == 2 and envelope["tool"] == tool
    data = envelope["data"]
    if tool == "tomtom-data-viz":
        assert data["geojson"] == arguments["geojson"]
    else:
        assert data["features"]
        assert_adr_0001(data)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("tomtom-routing", {"locations": [LISBON, WARSAW]}),
        (
            "tomtom-dynamic-map",
            {"routes": [{"locations": [AMSTERDAM, MADRID]}, {"locations": [LISBON, WARSAW]}]},
        ),
        (
            "tomtom-ev-routing",
            {"locations": [LISBON, WARSAW], "maxChargeInkWh": 75, "currentChargePercent": 90},
        ),
    ],
    ids=["3300-km-route", "dynamic-map-of-long-routes", "3300-km-ev-route"],
)
async def test_long_routes_are_fitted_in_the_pool_under_the_budget_with_indices_intact(
    mcp_url: str, tool: str, arguments: dict
) -> None:
    async with connected(mcp_url) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    assert wire_size(result) <= BUDGET
    envelope = fitting.decode(result.meta[APP_DATA_KEY])
    assert envelope["fitted"]["original_points"] > 40_000
    assert_adr_0001(envelope["data"])
    for route in features_of(envelope, "route"):
        assert_indices_hit_their_vertices(route)


async def test_traffic_over_http_sends_its_incidents_as_app_data(mcp_url: str) -> None:
    async with connected(mcp_url) as client:
        result = await client.call_tool("tomtom-traffic", {"bbox": [4.8, 52.3, 5.0, 52.42]})
    assert not result.is_error
    count = orjson.loads(result.content[0].text)["count"]
    assert count >= 1
    data = fitting.decode(result.meta[APP_DATA_KEY])["data"]
    assert len(data["features"]) == data["count"] == count


async def test_show_ui_false_over_http_sends_no_app_data(mcp_url: str) -> None:
    async with connected(mcp_url) as client:
        result = await client.call_tool(
            "tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "show_ui": False}
        )
    assert not result.is_error
    assert APP_DATA_KEY not in (result.meta or {})
    assert orjson.loads(result.content[0].text)["show_ui"] is False


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("offline-403", "refused the API key (HTTP 403)"),
        ("offline-429", "rate limit for this API key"),
        ("offline-500", "TomTom is unavailable (HTTP 500)"),
        ("offline-timeout", "did not answer in time"),
    ],
)
async def test_upstream_failures_are_tool_errors_and_the_server_keeps_serving(
    mcp_url: str, server: Service, key: str, message: str
) -> None:
    async with connected(mcp_url, key=key) as client:
        failed = await client.call_tool("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    assert failed.is_error
    text = failed.content[0].text
    assert message in text and key not in text
    assert key not in server.log.read_text()
    async with connected(mcp_url) as client:
        again = await client.call_tool("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    assert not again.is_error


async def test_the_callers_key_is_used_for_map_tiles_and_never_shown_in_text_or_logs(
    mcp_url: str, server: Service
) -> None:
    async with connected(mcp_url, key="callers-own-key") as client:
        own = await client.call_tool("tomtom-get-map-config", {})
    async with connected(mcp_url) as client:
        configured = await client.call_tool("tomtom-get-map-config", {})
    assert own.meta[MAP_CONFIG_KEY]["key"] == "callers-own-key"
    assert configured.meta[MAP_CONFIG_KEY]["key"] == TEST_KEY
    assert "callers-own-key" not in own.content[0].text
    assert TEST_KEY not in configured.content[0].text
    logged = [e for e in server.log_events() if e.get("tool") == "tomtom-get-map-config"]
    assert logged  # the calls were logged...
    log = server.log.read_text()
    assert "callers-own-key" not in log and TEST_KEY not in log  # ...without either key


async def test_a_private_data_url_is_refused_over_http(mcp_url: str, server_url: str) -> None:
    async with connected(mcp_url) as client:
        result = await client.call_tool("tomtom-data-viz", {"data_url": server_url + "/health"})
    assert result.is_error
    assert "loopback address" in result.content[0].text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_poi_categories_over_http_answer_in_text_only(mcp_url: str, mode: str) -> None:
    async with connected(mcp_url, mode=mode) as client:
        result = await client.call_tool("tomtom-poi-categories", {"filter": "parking"})
    assert not result.is_error, result.content[0].text
    answer = orjson.loads(result.content[0].text)
    assert {c["id"] for c in answer["categories"]} >= {7369}
    assert APP_DATA_KEY not in (result.meta or {})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_map_image_over_http_is_rendered_on_the_static_map_of_the_keyed_upstream(
    mcp_url: str, mode: str
) -> None:
    arguments = {"locations": [AMSTERDAM, UTRECHT], "image": True, "show_ui": False}
    async with connected(mcp_url, mode=mode) as client:
        result = await client.call_tool("tomtom-routing", arguments)
    assert not result.is_error, result.content[0].text
    answer = orjson.loads(result.content[0].text)
    assert answer["image"] == {"attached": "800x500 PNG", "basemap": "TomTom static map"}
    (image,) = [c for c in result.content if c.type == "image"]
    assert image.mime_type == "image/png" and image.data
    assert wire_size(result) <= BUDGET
