"""The TomTom client: requests, errors, and TomTom's bodies as received.

- `TomTomClient` (`_client.py`): one shared `httpx.AsyncClient`, a method per endpoint;
- `error_for` and `scrub` (`_errors.py`): TomTom's failed answers as `TomTomError`s
  (`server.errors`), scrubbed of the key;
- `RawBody` and `loads` (`_body.py`): a body as it came off the wire, decoded where
  it is used; `request_body` gzips large POST bodies;
- `parse_route_body` (`_route_body.py`): calculateRoute's points straight into numpy;
- `family_of` (`_families.py`): the API family, and so the rate limit, of a request;
- `Pacer` (`_pacing.py`): TomTom's rate limits kept per key and family, fair between calls.

Fitting workers decode bodies but must not import the MCP SDK or httpx (they would
cost every worker start-up time and memory), so the body names load eagerly and the
loop-side names (client, pacing, error building) load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from server.tomtom._body import (
    ACCEPT_ENCODING,
    MAX_DECODED_BYTES,
    RawBody,
    loads,
    request_body,
)
from server.tomtom._families import FAMILIES, Family, family_of
from server.tomtom._route_body import parse_route_body

if TYPE_CHECKING:
    from server.tomtom._client import Bounds, Params, TomTomClient, coordinate
    from server.tomtom._errors import scrub
    from server.tomtom._pacing import Pacer

_LOOP_SIDE = {
    "Bounds": "_client",
    "Params": "_client",
    "TomTomClient": "_client",
    "coordinate": "_client",
    "Pacer": "_pacing",
    "scrub": "_errors",
}

__all__ = [
    "ACCEPT_ENCODING",
    "FAMILIES",
    "MAX_DECODED_BYTES",
    "Bounds",
    "Family",
    "Pacer",
    "Params",
    "RawBody",
    "TomTomClient",
    "coordinate",
    "family_of",
    "loads",
    "parse_route_body",
    "request_body",
    "scrub",
]


def __getattr__(name: str) -> Any:
    module = _LOOP_SIDE.get(name)
    if module is None:
        raise AttributeError(f"module 'server.tomtom' has no attribute {name!r}")
    return getattr(importlib.import_module(f"server.tomtom.{module}"), name)
