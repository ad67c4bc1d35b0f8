"""The front door: what a stranger may ask of a replica over HTTP, and how fast
(docs/front-door.md).

- `_clients.py`: `client_of`, who is asking: the one seam the rate per client keys on;
- `_rate.py`: `RateLimiter`, a bounded token bucket per identity (clients, tile grants);
- `_front_door.py`: `FrontDoor`, the ASGI middleware (rates, calls in flight, the body),
  and `SignedInShares`, the same per signed-in user inside the sign-in gate;
- `_connections.py`: `guarded`, uvicorn's httptools protocol with idle and header bounds.
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
