"""Every tool over real HTTP: a server process against a separate offline-upstream process,
through the official MCP client, with the caller's key in the `tomtom-api-key` header."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from loadtest.topology import Service
from tests.processes import TEST_KEY
from tests.server.calls import CALLS
from tests.server.harness import (
    AMSTERDAM,
    BUDGET,
    LISBON,
    MADRID,
    UTRECHT,
    WARSAW,
    assert_indices_hit_their_vertices,
    assert_map_data_shape,
    coordinate_lists,
    features_of,
    wire_size,
)
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY


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
        assert_map_data_shape(data)


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
    assert_map_data_shape(envelope["data"])
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


async def test_the_map_config_hands_out_tile_templates_with_a_token_never_the_key(
    mcp_url: str, server: Service, server_url: str
) -> None:
    async with connected(mcp_url, key="callers-own-key") as client:
        own = await client.call_tool("tomtom-get-map-config", {})
    async with connected(mcp_url) as client:
        configured = await client.call_tool("tomtom-get-map-config", {})
    for result in (own, configured):
        tiles = result.meta[MAP_CONFIG_KEY]["tiles"]
        assert tiles["basemap"].startswith(f"{server_url}/tiles/basemap/{{z}}/{{x}}/{{y}}.png?t=")
        dumped = result.model_dump_json()
        assert "callers-own-key" not in dumped and TEST_KEY not in dumped
    logged = [e for e in server.log_events() if e.get("tool") == "tomtom-get-map-config"]
    assert logged  # the calls were logged...
    log = server.log.read_text()
    assert "callers-own-key" not in log and TEST_KEY not in log  # ...without either key


async def test_a_private_data_url_is_refused_over_http(mcp_url: str, server_url: str) -> None:
    async with connected(mcp_url) as client:
        result = await client.call_tool("tomtom-data-viz", {"data_url": server_url + "/health"})
    assert result.is_error
    assert "loopback address" in result.content[0].text


async def test_a_header_that_cannot_be_a_key_is_refused_without_being_repeated(
    mcp_url: str, server: Service
) -> None:
    hostile = "x" * 40 + "&key=stolen-key-elsewhere"
    async with connected(mcp_url, key=hostile) as client:
        result = await client.call_tool("tomtom-geocode", {"query": "Amsterdam"})
    assert result.is_error
    text = result.content[0].text
    assert "tomtom-api-key header does not hold a TomTom API key" in text
    assert (
        "stolen-key-elsewhere" not in text and "stolen-key-elsewhere" not in server.log.read_text()
    )


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
