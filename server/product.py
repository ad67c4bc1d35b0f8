"""The product as outside parties see it: its name, its installed version, and the
User-Agent of every request it sends (`server.outbound` sets it), so that an operator
finds this server's traffic in TomTom's usage figures and a view's refetch is told apart
(docs/upstream.md, Transport). Imports nothing of `server`.
"""

from __future__ import annotations

from importlib import metadata

NAME = "tomtom-mcp-apps"

try:
    VERSION = metadata.version(NAME)
except metadata.PackageNotFoundError:  # run from a checkout that was never installed
    VERSION = "0+unknown"

REFETCH_MARK = "view-refetch"


def user_agent(public_url: str | None = None, *, refetch: bool = False) -> str:
    """`tomtom-mcp-apps/<version> (+<public_url>; view-refetch)`: the product, its version,
    where it serves (RFC 9110's product and comment; the `+` marks a URL, as crawlers write
    it) and, for a request a view asked to run again, the refetch mark."""
    comments = ([f"+{public_url}"] if public_url else []) + ([REFETCH_MARK] if refetch else [])
    return f"{NAME}/{VERSION}" + (f" ({'; '.join(comments)})" if comments else "")
