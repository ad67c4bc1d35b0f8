"""The front door: what a stranger may ask of a replica over HTTP, and how fast.

- `_clients.py`: `client_of`, who is asking (the peer, or `X-Forwarded-For` as far as
  trusted proxies wrote it): the one seam the rate per client keys on;
- `_rate.py`: `RateLimiter`, a bounded token bucket per identity (clients here, tile
  grants in `server.tiles`);
- `_front_door.py`: `FrontDoor`, the ASGI middleware: a rate per client (429), a share
  per client of the calls in flight (429), a ceiling on calls in flight (503), the
  request body within a deadline and a size; `SignedInShares`, the rate and share of a
  signed-in user's calls, inside the sign-in gate (a hosted host sends many users from
  one address);
- `_connections.py`: `guarded`, uvicorn's httptools protocol with an idle timeout from
  the first moment of a connection, a header timeout and a header size.

The bytes calls hold while waiting for the fitting pool are bounded where they wait
(`server.pool.FitPool`). Decisions and every default's reason: docs/adr/0082.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.http._clients import client_of
from tomtom_mcp_apps.server.http._connections import ConnectionLimits, GuardedHttpTools, guarded
from tomtom_mcp_apps.server.http._front_door import DoorLimits, FrontDoor, SignedInShares
from tomtom_mcp_apps.server.http._rate import RateLimiter

__all__ = [
    "ConnectionLimits",
    "DoorLimits",
    "FrontDoor",
    "GuardedHttpTools",
    "RateLimiter",
    "SignedInShares",
    "client_of",
    "guarded",
]
