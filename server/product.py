"""What this server calls itself: its name, its version, and the User-Agent of its requests.

The version is the installed package's (`importlib.metadata`), written once, in
pyproject.toml. Every request this server makes to TomTom (API calls over httpx, tiles
over aiohttp, static maps) and to a caller's `data_url` says who makes it, so an
operator finds this server's traffic in TomTom's usage figures (issue 21). Imports
nothing of the server.
"""

from __future__ import annotations

from importlib import metadata

NAME = "tomtom-mcp-apps"

try:
    VERSION = metadata.version(NAME)
except metadata.PackageNotFoundError:  # run from a checkout that was never installed
    VERSION = "0+unknown"


def user_agent(public_url: str | None) -> str:
    """`tomtom-mcp-apps/<version> (+<public_url>)`: the product, its version and where it
    serves (RFC 9110's product and comment; the `+` marks a URL, as crawlers write it)."""
    where = f" (+{public_url})" if public_url else ""
    return f"{NAME}/{VERSION}{where}"
