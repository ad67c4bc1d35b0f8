"""TomTom answers as TomTom documents them, and mutated every way a broken upstream could.

The fixtures (`tests/fixtures/tomtom/`, sources in its README) are TomTom's own shapes,
for every endpoint a tool reads (routing, search, reachable range, traffic, EV search
and charging availability, Long Distance EV Routing, geometry search, POI categories),
so these tests do not merely agree with the offline upstream, which shares the client's
assumptions. Property tests then mutate them (nulls, wrong types, removals, huge
numbers, deep nesting, duplicates) and check what a user relies on: every call ends in
a result or in a tool error that says what was wrong, never a crash; every index in the
map data falls on the line sent; the same server keeps answering.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import os
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.fixtures.tomtom import documented
from tests.server.harness import (
    Outcome,
    ToolClient,
    features_of,
    line_of,
    tool_client,
)
from tomtom_mcp_apps.server import bodies, jobs
from tomtom_mcp_apps.server.errors import BadAnswer
from tomtom_mcp_apps.server.tomtom import FAMILIES

AMSTERDAM = [4.87489, 52.38686]
ZUID = [4.87487, 52.38553]
fixture = documented


CALL_TIMEOUT_S = 60.0


class Served:
    """One server, in process on an event loop of its own thread, for the whole module: every
    example, however hostile, is answered by the same server. TomTom is stood in for by a
    transport that answers each request with the body set for its endpoint (`bodies`, by
    the first `ENDPOINTS` entry whose text is in the path; the tool's own answer else)."""

    def __init__(self) -> None:
        self.bodies: dict[str, bytes] = {}
        self._loop = asyncio.new_event_loop()
        self._client: ToolClient | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._stop = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        if not self._ready.wait(CALL_TIMEOUT_S):
            raise TimeoutError("the in-process server did not start")

    def _answer(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        name = next((n for n, text in ENDPOINTS.items() if text in path), "")
        body = self.bodies.get(name, self.bodies.get("", b"{}"))
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    async def _serve(self) -> None:
        transport = httpx.MockTransport(self._answer)
        self._closing = asyncio.Event()
        unpaced = tuple((family.name, 10_000.0) for family in FAMILIES)  # not what is tested
        async with tool_client(
            key="fixture-key", transport=transport, tomtom_qps=unpaced
        ) as client:
            self._client = client
            self._ready.set()
            await self._closing.wait()

    def call(self, name: str, body: Any) -> Outcome:
        """The tool of fixture `name`, called while TomTom answers with `body` where that
        fixture's endpoint is asked, and with the documented answers everywhere else."""
        assert self._client is not None
        tool, arguments = CALLS[name]
        bodies = {"": body} if name not in ENDPOINTS else {name: body}
        for other in ANSWERED_WITH.get(name, ()):
            bodies.setdefault("" if other not in ENDPOINTS else other, fixture(other))
        # json, not orjson: big integers, NaN and Infinity as written
        self.bodies = {k: json.dumps(v).encode() for k, v in bodies.items()}
        done = asyncio.run_coroutine_threadsafe(self._client.call(tool, arguments), self._loop)
        return done.result(CALL_TIMEOUT_S)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._closing.set)
        self._stop.result(CALL_TIMEOUT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CALL_TIMEOUT_S)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served()
    yield server
    server.close()


CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "calculate_route": ("tomtom-routing", {"locations": [AMSTERDAM, ZUID]}),
    "fuzzy_search": ("tomtom-fuzzy-search", {"query": "hotel"}),
    "reachable_range": (
        "tomtom-reachable-range",
        {"origin": [4.87554, 52.38121], "timeBudgetInSec": 900},
    ),
    "incident_details": ("tomtom-traffic", {"bbox": [4.85, 52.34, 4.95, 52.40]}),
    "ev_search": ("tomtom-ev-search", {"position": [4.88381, 52.37506], "radius": 3000}),
    "charging_availability": ("tomtom-ev-search", {"position": [4.88381, 52.37506]}),
    "long_distance_ev_route": (
        "tomtom-ev-routing",
        {
            "origin": [13.405, 52.52],
            "destination": [8.58, 53.55],
            "maxChargeInkWh": 60,
            "currentChargePercent": 80,
        },
    ),
    "geometry_search": (
        "tomtom-area-search",
        {"query": "charging", "center": [2.33, 48.84], "radius": 2000},
    ),
    "poi_categories": ("tomtom-poi-categories", {"filter": "e"}),
    "matrix_sync": (
        "tomtom-matrix",
        {"origins": [AMSTERDAM, ZUID], "destinations": [[4.89, 52.37], [5.12, 52.09]]},
    ),
}
"""Each fixture, and the call that reads it."""

ENDPOINTS: dict[str, str] = {"charging_availability": "/chargingAvailability"}
"""Fixtures answered only where their endpoint is asked, when a call asks two endpoints."""

ANSWERED_WITH: dict[str, tuple[str, ...]] = {
    "ev_search": ("charging_availability",),
    "charging_availability": ("ev_search",),
}
"""The documented answers the other endpoints of a call get while one is mutated."""


# --- the documented shapes, read right -------------------------------------------------------


def test_tomtoms_route_answer_is_drawn_with_every_index_on_its_vertex(served: Served) -> None:
    outcome = served.call("calculate_route", fixture("calculate_route"))
    assert not outcome.is_error, outcome.text
    (route,) = outcome.answer["routes"]
    assert route["length_km"] == 3.26 and route["traffic_delay_s"] == 269
    assert route["instructions"][1] == "Turn right onto Gosschalklaan"
    sections = route["sections"]
    assert sections["COUNTRY"] == {"count": 1, "length_km": 0.18, "countries": ["NLD"]}
    assert sections["TRAFFIC"]["delay_s"] == 210 and sections["TRAFFIC"]["worst_magnitude"] == 3
    assert bodies.DROPPED_KEY not in outcome.answer
    (feature,) = features_of(outcome.envelope, "route")
    line = line_of(feature)
    assert len(line) == 12 and line[0] == pytest.approx(AMSTERDAM)
    props = feature["properties"]
    assert [s["sectionType"] for s in props["sections"]][-1] == "TRAFFIC"
    for instruction in props["guidance"]["instructions"]:
        point = instruction["point"]
        assert line[instruction["pointIndex"]] == pytest.approx(
            [point["longitude"], point["latitude"]], abs=2e-5
        )


def test_sections_past_the_last_progress_point_get_their_length_from_the_geometry(
    served: Served,
) -> None:
    full = served.call("calculate_route", fixture("calculate_route"))
    short = fixture("calculate_route")
    short["routes"][0]["progress"] = short["routes"][0]["progress"][:3]  # ends at point 3
    cut = served.call("calculate_route", short)
    before = full.answer["routes"][0]["sections"]
    after = cut.answer["routes"][0]["sections"]
    assert after["TOLL"]["length_km"] > 0  # points 10-11, long past the last progress point
    for kind in ("URBAN", "TOLL", "COUNTRY", "TRAFFIC"):
        assert after[kind]["length_km"] == pytest.approx(before[kind]["length_km"], abs=0.01)


def test_tomtoms_search_answer_lists_every_place_with_its_position(served: Served) -> None:
    outcome = served.call("fuzzy_search", fixture("fuzzy_search"))
    assert not outcome.is_error, outcome.text
    names = [r["name"] for r in outcome.answer["results"]]
    assert names == ["The James Apartments", "Hyatt"]
    assert outcome.answer["results"][1]["position"] == [-121.89103, 37.33661]
    assert outcome.answer["results"][0]["category"] == "hotel"
    assert outcome.answer["total_available"] == 1528897
    assert len(features_of(outcome.envelope, "result")) == 2


def test_tomtoms_reachable_range_is_drawn_as_a_closed_ring(served: Served) -> None:
    outcome = served.call("reachable_range", fixture("reachable_range"))
    assert not outcome.is_error, outcome.text
    assert outcome.answer["boundary_points"] == 6  # five, closed
    assert outcome.answer["extent"] == [4.85408, 52.42492, 4.89336, 52.47541]
    (area,) = features_of(outcome.envelope, "range")
    assert area["geometry"]["type"] == "Polygon"


def test_a_null_incident_is_dropped_and_counted_and_the_rest_described(served: Served) -> None:
    outcome = served.call("incident_details", fixture("incident_details"))
    assert not outcome.is_error, outcome.text
    answer = outcome.answer
    assert answer["count"] == 4
    assert answer[bodies.DROPPED_KEY] == {"incidents": 1}
    accident, closed = answer["incidents"][:2]  # worst first: major, then undefined (closures)
    assert accident["category"] == "accident" and accident["magnitude"] == "major"
    assert closed["category"] == "road closed" and closed["magnitude"] == "undefined"
    assert accident["description"] == "Multi-vehicle accident"
    assert accident["delay_s"] == 900 and accident["roads"] == ["A10"]
    unknown = next(i for i in answer["incidents"] if i.get("id") == "inc-003")
    assert unknown["category"] == "unknown"


def test_tomtoms_ev_search_and_availability_answers_give_stations_with_live_counts(
    served: Served,
) -> None:
    outcome = served.call("ev_search", fixture("ev_search"))
    assert not outcome.is_error, outcome.text
    vattenfall, fastned = outcome.answer["stations"]
    assert vattenfall["operator"] == "Vattenfall InCharge"
    assert vattenfall["availability"] == {"free": 1, "occupied": 1}  # its points' status
    assert fastned["availability"] == {"free": 1, "occupied": 3, "out_of_service": 1}
    assert fastned["max_power_kw"] == 300.0
    assert [s["properties"]["state"] for s in features_of(outcome.envelope, "station")] == [
        "free",
        "free",
    ]
    assert bodies.DROPPED_KEY not in outcome.answer


def test_tomtoms_long_distance_ev_route_puts_each_charging_stop_on_its_leg_end(
    served: Served,
) -> None:
    outcome = served.call("long_distance_ev_route", fixture("long_distance_ev_route"))
    assert not outcome.is_error, outcome.text
    (stop,) = outcome.answer["charging_stops"]
    assert stop["name"] == "IONITY Hamburg-Stellingen" and stop["charging_minutes"] == 34
    assert outcome.answer["arrival_charge_kwh"] == 18.1
    (route,) = features_of(outcome.envelope, "route")
    (marker,) = features_of(outcome.envelope, "charging_stop")
    line = line_of(route)
    assert line[0] == pytest.approx([13.405, 52.52]) and line[-1] == pytest.approx([8.58, 53.55])
    end = route["properties"]["legs"][0]["endPointIndex"]
    assert line[end] == pytest.approx(marker["geometry"]["coordinates"]) == [9.9, 53.0]


def test_tomtoms_geometry_search_answer_lists_places_inside_the_area(served: Served) -> None:
    outcome = served.call("geometry_search", fixture("geometry_search"))
    assert not outcome.is_error, outcome.text
    names = [r["name"] for r in outcome.answer["results"]]
    assert names == ["Saemes 14ème Arrondissement Rue Saillard", "Guy Martin Italia", "London"]
    assert len(features_of(outcome.envelope, "area")) == 1
    assert len(features_of(outcome.envelope, "result")) == 3


def test_tomtoms_poi_categories_are_listed_with_their_children(served: Served) -> None:
    outcome = served.call("poi_categories", fixture("poi_categories"))
    assert not outcome.is_error, outcome.text
    sports = outcome.answer["categories"][0]
    assert sports == {
        "id": 7320,
        "name": "Sports Center",
        "synonyms": ["Fitness Club", "Gym", "Sports Hall"],
        "children": [7320002, 7320003, 7320005],
    }
    assert outcome.answer["count"] == 3


def test_a_route_point_that_is_not_a_position_fails_naming_it(served: Served) -> None:
    body = fixture("calculate_route")
    body["routes"][0]["legs"][0]["points"][5] = {"latitude": "52.3", "longitude": 4.87}
    outcome = served.call("calculate_route", body)
    assert outcome.is_error
    assert "routes[0].legs[0].points[5]" in outcome.text


def test_a_malformed_alternative_is_dropped_and_the_good_route_drawn(served: Served) -> None:
    body = fixture("calculate_route")
    broken = copy.deepcopy(body["routes"][0])
    broken["legs"][0]["points"] = None
    body["routes"].append(broken)
    body["routes"][0]["sections"].append({"startPointIndex": 3, "endPointIndex": 400})
    outcome = served.call("calculate_route", body)
    assert not outcome.is_error, outcome.text
    assert len(outcome.answer["routes"]) == 1
    assert outcome.answer[bodies.DROPPED_KEY] == {"routes": 1, "routes[0].sections": 1}


def test_results_that_are_not_a_list_fail_naming_the_field(served: Served) -> None:
    outcome = served.call("fuzzy_search", {"results": {"0": "hotel"}})
    assert outcome.is_error
    assert "results: expected a list" in outcome.text


# --- mutated shapes ---------------------------------------------------------------------------


def _paths(node: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*path, i))


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


REPLACEMENTS: dict[str, Any] = {
    "null": None,
    "string": "12.5",
    "boolean": True,
    "huge": 10**30,
    "huge float": 1e308,
    "not a number": math.nan,
    "negative": -1,
    "fraction": 0.5,
    "object": {"nested": {"deeper": [None]}},
    "list": [None, 3, "x"],
    "empty list": [],
    "empty object": {},
    "deep": _deep(300),
}


@st.composite
def mutated(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """The fixture `name` with one to three of its nodes replaced, removed or duplicated."""
    doc: Any = fixture(name)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(doc))))
        kind = draw(st.sampled_from([*REPLACEMENTS, "remove", "duplicate"]))
        if not path:
            if kind in REPLACEMENTS:
                doc = copy.deepcopy(REPLACEMENTS[kind])
            continue
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if kind == "remove":
            del parent[last]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif kind in REPLACEMENTS:
            parent[last] = copy.deepcopy(REPLACEMENTS[kind])
    return doc


def assert_answered_or_explained(outcome: Outcome, tool: str) -> None:
    """A result, or a tool error whose message says what went wrong (a crash reads only
    'Error executing tool <name>')."""
    if outcome.is_error:
        assert re.fullmatch(rf"Error executing tool {tool}: .{{10,}}", outcome.text, re.S), (
            outcome.text
        )
        return
    assert outcome.answer is not None, outcome.text
    if jobs.APP_DATA_KEY in outcome.meta:
        assert_indices_on_the_line(outcome.envelope)


def assert_indices_on_the_line(envelope: dict[str, Any]) -> None:
    for feature in features_of(envelope, "route"):
        last = len(line_of(feature)) - 1
        props = feature["properties"]
        for leg in props["legs"]:
            assert 0 <= leg["startPointIndex"] < leg["endPointIndex"] <= last
        for section in props["sections"]:
            assert 0 <= section["startPointIndex"] <= section["endPointIndex"] <= last
        for entry in [
            *props.get("progress", []),
            *props.get("guidance", {}).get("instructions", []),
        ]:
            if "pointIndex" in entry:
                assert 0 <= entry["pointIndex"] <= last


FULL = os.environ.get("CI") == "true" or os.environ.get("HOSTILE_EXAMPLES") is not None
"""CI (which sets CI=true) mutates every fixture 150 times; a local run 40 times, unless
HOSTILE_EXAMPLES says how many (each example is two calls through the whole server)."""
HOSTILE = settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES") or 150) if FULL else 40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.mark.parametrize("name", list(CALLS))
@HOSTILE
@given(data=st.data())
def test_a_mutated_answer_is_answered_or_explained_and_the_server_keeps_serving(
    served: Served, name: str, data: st.DataObject
) -> None:
    body = data.draw(mutated(name))
    outcome = served.call(name, body)
    assert_answered_or_explained(outcome, CALLS[name][0])
    again = served.call(name, fixture(name))
    assert not again.is_error, again.text


# --- values JSON cannot carry, handed to the jobs directly -----------------------------------


NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


@given(
    where=st.sampled_from(["point", "summary", "section", "progress", "score"]),
    value=NON_FINITE,
)
@example(where="point", value=math.nan)
def test_non_finite_numbers_never_reach_the_map_data_or_the_text(where: str, value: float) -> None:
    body = fixture("calculate_route")
    route = body["routes"][0]
    if where == "point":
        route["legs"][0]["points"][4]["latitude"] = value
    elif where == "summary":
        route["summary"]["lengthInMeters"] = value
    elif where == "section":
        route["sections"][0]["startPointIndex"] = value
    elif where == "progress":
        route["progress"][2]["distanceInMeters"] = value
    dropped = bodies.Dropped()
    try:
        checked = jobs.checked_route(route, "routes[0]", dropped)
    except BadAnswer as exc:
        assert where == "point" and "routes[0].legs[0].points[4]" in str(exc)
        return
    answer = jobs.route_answer(checked, 0)
    assert "nan" not in orjson.dumps(answer).decode().lower()
    prepared = jobs.prepare(
        "tomtom-routing", answer, jobs.collection([jobs.route_feature(checked, 0)]), True, 120_000
    )
    assert prepared.outcome == "as_is"
    results = [{"position": {"lat": value, "lon": 4.9}, "score": value, "poi": {"name": "x"}}]
    items, features = jobs.search_results(results)
    assert features == [] and "score" not in items[0]
