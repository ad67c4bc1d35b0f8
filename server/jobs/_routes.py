"""Routing, search-along-route and dynamic-map results, from TomTom's bodies as received.

Decoding, the model's answer, the view's features and fitting happen in one call, which
runs in a fitting worker for long routes: the loop moves only compressed bytes in and a
finished result out (docs/runtime.md). Pure and picklable; imports no MCP server code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from tomtom_mcp_apps.server.bodies import (
    Dropped,
    RawBody,
    json_object,
    obj,
    parsed,
    plain_json,
    request_body,
    required_list,
    split_route_body,
)
from tomtom_mcp_apps.server.errors import BadAnswer, BodyError, NoRoute
from tomtom_mcp_apps.server.jobs._features import (
    checked_route,
    collection,
    route_answer,
    route_feature,
    route_line,
    search_results,
    waypoint_features,
)
from tomtom_mcp_apps.server.jobs._image import ALTERNATIVE, ImageRequest
from tomtom_mcp_apps.server.jobs._result import Prepared, prepare
from tomtom_mcp_apps.server.ops import tracing
from tomtom_mcp_apps.server.tool_names import DYNAMIC_MAP, ROUTING, SEARCH_ALONG_ROUTE

_ROUTE_MEMBERS_LEVEL = 4
"""How deep a route's members copied to the view sit in its body, at the least (body,
`routes`, the route, its `summary`): where `plain_json` judges from."""


def routes_of(
    raw: RawBody, dropped: Dropped | None = None, name: str = "routes"
) -> list[dict[str, Any]]:
    """TomTom's routes in a calculateRoute body, checked (`route_body`)."""
    return route_body(raw, dropped, name)[1]


def route_body(
    raw: RawBody, dropped: Dropped | None = None, name: str = "routes"
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the decoded body, its routes checked by `checked_routes`)."""
    with tracing.span("decode", attributes={"job.decoded_bytes": raw.size}):
        body, text = parsed(raw, split_route_body)
        body = json_object(body)
    return body, checked_routes(body, text, dropped, name)


def checked_routes(
    body: dict[str, Any], text: bytes, dropped: Dropped | None = None, name: str = "routes"
) -> list[dict[str, Any]]:
    """The routes of the calculateRoute `body` parsed from `text` (`split_route_body`),
    checked by `checked_route`: leg points as float64 `[lon, lat]` arrays, index-bearing
    entries that fall off the line dropped; every answer check a route job makes.

    A malformed alternative route is dropped and counted in `dropped`; when no route is
    usable, the first route's fault is the error. `name` is how the error and the counts
    name the routes (a dynamic map's `routes[3]` is one of its inputs)."""
    dropped = dropped if dropped is not None else Dropped()
    listed = required_list(body, "routes")
    if not listed:
        raise NoRoute("TomTom found no route between these locations.")
    as_parsed = plain_json(text, _ROUTE_MEMBERS_LEVEL)
    routes: list[dict[str, Any]] = []
    faults: list[BadAnswer] = []
    for i, route in enumerate(listed):
        within = Dropped()  # a route dropped whole is counted once, not by its parts
        try:
            routes.append(checked_route(route, f"{name}[{i}]", within, as_parsed=as_parsed))
        except BadAnswer as exc:
            faults.append(exc)
            continue
        for where, count in within.counts.items():
            dropped.add(where, count)
    if not routes:
        raise faults[0]
    dropped.add(name, len(faults))
    return routes


def visiting_order(body: dict[str, Any], stops: int) -> list[int] | None:
    """The given locations' indices in the order the route visits them, from TomTom's
    `optimizedWaypoints` (which number the intermediate stops only), or None."""
    optimized = body.get("optimizedWaypoints")
    if not optimized:
        return None
    if not isinstance(optimized, list):
        raise BadAnswer("optimizedWaypoints", "not a list")
    middle = [0] * (stops - 2)
    for i, entry in enumerate(optimized):
        provided, position = obj(entry).get("providedIndex"), obj(entry).get("optimizedIndex")
        if not (isinstance(provided, int) and isinstance(position, int)):
            raise BadAnswer(f"optimizedWaypoints[{i}]", "providedIndex or optimizedIndex missing")
        if not (0 <= provided < stops - 2 and 0 <= position < stops - 2):
            raise BadAnswer(f"optimizedWaypoints[{i}]", "names a stop that was not given")
        middle[position] = provided + 1
    if sorted(middle) != list(range(1, stops - 1)):
        raise BadAnswer("optimizedWaypoints", "does not visit every stop exactly once")
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
    dropped = Dropped()
    body, routes = route_body(raw, dropped)
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
    return prepare(ROUTING, dropped.report(answer), data, show_ui, budget, image)


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
    line = route_line(routes_of(raw)[0])
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
    dropped = Dropped()
    route = routes_of(raw, dropped)[0]
    items, results = search_results(required_list(found, "results"), dropped)
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
    return prepare(SEARCH_ALONG_ROUTE, dropped.report(answer), data, show_ui, budget)


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
    dropped = Dropped()
    for i, body in enumerate(bodies):
        try:
            calculated.append(routes_of(body, dropped, f"routes[{i}].routes")[0])
        except BodyError as exc:
            exc.args = (f"routes[{i}]: {exc}",)
            raise
    answer_routes = []
    for i, (spec, route) in enumerate(zip(routes, calculated, strict=True)):
        summary = route_answer(route, i)
        summary.pop("instructions", None)
        summary.pop("instructions_omitted", None)
        answer_routes.append({"label": spec.label, **summary})
    answer = dropped.report({**answer, "routes": answer_routes})
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
