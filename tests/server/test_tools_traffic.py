"""Traffic: incidents as text, worst first, and no app data (the widget draws live tiles)."""

from __future__ import annotations

import pytest

from tests.server.harness import tool_client

AMSTERDAM_BOX = [4.80, 52.30, 5.00, 52.42]


async def test_incidents_come_as_text_worst_first_without_app_data() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
    assert not outcome.is_error, outcome.text
    answer = outcome.answer
    assert answer["bbox"] == AMSTERDAM_BOX and answer["show_ui"] is True
    assert "tool" not in answer  # no app data: the widget draws the bbox of its tool input
    assert "com.tomtom/app-data" not in outcome.meta
    assert answer["count"] >= 1
    order = ["major", "undefined", "moderate", "minor", "unknown"]
    ranks = [order.index(i["magnitude"]) for i in answer["incidents"]]
    assert ranks == sorted(ranks)
    first = answer["incidents"][0]
    assert first["category"] and first["description"]


async def test_the_bbox_may_be_given_as_tomtom_mcp_text() -> None:
    async with tool_client() as tools:
        as_list = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
        as_text = await tools.call("tomtom-traffic", {"bbox": "4.80,52.30,5.00,52.42"})
    assert as_text.answer["incidents"] == as_list.answer["incidents"]


async def test_max_incidents_bounds_the_answer_and_says_how_many_were_left_out() -> None:
    async with tool_client() as tools:
        full = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX})
        short = await tools.call("tomtom-traffic", {"bbox": AMSTERDAM_BOX, "maxIncidents": 1})
    assert len(short.answer["incidents"]) == 1
    assert short.answer["incidents_omitted"] == full.answer["count"] - 1


@pytest.mark.parametrize(
    ("bbox", "message"),
    [
        ([4.8, 52.3, 5.0], "bbox needs four numbers"),
        ([5.0, 52.3, 4.8, 52.4], "min < max"),
        ([4.8, 95, 5.0, 96], "bbox minLat 95.0 is outside [-90, 90]"),
        ("4.8;52.3;5.0;52.4", "is not 'minLon,minLat,maxLon,maxLat'"),
        ([0, 40, 10, 50], "TomTom allows at most 10,000 km²"),
    ],
)
async def test_a_bad_bbox_gets_an_error_saying_what_is_wrong(bbox: object, message: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-traffic", {"bbox": bbox})
    assert outcome.is_error
    assert message in outcome.text


async def test_an_unknown_incident_category_is_refused() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-traffic", {"bbox": AMSTERDAM_BOX, "categoryFilter": [1, 12]}
        )
    assert outcome.is_error and "unknown incident categories [12]" in outcome.text
