"""No open key by accident: a replica that would spend the operator's key for anyone who
reaches it starts only when the operator says so (`OPEN_KEY=accept`).

Reach is judged by the address `serve` binds, the one fact the replica has: `PUBLIC_URL`
may be filled in by `serve` itself, and a Host header is the caller's to write
(docs/sign-in.md, What is gated).
"""

from __future__ import annotations

import ipaddress
import logging

from tomtom_mcp_apps.server.config import Settings

log = logging.getLogger(__name__)


def loopback(host: str) -> bool:
    """Whether binding `host` listens on this machine's loopback only."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name, or "" (every interface): reachable from elsewhere


def spends_key_openly(settings: Settings, host: str) -> bool:
    """Whether anyone reaching a replica bound to `host` spends `TOMTOM_API_KEY`: a key,
    no sign-in, requests with a key sent to TomTom, and a bind beyond loopback."""
    return (
        settings.api_key is not None
        and settings.serves_keyed
        and not settings.sign_in
        and not loopback(host)
    )


def open_key_refusal(settings: Settings, host: str) -> str | None:
    """Why the replica does not start (one line naming `OPEN_KEY`), or None."""
    if not spends_key_openly(settings, host) or settings.open_key == "accept":
        return None
    return (
        f"TOMTOM_API_KEY is set, sign-in is off (no OAUTH_ISSUER) and serve binds {host or '*'}, "
        "not loopback: anyone who reaches this server would spend that key, on every call and "
        "every tile. Set OAUTH_ISSUER to sign users in, bind 127.0.0.1, or set OPEN_KEY=accept "
        "if that is what you mean (deploy/README.md)."
    )


def warn_open_key(settings: Settings, host: str) -> None:
    """Say at start-up, loudly, that the operator accepted an open key."""
    if spends_key_openly(settings, host):
        log.warning(
            "OPEN_KEY=accept: TOMTOM_API_KEY is set, sign-in is off and serve binds %s: anyone "
            "who reaches this server spends that key, on every call and every tile.",
            host or "*",
            extra={"event": "open_key"},
        )
