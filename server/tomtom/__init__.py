"""The TomTom client, on the event loop: requests, their pacing, and what a failure becomes.

- `TomTomClient` (`_client.py`): a method per endpoint, sent through `server.outbound`,
  each request bounded (`Bounds`); answers are kept as received (`server.bodies`);
  `request_url`, a TomTom URL with its query encoded once (tiles' too);
- `error_for` and `scrub` (`_errors.py`): TomTom's failed answers as `TomTomError`s
  (`server.errors`), scrubbed of the key;
- `Submitted`, `SYNC_MAX_ITEMS`, `ASYNC_MAX_ITEMS`, `wait_seconds` (`_batches.py`): what
  TomTom's asynchronous Batch Search answers mean, and its limits;
- `family_of` (`_families.py`): the API family, and so the rate limit, of a request;
- `billed_cells` (`_matrix.py`): what TomTom bills a Matrix v2 request;
- `Pacer` (`_pacing.py`): TomTom's rate limits kept per key and family, fair between calls;
- every request's User-Agent is `server.product.user_agent`'s, marked on a view's refetch.

Fitting workers never import this package: what they need of a TomTom answer is
`server.bodies`.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.tomtom._batches import (
    ASYNC_MAX_ITEMS,
    SYNC_MAX_ITEMS,
    WAIT_SECONDS,
    Submitted,
    batch_id_in,
    wait_seconds,
)
from tomtom_mcp_apps.server.tomtom._client import (
    Bounds,
    Params,
    TomTomClient,
    coordinate,
    request_url,
)
from tomtom_mcp_apps.server.tomtom._errors import retry_after_s, scrub
from tomtom_mcp_apps.server.tomtom._families import FAMILIES, Family, family_of
from tomtom_mcp_apps.server.tomtom._matrix import billed_cells
from tomtom_mcp_apps.server.tomtom._pacing import Pacer

__all__ = [
    "ASYNC_MAX_ITEMS",
    "FAMILIES",
    "SYNC_MAX_ITEMS",
    "WAIT_SECONDS",
    "Bounds",
    "Family",
    "Pacer",
    "Params",
    "Submitted",
    "TomTomClient",
    "batch_id_in",
    "billed_cells",
    "coordinate",
    "family_of",
    "request_url",
    "retry_after_s",
    "scrub",
    "wait_seconds",
]
