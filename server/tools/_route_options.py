"""The route options the routing tools share, as TomTom's calculateRoute query parameters.

Routing, search along a route, reachable range, EV routing and the dynamic map's
routes all take the same options (`_inputs.py` types them); `route_params` is
their one translation, so the tools agree on what an option sends.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

DEFAULT_SECTIONS: tuple[str, ...] = ("traffic", "tollRoad", "motorway", "tunnel", "country")
"""The sections a route reports when the caller names none."""


def route_params(
    *,
    routeType: str = "fastest",
    travelMode: str = "car",
    traffic: str = "live",
    avoid: list[str] | None = None,
    departAt: str | None = None,
    arriveAt: str | None = None,
    language: str | None = None,
    extra: list[tuple[str, Any]] | None = None,
) -> list[tuple[str, Any]]:
    """TomTom calculateRoute query parameters for the shared route options."""
    if departAt and arriveAt:
        raise ToolError("Give departAt or arriveAt, not both.")
    params: list[tuple[str, Any]] = [
        ("routeType", routeType),
        ("travelMode", travelMode),
        ("traffic", traffic == "live"),
    ]
    params += [("avoid", a) for a in avoid or ()]
    if departAt:
        params.append(("departAt", departAt))
    if arriveAt:
        params.append(("arriveAt", arriveAt))
    if language:
        params.append(("language", language))
    return params + (extra or [])
