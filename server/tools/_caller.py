"""Who calls a tool, and what serves them: read once per call from the tool's context.

A `Caller` holds the key, the signed-in user, the TomTom client, the runtime (what the
server's lifespan yielded: tools hold no state) and whether the offline upstream answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from tomtom_mcp_apps.server.auth import User, current_user
from tomtom_mcp_apps.server.runtime import Runtime
from tomtom_mcp_apps.server.tomtom import TomTomClient

KEY_HEADER = "tomtom-api-key"
_KEY_SHAPE = re.compile(r"[A-Za-z0-9._~-]{1,128}")
"""TomTom keys are 32 letters and digits; anything far from that is refused unsent."""


def runtime_of(ctx: Context[Any, Any]) -> Runtime:
    """The runtime the server's lifespan yielded, for a tool that reads no key."""
    runtime: Runtime = ctx.request_context.lifespan_context
    return runtime


def caller_identity(ctx: Context[Any, Any]) -> str:
    """Whom a per-user allowance counts against (the view refetch cap), the one seam for
    identity: the signed-in user (`server.auth`), else the client's address over HTTP
    (behind a proxy, the address it forwards), else `stdio` for the one local host of a
    stdio server."""
    user = current_user()
    if user is not None:
        return f"user:{user.id}"
    client = getattr(ctx.request_context.request, "client", None)
    host = getattr(client, "host", None)
    return f"client:{host}" if host else "stdio"


@dataclass(frozen=True)
class Caller:
    """One tool call's caller: their TomTom key, who they are, and what serves them."""

    runtime: Runtime
    key: str | None
    """The `tomtom-api-key` header's key, or None: the configured key, or the offline
    upstream, serves them (`TomTomClient.key_for`)."""
    user: User | None = None
    """The signed-in user (their token's `iss` and `sub`), or None without sign-in."""

    @classmethod
    def of(cls, ctx: Context[Any, Any]) -> Caller:
        """The caller of the tool call `ctx` is; a header that cannot hold a key is a tool
        error that never repeats it."""
        return cls(runtime_of(ctx), _key(ctx.headers), current_user())

    @property
    def tomtom(self) -> TomTomClient:
        return self.runtime.tomtom

    @property
    def offline(self) -> bool:
        """The offline upstream answers this caller (`TomTomClient.serves_offline`:
        `MissingKeyError` when nothing may, with `OFFLINE=never` and no key). Read when a
        result is flagged, not before: a map of markers alone needs no upstream."""
        return self.runtime.tomtom.serves_offline(self.key)


def _key(headers: Mapping[str, str] | None) -> str | None:
    """The caller's TomTom key from the `tomtom-api-key` header, if the transport has headers."""
    if not headers:
        return None
    key = (headers.get(KEY_HEADER) or "").strip()
    if not key:
        return None
    if not _KEY_SHAPE.fullmatch(key):
        raise ToolError(
            f"The {KEY_HEADER} header does not hold a TomTom API key (up to 128 letters, "
            "digits, '.', '_', '~' or '-'). Send the key from developer.tomtom.com, or no "
            "header at all."
        )
    return key
