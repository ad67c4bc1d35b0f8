"""The HTTP surface a host and an operator meet: /mcp, /health, /metrics."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.server.harness import APP_TOOLS, MODEL_TOOLS
from tomtom_mcp_apps.widgets import BATCH_URI, DATA_VIZ_URI, FLEET_URI, MAP_URI, TRAFFIC_URI

VIEW_URIS = (MAP_URI, DATA_VIZ_URI, TRAFFIC_URI, FLEET_URI, BATCH_URI)

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {},
}
LOOP_LAG = "tomtom_mcp_event_loop_lag_seconds"
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


def test_get_on_mcp_answers_405_at_once_instead_of_opening_a_stream(server_url: str) -> None:
    response = httpx.get(server_url + "/mcp", headers={"accept": "text/event-stream"}, timeout=5)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


def test_health_says_ready_once_the_fitting_pool_is_warm(server_url: str) -> None:
    body = httpx.get(server_url + "/health", timeout=5).json()
    assert body["ready"] is True and body["fit_pool_warm"] is True
    assert body["offline"] == "auto" and body["tiles"] is True


def test_a_body_over_4_mib_is_refused_with_413(mcp_url: str) -> None:
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"' + b"x" * (5 << 20)
    response = httpx.post(mcp_url, content=big + b'"}}', headers=HEADERS, timeout=30)
    assert response.status_code == 413


def test_an_unknown_host_header_is_refused_against_dns_rebinding(mcp_url: str) -> None:
    response = httpx.post(
        mcp_url, json=INIT, headers={**HEADERS, "host": "evil.example"}, timeout=5
    )
    assert response.status_code == 421


def test_a_stateless_post_without_handshake_lists_the_tools(mcp_url: str) -> None:
    response = httpx.post(mcp_url, json=INIT, headers=HEADERS, timeout=10)
    assert response.status_code == 200
    assert "mcp-session-id" not in response.headers
    names = {tool["name"] for tool in response.json()["result"]["tools"]}
    assert names >= set(MODEL_TOOLS) | APP_TOOLS


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_both_protocol_eras_see_every_tool_linked_to_its_view(
    mcp_url: str, mode: str
) -> None:
    async with Client(mcp_url, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
    assert set(tools) >= set(MODEL_TOOLS) | APP_TOOLS
    for name in MODEL_TOOLS:
        meta = tools[name].meta or {}
        uri = meta["ui"]["resourceUri"]
        assert uri in VIEW_URIS, name
        assert meta["openai/outputTemplate"] == uri
        assert "visibility" not in meta["ui"] or "model" in meta["ui"]["visibility"]
        assert "show_ui" in tools[name].input_schema["properties"], name
    for name in APP_TOOLS:
        assert tools[name].meta["ui"]["visibility"] == ["app"], name
    for uri in VIEW_URIS:
        assert resources[uri].mime_type == "text/html;profile=mcp-app"


async def test_each_view_is_one_self_contained_document_with_its_csp(
    mcp_url: str, server_url: str
) -> None:
    async with Client(mcp_url, mode="legacy") as client:
        for uri in VIEW_URIS:
            content = (await client.read_resource(uri)).contents[0]
            assert content.mime_type == "text/html;profile=mcp-app"
            html = content.text
            assert html.lstrip().lower().startswith("<!doctype html>")
            assert "<script src=" not in html.replace(" ", "").lower()  # nothing from a CDN
            meta = content.meta or {}
            csp = meta["ui"]["csp"]
            # Tiles are fetched from the server's own tile route: its public origin, nothing else.
            assert csp == {"connectDomains": [server_url], "resourceDomains": []}
            assert meta["openai/widgetCSP"] == {
                "connect_domains": [server_url],
                "resource_domains": [],
            }
            assert meta["openai/widgetDomain"] == server_url
            assert "domain" not in meta["ui"], "no ui.domain unless UI_DOMAIN asks for one"


def test_metrics_count_tool_calls_by_tool_and_outcome(server_url: str, mcp_url: str) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "tomtom-geocode", "arguments": {"query": "Amsterdam"}},
    }
    assert httpx.post(mcp_url, json=call, headers=HEADERS, timeout=30).status_code == 200
    text = httpx.get(server_url + "/metrics", timeout=5).text
    assert 'tomtom_mcp_tool_calls_total{outcome="ok",tool="tomtom-geocode"}' in text
    assert "tomtom_mcp_fit_pool_queued" in text


def test_metrics_show_the_event_loop_lag_measured_since_start_up(server_url: str) -> None:
    text = httpx.get(server_url + "/metrics", timeout=5).text
    (lag,) = [f for f in text_string_to_metric_families(text) if f.name == LOOP_LAG]
    counts = [s.value for s in lag.samples if s.name == f"{LOOP_LAG}_count"]
    assert counts and counts[0] > 0


PREFLIGHT_HEADERS = "content-type,accept,mcp-protocol-version,mcp-method,mcp-name,tomtom-api-key"
"""What a browser host's MCP client asks to send (the 2026-07-28 `mcp-*` headers included)."""


def preflight(mcp_url: str, origin: str) -> httpx.Response:
    """The OPTIONS request a browser sends before a cross-origin `POST /mcp`."""
    headers = {
        "origin": origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": PREFLIGHT_HEADERS,
    }
    return httpx.options(mcp_url, headers=headers, timeout=5)


@pytest.mark.parametrize(
    "origin", ["http://localhost:5173", "http://127.0.0.1:8081", "http://[::1]:3000"]
)
def test_a_page_on_another_loopback_origin_passes_the_preflight_and_reads_the_answer(
    mcp_url: str, origin: str
) -> None:
    # The MCP Apps reference host (ext-apps basic-host) runs on its own loopback port.
    allowed = preflight(mcp_url, origin)
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == origin
    assert "POST" in allowed.headers["access-control-allow-methods"]
    asked = set(PREFLIGHT_HEADERS.split(","))
    assert asked <= set(allowed.headers["access-control-allow-headers"].split(","))
    answer = httpx.post(mcp_url, json=INIT, headers={**HEADERS, "origin": origin}, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == origin
    assert answer.json()["result"]["tools"]


def test_a_page_on_a_foreign_origin_is_refused_by_cors_and_by_the_origin_check(
    mcp_url: str,
) -> None:
    origin = "https://maps.attacker.example"
    refused = preflight(mcp_url, origin)
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    posted = httpx.post(mcp_url, json=INIT, headers={**HEADERS, "origin": origin}, timeout=10)
    assert posted.status_code == 403
    assert "access-control-allow-origin" not in posted.headers
