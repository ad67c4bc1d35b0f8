"""Each destination's connections, headers and timeouts, in one place: TomTom's API (its
per-request headers and deadline are the TomTom client's, `server.tomtom`), tiles, a
caller's `data_url`, the authorization server, and the offline upstream in process."""

from __future__ import annotations

from typing import Any

from tomtom_mcp_apps.server.bodies import ACCEPT_ENCODING
from tomtom_mcp_apps.server.outbound._client import Client
from tomtom_mcp_apps.server.outbound._in_process import App, InProcess
from tomtom_mcp_apps.server.outbound._messages import Timeouts
from tomtom_mcp_apps.server.outbound._network import Network

OTHER_CONNECTIONS = 100
"""Connections of the pools to destinations other than TomTom (a `data_url`'s host, the
authorization server): a few requests a minute each."""


def tomtom_api(connections: int) -> Network:
    """TomTom's API: one keep-alive pool of `connections` (`TOMTOM_MAX_CONNECTIONS`)."""
    return Network(connections)


def offline_upstream(app: App) -> InProcess:
    """The built-in offline upstream's app, answering in process."""
    return InProcess(app)


def tiles(*, connections: int, timeout_s: float, user_agent: str) -> Client:
    """TomTom's tiles: a pool of their own, so a burst of tiles never takes the connections
    API calls wait for; each tile whole within `timeout_s`, connecting within 5 s."""
    return Client(
        Network(connections),
        headers={"accept": "*/*", "accept-encoding": ACCEPT_ENCODING, "user-agent": user_agent},
        timeouts=Timeouts(pool=min(5.0, timeout_s), read=timeout_s),
        deadline_s=timeout_s,
    )


def data_urls(*, timeout_s: float, user_agent: str) -> Client:
    """Callers' `data_url`s: each step within `timeout_s` (`DATA_VIZ_TIMEOUT_S`, which also
    bounds the whole download, decoding included: `server.downloads`)."""
    return Client(
        Network(OTHER_CONNECTIONS),
        headers={"user-agent": user_agent},
        timeouts=Timeouts(connect=timeout_s, pool=timeout_s, read=timeout_s),
    )


def issuer(*, timeout_s: float, user_agent: str, stand_in: Any = None) -> Client:
    """The authorization server (metadata, keys, introspection): each step within
    `timeout_s` (`OAUTH_TIMEOUT_S`), bodies asked for unencoded; `stand_in` is a test's
    issuer in its place."""
    return Client(
        stand_in if stand_in is not None else Network(OTHER_CONNECTIONS),
        headers={"accept-encoding": "identity", "user-agent": user_agent},
        timeouts=Timeouts(connect=timeout_s, pool=timeout_s, read=timeout_s),
    )
