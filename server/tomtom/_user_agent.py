"""The User-Agent of every TomTom API request: the product and its version, so TomTom's
logs (and an operator's bill) tell this server's requests apart, and a view's second
request for the same data (`VIEW_REFETCH`, docs/adr/0096) apart from the first."""

from __future__ import annotations

from server.product import NAME, VERSION

REFETCH_MARK = "view-refetch"


def user_agent(*, refetch: bool = False) -> str:
    """`tomtom-mcp-apps/<version>`, marked `(view-refetch)` for a request a view asked to
    run again because its host dropped the first result's data."""
    product = f"{NAME}/{VERSION}"
    return f"{product} ({REFETCH_MARK})" if refetch else product
