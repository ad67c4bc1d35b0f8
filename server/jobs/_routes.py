"""Routing, search-along-route and dynamic-map results, from TomTom's bodies as received.

A long route is megabytes of body, and ten of them make a 1,000,000-point map.
Decompressing and parsing them, building the model's answer and the widget's
features, and fitting those to the budget all happen in one call here, which
`server.pool.Placement` runs in a fitting worker for long routes: the
event loop then moves only compressed bytes in and one finished result (text and
at most a budget of app data) out, instead of pickling megabytes of arrays each
way and holding the GIL while it does. Short routes run the same code inline.
Pure and picklable; imports no MCP server code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from server.jobs._features import (
    collection,
    route_answer,
    route_feature,
    search_results,
    waypoint_features,
)
from server.jobs._image import ALTERNATIVE, ImageRequest
from server.jobs._result import Prepared, prepare
from server.tomtom import BodyError, RawBody, loads, parse_route_body, request_body
from server.tool_names import DYNAMIC_MAP, ROUTING, SEARCH_ALONG_ROUTE


class NoRoute(BodyError):
    """TomTom answered, but with no route."""


def route_body(raw: RawBody) -> dict[str, Any]:
    """A calculateRoute body with at least one route; leg points as `[lon, lat]` arrays."""
    body = loads(raw, parse_route_body)
    if not body.get("routes"):
        raise NoRoute("TomTom found no route between these locations.")
    return body


def routes_of(raw: RawBody) -> list[dict[str, Any]]:
    """TomTom's routes in a calculateRoute body; leg points as float64 `[lon, lat]` arrays."""
    return route_body(raw)["routes"]


def visiting_order(body: dict[str, Any], stops: int) -> list[int] | None:
    """The given locations' indices in the order the route visits them, from TomTom's
    `optimizedWaypoints` (which number the intermediate stops only), or None."""
    optimized = body.get("optimizedWaypoints")
    if not optimized:
        return None
    middle = [0] * (stops - 2)
    for entry in optimized:
        provided, position = entry.get("providedIndex"), entry.get("optimizedIndex")
        if not (isinstance(provided, int) and isinstance(position, int)):
            raise BodyError("TomTom answered with an unreadable optimizedWaypoints list.")
        if not (0 <= provided < stops - 2 and 0 <= position < stops - 2):
            raise BodyError("TomTom's optimizedWaypoints name a stop that was not given.")
        middle[position] = provided + 1
    if sorted(middle) != list(range(1, stops - 1)):
        raise BodyError("TomTom's optimizedWaypoints do not visit every stop exactly once.")
    return [0, *middle, stops - 1]


def routing(
    raw: RawBody,
    locations: list[list[float]],
    show_ui: bool,
    budget: int,
    image: ImageRequest | None = None,
) -> Prepared:
    """`tomtom-routing`: every route with its legs, sections, guidance and progress; the
    first is the route, the others alternatives, drawn as secondary lines."""
    body = route_body(raw)
    routes = body["routes"]
    answer: dict[str, Any] = {
        "locations": len(locations),
        "routes": [route_answer(route, i) for i, route in enumerate(routes)],
    }
    order = visiting_order(body, len(locations))
    stops = locations
    if order is not None:
        answer["optimized_order"] = " → ".join(map(str, order))
        answer["note"] = (
            "optimized_order gives the given locations' indices (0-based) in the order the "
            "route visits them; the legs follow that order."
        )
        stops = [locations[i] for i in order]
    data = None  # without a widget or image the lines are never converted (100,000 points)
    if show_ui or image is not None:
        features = [_drawn_route(route, i) for i, route in enumerate(routes)]
        labels = None
        if order is not None:
            labels = [_stop_label(n, given, len(order)) for n, given in enumerate(order)]
        features += waypoint_features(stops, labels)
        data = collection(features, summary={"routes": len(routes)})
    return prepare(ROUTING, answer, data, show_ui, budget, image)


def _drawn_route(route: dict[str, Any], index: int) -> dict[str, Any]:
    """The route with its guidance; an alternative as a grey secondary line without it
    (its turn-by-turn anchors would take budget from the route's own line)."""
    if index == 0:
        return route_feature(route, 0)
    return route_feature(
        route, index, guidance=False, alternative=True, color=ALTERNATIVE,
        label=f"Alternative {index}",
    )  # fmt: skip


def _stop_label(position: int, given: int, count: int) -> str:
    if position == 0:
        return "Start"
    if position == count - 1:
        return "End"
    return f"Stop {position} (location {given})"


def along_route_request(raw: RawBody) -> RawBody:
    """The searchAlongRoute POST body: the first route's points as TomTom's `{lat, lon}`,
    gzipped when large (`request_body`)."""
    line = route_feature(routes_of(raw)[0], 0, guidance=False)["geometry"]["coordinates"]
    points = [{"lat": y, "lon": x} for x, y in line.tolist()]
    return request_body(orjson.dumps({"route": {"points": points}}))


def along_route(
    raw: RawBody,
    found: dict[str, Any],
    locations: list[list[float]],
    query: str,
    show_ui: bool,
    budget: int,
) -> Prepared:
    """`tomtom-search-along-route`: the route, its stops and the places `found` along it."""
    route = routes_of(raw)[0]
    items, results = search_results(found.get("results") or [])
    answer: dict[str, Any] = {
        "query": query,
        "route": route_answer(route, 0),
        "count": len(items),
        "results": items,
    }
    if not items:
        answer["note"] = "Nothing found; try a larger maxDetourTime or a broader query."
    data = None
    if show_ui:
        features = [route_feature(route, 0), *waypoint_features(locations), *results]
        data = collection(features, summary={"query": query, "count": len(items)})
    return prepare(SEARCH_ALONG_ROUTE, answer, data, show_ui, budget)


@dataclass(frozen=True)
class DrawnRoute:
    """One route of a dynamic map: where it goes and how it is labelled."""

    locations: list[list[float]]
    label: str
    color: str | None


def dynamic_map(
    bodies: Sequence[RawBody],
    routes: Sequence[DrawnRoute],
    answer: dict[str, Any],
    features: list[dict[str, Any]],
    title: str | None,
    show_ui: bool,
    budget: int,
    image: ImageRequest | None = None,
) -> Prepared:
    """`tomtom-dynamic-map`: the first route of each body drawn without guidance, then
    `features` (the areas and markers); `answer` (their counts) gets the routes' figures."""
    calculated = []
    for i, body in enumerate(bodies):
        try:
            calculated.append(routes_of(body)[0])
        except BodyError as exc:
            raise type(exc)(f"routes[{i}]: {exc}") from None
    answer_routes = []
    for i, (spec, route) in enumerate(zip(routes, calculated, strict=True)):
        summary = route_answer(route, i)
        summary.pop("instructions", None)
        summary.pop("instructions_omitted", None)
        answer_routes.append({"label": spec.label, **summary})
    answer = {**answer, "routes": answer_routes}
    if title:
        answer["title"] = title
    data = None  # without a widget or image the route lines are never converted
    if show_ui or image is not None:
        lines: list[dict[str, Any]] = []
        for i, (spec, route) in enumerate(zip(routes, calculated, strict=True)):
            lines.append(
                route_feature(route, i, guidance=False, label=spec.label, color=spec.color)
            )
            lines += waypoint_features(spec.locations)
        data = collection(lines + features, title=title)
    return prepare(DYNAMIC_MAP, answer, data, show_ui, budget, image)
