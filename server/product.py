"""The product as outside parties see it: its name, its version, the User-Agent of its
requests.

The version is the installed package's (`importlib.metadata`), written once, in
pyproject.toml, so the MCP handshake's `serverInfo.version` and the User-Agent always
name the release that runs. Every request this server makes (TomTom's API and tiles, a
caller's `data_url`, the authorization server; all through `server.outbound`) says who makes it,
built here and nowhere else: an operator finds this server's traffic in TomTom's usage
figures (issue 21), and a view's second request for the same data (`VIEW_REFETCH`,
docs/adr/0096) is told apart from the first. Imports nothing of `server`.
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
