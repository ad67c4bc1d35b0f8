"""The front door: what a stranger may ask of a replica over HTTP, and how fast
(docs/front-door.md).

- `_clients.py`: `client_of`, who is asking: the one seam every limit per client keys on
  (`client_in` reads what the door named, behind it);
- `_rate.py`: `RateLimiter`, a bounded token bucket per identity (clients, tile grants);
- `_front_door.py`: `FrontDoor`, the ASGI middleware (rates, calls in flight, the sign-in
  check from the headers, the body);
- `_connections.py`: `guarded`, uvicorn's httptools protocol with idle and header bounds;
- `_origins.py`: `OriginCheck`, the Origin check kept when Host checking is off.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.http._clients import client_in, client_of
from tomtom_mcp_apps.server.http._connections import ConnectionLimits, GuardedHttpTools, guarded
from tomtom_mcp_apps.server.http._front_door import Admission, DoorLimits, FrontDoor
from tomtom_mcp_apps.server.http._origins import OriginCheck, origin_allowed
from tomtom_mcp_apps.server.http._rate import RateLimiter

__all__ = [
    "Admission",
    "ConnectionLimits",
    "DoorLimits",
    "FrontDoor",
    "GuardedHttpTools",
    "OriginCheck",
    "RateLimiter",
    "client_in",
    "client_of",
    "guarded",
    "origin_allowed",
]
