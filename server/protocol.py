"""What strict MCP clients check of this server's protocol surface, in one module.

The SDK derives capabilities from its handlers and from the era a request speaks: left
alone it would advertise `prompts` with none, drop the Apps extension from 2025-11-25
answers and say `listChanged` in one era only. `ProtocolSurface` makes both eras tell the
same story (docs/tools.md, The protocol surface).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Receive, Scope, Send

PROMPT_METHODS = frozenset({"prompts/list", "prompts/get"})
CAPABILITY_ANSWERS = frozenset({"initialize", "server/discover"})
RESOURCE_NOT_FOUND_2025 = -32002
"""2025-11-25's code for a resource that does not exist (2026-07-28 names -32602)."""


class ProtocolSurface:
    """`ServerMiddleware` for a server whose tools are `tools` and whose extensions are
    `extensions` (identifier -> settings, as `capabilities.extensions` holds them).

    No prompts: no `prompts` capability, and `prompts/*` is a method it does not have
    (-32601), since on 2026-07-28 a server answering `prompts/list` must declare prompts.
    The extensions under `capabilities.extensions` of both eras' `initialize` and
    `server/discover`. An unknown tool is -32602 before any tool code or the call log sees
    it; an unknown resource -32602 on 2026-07-28 and -32002 on 2025-11-25.
    """

    def __init__(self, tools: Iterable[str], extensions: Mapping[str, dict[str, Any]]) -> None:
        self._tools = frozenset(tools)
        self._extensions = {name: dict(settings) for name, settings in extensions.items()}

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method in PROMPT_METHODS:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", ctx.method)
        if ctx.method == "tools/call":
            name = ctx.params.get("name") if isinstance(ctx.params, dict) else None
            if isinstance(name, str) and name not in self._tools:
                raise MCPError(INVALID_PARAMS, f"Unknown tool: {name[:64]}")
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            legacy = ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
            if ctx.method == "resources/read" and exc.code == INVALID_PARAMS and legacy:
                raise MCPError(RESOURCE_NOT_FOUND_2025, exc.message, exc.data) from exc
            raise
        if ctx.method in CAPABILITY_ANSWERS and isinstance(result, dict):
            return self._with_capabilities(result)
        return result

    def _with_capabilities(self, result: dict[str, Any]) -> dict[str, Any]:
        """`result` (an `initialize` or `server/discover` answer as it goes on the wire)
        without `prompts` and with this server's extensions."""
        capabilities = dict(result.get("capabilities") or {})
        capabilities.pop("prompts", None)
        capabilities["extensions"] = {
            **(capabilities.get("extensions") or {}),
            **self._extensions,
        }
        return {**result, "capabilities": capabilities}


class TrimmedHeaders:
    """ASGI wrapper: request header values without leading or trailing spaces and tabs
    (RFC 9110 section 5.5: they are not part of the value; not every HTTP parser drops
    them)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = scope.get("headers", ())
        if any(value[:1] in _OWS or value[-1:] in _OWS for _, value in headers):
            trimmed = [(name, value.strip(b" \t")) for name, value in headers]
            scope = {**scope, "headers": trimmed}
        await self.app(scope, receive, send)


_OWS = (b" ", b"\t")
