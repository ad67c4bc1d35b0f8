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
from server.jobs._result import Prepared, prepare
from server.tomtom import BodyError, RawBody, loads, parse_route_body, request_body
from server.tool_names import DYNAMIC_MAP, ROUTING, SEARCH_ALONG_ROUTE


class NoRoute(BodyError):
    """TomTom answered, but with no route."""


def routes_of(raw: RawBody) -> list[dict[str, Any]]:
    """TomTom's routes in a calculateRoute body; leg points as float64 `[lon, lat]` arrays."""
    routes = loads(raw, parse_route_body).get("routes") or []
    if not routes:
        raise NoRoute("TomTom found no route between these locations.")
    return routes


def routing(raw: RawBody, locations: list[list[float]], show_ui: bool, budget: int) -> Prepared:
    """`tomtom-routing`: every route with its legs, sections, guidance and progress."""
    routes = routes_of(raw)
    answer = {
        "locations": len(locations),
        "routes": [route_answer(route, i) for i, route in enumerate(routes)],
    }
    data = None  # without a widget the lines are never converted (up to 100,000 points)
    if show_ui:
        features = [route_feature(route, i) for i, route in enumerate(routes)]
        features += waypoint_features(locations)
        data = collection(features, summary={"routes": len(routes)})
    return prepare(ROUTING, answer, data, show_ui, budget)


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
    data = None  # without a widget the route lines are never converted
    if show_ui:
        lines: list[dict[str, Any]] = []
        for i, (spec, route) in enumerate(zip(routes, calculated, strict=True)):
            lines.append(
                route_feature(route, i, guidance=False, label=spec.label, color=spec.color)
            )
            lines += waypoint_features(spec.locations)
        data = collection(lines + features, title=title)
    return prepare(DYNAMIC_MAP, answer, data, show_ui, budget)
