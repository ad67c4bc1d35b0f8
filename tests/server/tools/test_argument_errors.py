"""Every tool words a bad argument plainly (`server/tools/_arguments.py`): the field, what
is needed, and nothing of pydantic's report, in the tool result the model reads."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel, Field, ValidationError

from tests.server.harness import AMSTERDAM, UTRECHT, tool_client
from tomtom_mcp_apps.server.tools import TOOLS
from tomtom_mcp_apps.server.tools._arguments import explain_arguments

BAD_ARGUMENTS = [
    ("tomtom-geocode", {"query": ""}, "query: give at least 1 character, got 0"),
    ("tomtom-reverse-geocode", {"position": [4.9]}, "position: a position is two numbers"),
    (
        "tomtom-fuzzy-search",
        {"query": "cafe", "limit": 500},
        "limit: must be less than or equal to 100, got 500",
    ),
    ("tomtom-poi-search", {"query": 5}, "query: expected text, got the number 5"),
    (
        "tomtom-nearby",
        {"position": {"lat": 52.3}},
        "position: a position is [lon, lat] or {lat, lon}",
    ),
    (
        "tomtom-area-search",
        {"query": "cafe", "polygons": "Amsterdam"},
        "polygons: expected a list, got the text 'Amsterdam'",
    ),
    ("tomtom-ev-search", {"position": AMSTERDAM, "radius": -5}, "radius: must be greater than"),
    (
        "tomtom-ev-routing",
        {"origin": AMSTERDAM, "destination": UTRECHT},
        "maxChargeInkWh: required, but not given",
    ),
    (
        "tomtom-search-along-route",
        {"locations": [AMSTERDAM, UTRECHT]},
        "query: required, but not given",
    ),
    ("tomtom-routing", {"locations": [AMSTERDAM]}, "locations: give at least 2 positions, got 1"),
    (
        "tomtom-routing",
        {"locations": [AMSTERDAM, UTRECHT], "travelMode": "rocket"},
        "travelMode: use 'car', 'truck'",
    ),
    (
        "tomtom-routing",
        {"locations": [AMSTERDAM, UTRECHT], "language": "english!"},
        "language: 'english!' is not in the expected form",
    ),
    (
        "tomtom-routing",
        {"locations": [AMSTERDAM, UTRECHT], "show_ui": "maybe"},
        "show_ui: expected true or false, got the text 'maybe'",
    ),
    (
        "tomtom-reachable-range",
        {"origin": AMSTERDAM, "timeBudgetInSec": "long"},
        "timeBudgetInSec: expected a whole number",
    ),
    ("tomtom-traffic", {"bbox": [4.8, 52.3, 4.9]}, "bbox: bbox needs four numbers"),
    (
        "tomtom-matrix",
        {"origins": [[4.9, 152.3]]},
        "origins.0: latitude 152.3 is outside [-90, 90] (positions are [lon, lat])",
    ),
    (
        "tomtom-matrix",
        {"origins": [AMSTERDAM], "travelMode": "bicycle"},
        "travelMode: use 'car', 'truck' or 'pedestrian'; got 'bicycle'",
    ),
    (
        "tomtom-plan-routes",
        {
            "stops": [
                {
                    "position": UTRECHT,
                    "timeWindow": {
                        "start": "2026-06-24T12:00:00+02:00",
                        "end": "2026-06-24T09:00:00+02:00",
                    },
                }
            ],
            "vehicleCount": 1,
            "depot": AMSTERDAM,
        },
        "stops.0.timeWindow: ends (2026-06-24T09:00:00+02:00) before it starts",
    ),
    (
        "tomtom-plan-routes",
        {
            "stops": [{"position": UTRECHT, "serviceMinutes": -3}],
            "vehicleCount": 1,
            "depot": AMSTERDAM,
        },
        "stops.0.serviceMinutes: must be greater than or equal to 0",
    ),
    (
        "tomtom-dynamic-map",
        {"markers": [{"position": [4.9]}]},
        "markers.0.position: a position is two numbers, [lon, lat]; got 1",
    ),
    ("tomtom-data-viz", {"geojson": 12}, "geojson: expected an object or text, got the number 12"),
    ("tomtom-data-viz", {}, "give exactly one of data_url or geojson"),
    ("tomtom-poi-categories", {"limit": 0}, "limit: must be greater than or equal to 1, got 0"),
    (
        "tomtom-get-app-data",
        {"tool": "tomtom-data-viz", "arguments": {}, "page": {"from": -1, "to": 2, "digest": "d"}},
        "page.from: must be greater than or equal to 0, got -1",
    ),
    (
        "tomtom-get-app-data",
        {"tool": "tomtom-data-viz", "arguments": {"geojson": 12}},
        "arguments.geojson: expected an object or text",
    ),
    (
        "tomtom-report-app-status",
        {"tool": "tomtom-routing", "status": "maybe", "reason": "x"},
        "status: use 'ok' or 'error'; got 'maybe'",
    ),
    ("tomtom-get-map-config", {"layers": ["satellite"]}, "layers.0: use 'basemap'"),
    (
        "tomtom-refetch-app-data",
        {"tool": "tomtom-routing"},
        "arguments: required, but not given",
    ),
    ("tomtom-batch-geocode", {"addresses": "Damrak 1"}, "addresses: expected a list"),
    ("tomtom-batch-geocode", {}, "give exactly one of addresses (a list) or data_url"),
    (
        "tomtom-snap-to-roads",
        {"points": [{"position": AMSTERDAM}]},
        "points: give at least 2 items, got 1",
    ),
    (
        "tomtom-snap-to-roads",
        {"points": [{"position": AMSTERDAM, "heading": 400}, {"position": UTRECHT}]},
        "points.0.heading: must be less than or equal to 360",
    ),
    ("tomtom-job-result", {"job": ""}, "job: give at least 1 character, got 0"),
    ("tomtom-resume-job", {"job": "x", "page": {"from": -1, "to": 5}}, "page.from: must be"),
]
PYDANTIC = re.compile(
    r"validation error|input_value|input_type|type=|pydantic|https?://|Arguments\b|Value error"
)


def test_the_table_has_a_bad_argument_for_every_tool() -> None:
    assert {tool.name for tool in TOOLS} <= {tool for tool, _, _ in BAD_ARGUMENTS}


@pytest.mark.parametrize(("tool", "arguments", "message"), BAD_ARGUMENTS)
async def test_a_bad_argument_is_named_with_what_is_needed_and_no_pydantic_report(
    tool: str, arguments: dict, message: str
) -> None:
    async with tool_client(key="offline-500") as tools:
        outcome = await tools.call(tool, arguments)
    assert outcome.is_error
    assert outcome.text.startswith(f"Error executing tool {tool}: ")
    assert message in outcome.text
    assert not PYDANTIC.search(outcome.text), outcome.text
    assert "HTTP 500" not in outcome.text  # refused before any TomTom request


class Stops(BaseModel):
    stops: list[list[float]] = Field(min_length=2, max_length=3)
    note: str | dict[str, str] | None = None
    speed: int = Field(0, ge=0)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"stops": []}, "stops: give at least 2 items, got 0"),
        ({"stops": [[1, 2]] * 4}, "stops: give at most 3 positions, got 4"),
        (
            {"stops": [[1, 2], [3, 4]], "note": 7},
            "note: expected text or an object, got the number 7",
        ),
        ({"stops": "x" * 80}, "stops: expected a list, got the text '" + "x" * 40 + "...'"),
        (
            {"stops": [], "note": 1, "speed": -1, "more": 1},
            "stops: give at least 2 items, got 0; note: expected text or an object, got the "
            "number 1; speed: must be greater than or equal to 0, got -1",
        ),
    ],
)
def test_explain_names_each_field_once_and_cuts_what_it_quotes(given: dict, said: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Stops.model_validate(given)
    assert explain_arguments(caught.value) == said


def test_explain_counts_the_problems_past_the_fourth() -> None:
    class Five(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int

    with pytest.raises(ValidationError) as caught:
        Five.model_validate({})
    assert explain_arguments(caught.value).endswith("d: required, but not given; and 1 more")
