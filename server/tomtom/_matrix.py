"""Matrix Routing v2 on TomTom's side: what a matrix is billed, and a redirect to follow.

TomTom bills a matrix by its cells, with a discount for large ones: 5 x max(origins,
destinations) when both exceed 5, else origins x destinations; cells without a route
(`NO_ROUTE_FOUND`) are billed too. The client spends that many units of the key's quota
and the signed-in user's budget for a synchronous matrix or an asynchronous submission
(docs/upstream.md, Matrix Routing v2). A finished asynchronous job's result may come as
an HTTP 302 whose `Location` holds it; `Redirected` (`server.errors`) carries that address
from the one place that sees the answer's headers to the method that follows it.
"""

from __future__ import annotations

SYNC_PATH = "/routing/matrix/2"
ASYNC_PATH = "/routing/matrix/2/async"


def billed_cells(origins: int, destinations: int) -> int:
    """The transactions TomTom bills for an `origins` x `destinations` matrix."""
    if origins > 5 and destinations > 5:
        return 5 * max(origins, destinations)
    return origins * destinations
