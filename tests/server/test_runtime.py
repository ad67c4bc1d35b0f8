"""The runtime's life: the server's lifespan (`server.runtime.running`) keeps it, whichever
transport serves the tools, and the tools read it from their context."""

from __future__ import annotations

import tomllib

import httpx
import pytest
from mcp import Client

from tests.processes import ROOT
from tests.server.harness import AMSTERDAM
from tomtom_mcp_apps.server.app import build_server
from tomtom_mcp_apps.server.config import OFFLINE_BASE_URL, Settings
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.product import VERSION, user_agent
from tomtom_mcp_apps.server.runtime import build_runtime


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_servers_lifespan_serves_the_tools_its_runtime_and_closes_it_when_it_stops(
    mode: str,
) -> None:
    settings = Settings(fit_inline=True, api_base_url=OFFLINE_BASE_URL)
    upstream = httpx.ASGITransport(app=build_upstream_app())
    runtime = build_runtime(settings, upstream=upstream)
    async with Client(build_server(runtime, start_pool=False), mode=mode, cache=None) as client:
        assert not runtime.tomtom.closed
        result = await client.call_tool("tomtom-reverse-geocode", {"position": AMSTERDAM})
        assert not result.is_error, result.content[0].text
    assert runtime.tomtom.closed and runtime.downloads.is_closed
    assert not runtime.pool.ready  # never started: every job ran on the loop


async def test_every_tomtom_request_names_the_product_its_version_and_the_public_url() -> None:
    seen: list[httpx.Request] = []

    def tomtom(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"results": []})

    public = "https://maps.example.test/mcp"
    settings = Settings(fit_inline=True, api_key="k", public_url=public)
    runtime = build_runtime(settings, upstream=httpx.MockTransport(tomtom))
    await runtime.tomtom.geocode("Damrak", key=None)
    await runtime.tomtom.static_image((4.8, 52.3, 5.0, 52.4), 10, 10, key=None)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    expected = f"tomtom-mcp-apps/{project['version']} (+{public})"
    assert [r.headers["user-agent"] for r in seen] == [expected, expected]
    assert runtime.downloads.headers["user-agent"] == expected
    assert user_agent(None) == f"tomtom-mcp-apps/{VERSION}" and project["version"] == VERSION
    await runtime.tomtom.aclose()
    await runtime.downloads.aclose()
