"""The TomTom client: requests, errors, and TomTom's bodies as received.

- `TomTomClient` (`_client.py`): one shared `httpx.AsyncClient`, a method per endpoint;
- its errors (`_errors.py`), tool errors the model can act on (tree drawn there);
- `RawBody` and `loads` (`_body.py`): a body as it came off the wire, decoded where
  it is used; `request_body` gzips large POST bodies;
- `parse_route_body` (`_route_body.py`): calculateRoute's points straight into numpy.

Fitting workers decode bodies but must not import the MCP SDK or httpx (they would
cost every worker start-up time and memory), so the body names load eagerly and the
loop-side names (client, errors) load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from server.tomtom._body import ACCEPT_ENCODING, BodyError, RawBody, loads, request_body
from server.tomtom._route_body import parse_route_body

if TYPE_CHECKING:
    from server.tomtom._client import Params, TomTomClient, coordinate
    from server.tomtom._errors import (
        BadRequestError,
        InvalidKeyError,
        MissingKeyError,
        RateLimitError,
        TomTomError,
        UpstreamTimeoutError,
        UpstreamUnavailableError,
        scrub,
    )

_LOOP_SIDE = {
    "Params": "_client",
    "TomTomClient": "_client",
    "coordinate": "_client",
    "BadRequestError": "_errors",
    "InvalidKeyError": "_errors",
    "MissingKeyError": "_errors",
    "RateLimitError": "_errors",
    "TomTomError": "_errors",
    "UpstreamTimeoutError": "_errors",
    "UpstreamUnavailableError": "_errors",
    "scrub": "_errors",
}

__all__ = [
    "ACCEPT_ENCODING",
    "BadRequestError",
    "BodyError",
    "InvalidKeyError",
    "MissingKeyError",
    "Params",
    "RateLimitError",
    "RawBody",
    "TomTomClient",
    "TomTomError",
    "UpstreamTimeoutError",
    "UpstreamUnavailableError",
    "coordinate",
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
