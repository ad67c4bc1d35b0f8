"""The runtime's life: the server's lifespan (`server.runtime.running`) keeps it, whichever
transport serves the tools, and the tools read it from their context."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client

from server.app import build_server
from server.config import OFFLINE_BASE_URL, Settings
from server.offline import build_upstream_app
from server.runtime import build_runtime
from tests.server.harness import AMSTERDAM


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_servers_lifespan_serves_the_tools_its_runtime_and_closes_it_when_it_stops(
    mode: str,
) -> None:
    settings = Settings(fit_inline=True, api_base_url=OFFLINE_BASE_URL)
    upstream = httpx.ASGITransport(app=build_upstream_app())
    runtime = build_runtime(settings, upstream=upstream)
    async with Client(build_server(runtime, start_pool=False), mode=mode, cache=None) as client:
        assert not runtime.http.is_closed
        result = await client.call_tool("tomtom-reverse-geocode", {"position": AMSTERDAM})
        assert not result.is_error, result.content[0].text
    assert runtime.http.is_closed and runtime.downloads.is_closed
    assert not runtime.pool.ready  # never started: every job ran on the loop
