"""MCP tool calls over plain HTTP, as a host sends them to a stateless server.

One JSON-RPC `tools/call` per POST, protocol 2025-11-25, no handshake and no
session id: what a host sends for a widget's call, and cheap enough for
thousands of calls at a time (the SDK `Client` opens a task group per
connection). Calls that never completed (refused, reset, timed out, a 5xx from
a proxy) raise `CallFailed`; everything the server answered is returned.
"""

from __future__ import annotations

import contextlib
import itertools
import ssl
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import orjson

PROTOCOL_VERSION = "2025-11-25"
_HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
}
_ids = itertools.count(1)


Call = tuple[str, dict[str, Any]]
"""A tool name and its arguments."""


class CallFailed(Exception):
    """The call never completed: no answer, or the replica or proxy failed (5xx)."""


class ToolError(Exception):
    """The server answered with a JSON-RPC error or an HTTP 4xx instead of a result."""


async def call_tool(
    client: httpx.AsyncClient,
    url: str,
    name: str,
    arguments: dict[str, Any],
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The `CallToolResult` object the server returned for `name(arguments)`; `headers` are
    sent besides MCP's (a caller's `tomtom-api-key`)."""
    body = {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    try:
        response = await client.post(
            url, content=orjson.dumps(body), headers={**_HEADERS, **(headers or {})}
        )
    except httpx.HTTPError as exc:
        raise CallFailed(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
    if response.status_code >= 500:
        raise CallFailed(f"HTTP {response.status_code} from {url}")
    if response.status_code >= 400:
        raise ToolError(f"HTTP {response.status_code}: {response.text[:200]}")
    try:
        message = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise ToolError(f"the answer is not JSON: {response.text[:200]!r}") from exc
    if "error" in message:
        raise ToolError(
            f"JSON-RPC error {message['error'].get('code')}: {message['error'].get('message')}"
        )
    return message["result"]


async def timed_calls(client: httpx.AsyncClient, url: str, call: Call, n: int) -> list[float]:
    """Milliseconds each of `n` calls of `call`, one after another; a tool that answers
    with an error stops the run (ToolError), so that no error is timed as a success."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        result = await call_tool(client, url, *call)
        if result.get("isError"):
            raise ToolError(f"{call[0]} answered with an error: {result_text(result)}")
        samples.append((time.perf_counter() - started) * 1000.0)
    return samples


@contextlib.asynccontextmanager
async def clients(count: int, timeout: float) -> AsyncIterator[list[httpx.AsyncClient]]:
    """`count` clients of a few connections each, one per concurrent caller.

    httpcore's pool scans every connection for every request: one client with
    64 connections spent more CPU than the replica it loaded. One
    SSL context is shared, as
    building one per client reads the CA bundle each time.
    """
    ssl_context = ssl.create_default_context()
    limits = httpx.Limits(max_connections=4, max_keepalive_connections=4)
    async with contextlib.AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(
                httpx.AsyncClient(timeout=timeout, limits=limits, verify=ssl_context)
            )
            for _ in range(count)
        ]


def result_text(result: dict[str, Any]) -> str:
    """The text the model sees (first text content block), empty if there is none."""
    for block in result.get("content") or ():
        if block.get("type") == "text":
            return str(block.get("text", ""))
    return ""
