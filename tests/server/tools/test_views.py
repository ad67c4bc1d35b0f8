"""The views as hosts meet them: content-versioned `ui://` URIs that keep answering across a
rolling update, each host's domain and CSP rules, and Claude Code's result-size hint."""

from __future__ import annotations

import hashlib

import pytest
from mcp import MCPError

from tests.server.harness import MODEL_TOOLS, tool_client
from tomtom_mcp_apps import widgets
from tomtom_mcp_apps.server.config import claude_ui_domain
from tomtom_mcp_apps.server.jobs import MAX_RESULT_CHARS

SECRET = "tile-secret-for-the-view-tests-0123456789"
PUBLIC = "https://Maps.Example.test:8443/mcp"
ORIGIN = "https://maps.example.test:8443"
HOSTED = {"public_url": PUBLIC, "tile_token_secrets": (SECRET,), "key": "k"}


async def test_views_are_listed_under_uris_that_carry_a_hash_of_the_built_document() -> None:
    async with tool_client() as tools:
        listed = {str(r.uri) for r in (await tools.client.list_resources()).resources}
    assert listed == {
        widgets.MAP_URI,
        widgets.DATA_VIZ_URI,
        widgets.TRAFFIC_URI,
        widgets.FLEET_URI,
        widgets.BATCH_URI,
    }
    for view in widgets.views():
        digest = hashlib.sha256(view.html.encode()).hexdigest()[:12]
        assert view.uri.endswith(f"-{digest}.html")


@pytest.mark.parametrize(
    "earlier",
    [
        "ui://tomtom/map.html",
        "ui://tomtom/map-0123456789ab.html",
        "ui://tomtom/traffic-beef.html",
        "ui://tomtom/fleet-0123456789ab.html",
    ],
)
async def test_an_earlier_builds_uri_is_answered_with_the_current_build(earlier: str) -> None:
    stem = earlier.removeprefix("ui://tomtom/").split("-")[0].removesuffix(".html")
    current = next(v for v in widgets.views() if v.uri.startswith(f"ui://tomtom/{stem}-"))
    async with tool_client(**HOSTED) as tools:
        content = (await tools.client.read_resource(earlier)).contents[0]
    assert content.text == current.html
    assert content.mime_type == "text/html;profile=mcp-app"
    assert content.meta["ui"]["csp"]["connectDomains"] == [ORIGIN]


@pytest.mark.parametrize("uri", ["ui://tomtom/atlas.html", "ui://tomtom/map-NOTHEX.html"])
async def test_a_uri_that_names_no_view_of_ours_is_refused(uri: str) -> None:
    async with tool_client() as tools:
        with pytest.raises(MCPError, match="no view named"):
            await tools.client.read_resource(uri)


async def test_the_csp_lets_views_fetch_from_the_public_origin_alone_and_load_nothing_by_url() -> (
    None
):
    async with tool_client(**HOSTED) as tools:
        content = (await tools.client.read_resource(widgets.MAP_URI)).contents[0]
    meta = content.meta
    # Tiles are fetched (connect-src) and decoded; nothing is an <img>, a script or a font.
    assert meta["ui"]["csp"] == {"connectDomains": [ORIGIN], "resourceDomains": []}
    assert meta["openai/widgetCSP"] == {"connect_domains": [ORIGIN], "resource_domains": []}
    assert meta["openai/widgetDomain"] == ORIGIN
    assert "domain" not in meta["ui"]


async def test_a_server_that_serves_no_tiles_lets_its_views_load_from_nowhere() -> None:
    async with tool_client(public_url=PUBLIC) as tools:  # keyless, no tile secret
        content = (await tools.client.read_resource(widgets.TRAFFIC_URI)).contents[0]
    assert content.meta["ui"]["csp"] == {"connectDomains": [], "resourceDomains": []}


async def test_ui_domain_claude_is_the_hash_of_the_public_url_as_typed() -> None:
    async with tool_client(**HOSTED, ui_domain="claude") as tools:
        content = (await tools.client.read_resource(widgets.DATA_VIZ_URI)).contents[0]
    assert content.meta["ui"]["domain"] == claude_ui_domain(PUBLIC)
    assert content.meta["ui"]["domain"].endswith(".claudemcpcontent.com")


async def test_claude_code_keeps_results_whole_by_the_hint_on_tools_and_results() -> None:
    async with tool_client() as tools:
        listed = {t.name: t for t in (await tools.client.list_tools()).tools}
        outcome = await tools.call("tomtom-geocode", {"query": "Damrak 1, Amsterdam"})
    for name in MODEL_TOOLS:
        assert listed[name].meta["anthropic/maxResultSizeChars"] == MAX_RESULT_CHARS, name
    assert outcome.meta["anthropic/maxResultSizeChars"] == MAX_RESULT_CHARS
