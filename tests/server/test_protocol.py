"""What strict clients check (`server.protocol`): the same capabilities and the Apps
extension in both eras, no capability without content, the error codes each era's
specification names, the package's version, and cache hints where 2026-07-28 has them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tomtom_mcp_apps.server.app import build_server
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.protocol import TrimmedHeaders
from tomtom_mcp_apps.server.runtime import build_runtime
from tomtom_mcp_apps.widgets import MAP_URI

ERAS = ["legacy", "auto"]
"""2025-11-25 (initialize handshake) and 2026-07-28 (per-request envelope)."""


@asynccontextmanager
async def connected(mode: str, **settings: Any) -> AsyncIterator[Client]:
    upstream = httpx.ASGITransport(app=build_upstream_app())
    runtime = build_runtime(Settings(fit_inline=True, **settings), upstream=upstream)
    async with Client(build_server(runtime, start_pool=False), mode=mode, cache=None) as client:
        yield client


async def refused(call: Awaitable[Any]) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value


async def test_both_eras_declare_the_same_capabilities_with_the_apps_extension() -> None:
    declared = []
    for mode in ERAS:
        async with connected(mode) as client:
            declared.append(client.server_capabilities)
    legacy, modern = declared
    assert legacy == modern
    assert modern is not None
    assert modern.extensions == {"io.modelcontextprotocol/ui": {}}
    assert modern.tools is not None and modern.tools.list_changed is False
    assert modern.resources is not None
    assert (modern.resources.subscribe, modern.resources.list_changed) == (False, False)
    assert modern.prompts is None and modern.logging is None and modern.completions is None


@pytest.mark.parametrize("mode", ERAS)
async def test_the_server_names_the_installed_packages_version(mode: str) -> None:
    async with connected(mode) as client:
        info = client.server_info
    assert info is not None
    assert (info.name, info.version) == ("tomtom-mcp-apps", version("tomtom-mcp-apps"))


@pytest.mark.parametrize("mode", ERAS)
async def test_prompts_are_a_method_this_server_does_not_have(mode: str) -> None:
    async with connected(mode) as client:
        listed = await refused(client.list_prompts())
        got = await refused(client.get_prompt("summarise-route"))
    assert listed.code == got.code == -32601


@pytest.mark.parametrize("mode", ERAS)
async def test_an_unknown_tool_is_the_json_rpc_error_minus_32602_not_a_tool_result(
    mode: str,
) -> None:
    async with connected(mode) as client:
        error = await refused(client.call_tool("tomtom-teleport", {}))
    assert (error.code, error.message) == (-32602, "Unknown tool: tomtom-teleport")


@pytest.mark.parametrize(
    ("mode", "code"),
    [("legacy", -32002), ("auto", -32602)],  # 2025-11-25 and 2026-07-28 (SEP-2164)
)
@pytest.mark.parametrize("uri", ["ui://tomtom/no-such-view.html", "ui://elsewhere/x.html"])
async def test_an_unknown_resource_gets_the_code_its_eras_specification_names(
    mode: str, code: int, uri: str
) -> None:
    async with connected(mode) as client:
        error = await refused(client.read_resource(uri))
    assert error.code == code


async def test_lists_and_views_carry_public_cache_hints_in_the_2026_era() -> None:
    async with connected("auto", cache_ttl_s=120) as client:
        results = [
            await client.list_tools(),
            await client.list_resources(),
            await client.list_resource_templates(),
            await client.read_resource(MAP_URI),
        ]
    for result in results:
        assert (result.ttl_ms, result.cache_scope) == (120_000, "public")


async def test_header_values_reach_the_app_without_the_whitespace_around_them() -> None:
    seen: list[list[tuple[bytes, bytes]]] = []

    async def app(scope: dict[str, Any], receive: Callable[..., Any], send: Any) -> None:
        seen.append(scope["headers"])

    headers = [(b"mcp-name", b"  tomtom-geocode\t "), (b"accept", b"application/json")]
    await TrimmedHeaders(app)({"type": "http", "headers": headers}, None, None)  # type: ignore[arg-type]
    assert seen == [[(b"mcp-name", b"tomtom-geocode"), (b"accept", b"application/json")]]
