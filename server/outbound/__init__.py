"""Every request this server sends goes out here: TomTom's API and tiles (static maps
among the API calls), a caller's `data_url`, the authorization server's metadata, keys
and introspection, and the offline upstream answering in process.

One HTTP client library, aiohttp, and nothing of it outside this package
(`tests/test_import_rules.py` checks that no other module imports an HTTP client
library); docs/upstream.md (Transport) says why aiohttp, with the figures.

- `Client` (`_client.py`): requests to one destination with its headers, timeouts and
  deadline; an answer's body read as received and bounded (`Answer.read`), decoded
  elsewhere (`server.bodies`); failures as `server.errors.TransportError`s;
- `Network` (`_network.py`, the only module that imports aiohttp), `InProcess`
  (`_in_process.py`, an ASGI app) and, for tests, an httpx transport (`transport`,
  `_stand_in.py`) carry the requests;
- `_destinations.py`: each destination's pool, headers and timeouts;
- `_urls.py`: a caller's URL parsed once by the library that sends it, pinning to a
  checked address, Basic credentials and form bodies.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.outbound._client import Client, transport
from tomtom_mcp_apps.server.outbound._destinations import (
    data_urls,
    issuer,
    offline_upstream,
    tiles,
    tomtom_api,
)
from tomtom_mcp_apps.server.outbound._in_process import InProcess
from tomtom_mcp_apps.server.outbound._messages import Answer, Headers, Request, Timeouts, Transport
from tomtom_mcp_apps.server.outbound._network import KEEPALIVE_S, Network, ssl_context
from tomtom_mcp_apps.server.outbound._urls import Url, basic_auth, form, parse_url

__all__ = [
    "KEEPALIVE_S",
    "Answer",
    "Client",
    "Headers",
    "InProcess",
    "Network",
    "Request",
    "Timeouts",
    "Transport",
    "Url",
    "basic_auth",
    "data_urls",
    "form",
    "issuer",
    "offline_upstream",
    "parse_url",
    "ssl_context",
    "tiles",
    "tomtom_api",
    "transport",
]
