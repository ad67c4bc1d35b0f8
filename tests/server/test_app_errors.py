"""Errors for the model (`server.errors.ToolCallError`) reach it as the SDK's tool errors do.

Workers raise them without the MCP SDK; `server.app.TomTomServer` turns them into the
SDK's `ToolError` in one place. A crash stays a crash: its message never reaches the
model.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import pytest
from mcp import Client
from mcp.server.mcpserver.exceptions import ToolError

from tomtom_mcp_apps.server.app import TomTomServer
from tomtom_mcp_apps.server.errors import BadAnswer, ToolCallError

MESSAGE = "TomTom's answer is malformed at routes[0]: expected a list. Try again later."


def served(**tools: BaseException) -> TomTomServer:
    """A server whose tool `name` raises `tools[name]`."""
    server = TomTomServer("errors")
    for name, exc in tools.items():
        server.add_tool(raising(exc), name=name)
    return server


def raising(exc: BaseException) -> Callable[[], Awaitable[str]]:
    async def tool() -> str:
        raise exc

    return tool


async def test_an_error_for_the_model_reads_exactly_as_the_sdks_tool_error_would(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = served(ours=BadAnswer("routes[0]", "expected a list"), sdks=ToolError(MESSAGE))
    with caplog.at_level(logging.INFO):
        async with Client(server, cache=None) as client:
            ours = await client.call_tool("ours", {})
            sdks = await client.call_tool("sdks", {})
    assert ours.is_error and sdks.is_error
    assert ours.content[0].text == f"Error executing tool ours: {MESSAGE}"
    assert sdks.content[0].text == f"Error executing tool sdks: {MESSAGE}"
    assert "unexpected exception" not in caplog.text
    assert not [r for r in caplog.records if r.exc_info]


async def test_every_error_for_the_model_is_a_tool_error_and_a_crash_is_not() -> None:
    server = served(plain=ToolCallError("Ask for less."), crash=RuntimeError("a secret"))
    async with Client(server, cache=None) as client:
        plain = await client.call_tool("plain", {})
        crash = await client.call_tool("crash", {})
    assert plain.is_error and plain.content[0].text == "Error executing tool plain: Ask for less."
    assert crash.is_error and crash.content[0].text == "Error executing tool crash"
