"""`tomtom-snap-to-roads` in process: a trace as points, GPX or GeoJSON matched to roads,
long ones split into several requests, bad traces refused in plain words."""

from __future__ import annotations

import httpx
import orjson
import pytest

from tests.server.harness import assert_model_text, coordinate_lists, tool_client
from tomtom_mcp_apps.server.offline import build_upstream_app

TOOL = "tomtom-snap-to-roads"


def points(n: int, step: float = 0.0002, seconds: float = 1.0) -> list[dict]:
    return [
        {
            "position": [4.89 + i * step, 52.37 + i * step / 2],
            "timestamp": 1_714_552_200 + i * seconds,
        }
        for i in range(n)
    ]


async def test_a_timed_trace_answers_distance_roads_and_time_over_the_limit() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(TOOL, {"points": points(400)})
    answer = assert_model_text(outcome, TOOL)
    assert answer["points"] == 400 and answer["matched_share"] == 1.0
    assert answer["distance_km"] == pytest.approx(6.9, abs=0.3)
    assert answer["duration_min"] == 6.7, "399 s, to a tenth of a minute"
    assert answer["roads"] and all(r["km"] > 0 for r in answer["roads"])
    assert "seconds_over_limit" in answer["speeding"]
    kinds = {f["properties"]["kind"] for f in outcome.envelope["data"]["features"]}
    assert kinds == {"trace", "snapped"}
    assert coordinate_lists(answer) == []


async def test_a_long_trace_is_sent_in_several_requests_and_joined() -> None:
    seen: list[httpx.Request] = []
    app = httpx.ASGITransport(app=build_upstream_app(slow_answer_s=2.0))

    async def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return await app.handle_async_request(request)

    async with tool_client(transport=httpx.MockTransport(record)) as tools:
        outcome = await tools.call(TOOL, {"points": points(11_000, step=0.00002)})
    answer = assert_model_text(outcome, TOOL)
    sizes = [len(orjson.loads(r.content)["points"]) for r in seen if r.url.path == "/snapToRoads/1"]
    assert sizes == [5000, 5000, 1002] and answer["tomtom_requests"] == 3
    assert answer["matched_share"] == 1.0


async def test_a_gpx_trace_is_snapped() -> None:
    fixes = "".join(
        f'<trkpt lat="{52.37 + i * 0.0001}" lon="{4.89 + i * 0.0002}">'
        f"<time>2024-05-01T08:{30 + i // 60}:{i % 60:02d}Z</time></trkpt>"
        for i in range(120)
    )
    gpx = f'<gpx version="1.1"><trk><trkseg>{fixes}</trkseg></trk></gpx>'
    async with tool_client() as tools:
        outcome = await tools.call(TOOL, {"gpx": gpx})
    answer = assert_model_text(outcome, TOOL)
    assert answer["points"] == 120 and answer["started"] == "2024-05-01T08:30:00Z"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({}, "give exactly one of points, data_url (GPX or GeoJSON), gpx or geojson"),
        ({"points": points(3), "gpx": "<gpx/>"}, "got points, gpx"),
        ({"gpx": '<gpx><trk><trkseg><trkpt lat="52" lon="4"/></trkseg></trk></gpx>'},
         "at least 2 points"),
        (
            {"points": [{"position": [4.89, 52.37], "timestamp": "2024-05-01T08:30:05Z"},
                        {"position": [4.891, 52.37], "timestamp": "2024-05-01T08:30:00Z"}]},
            "timestamps out of order: point 2 (2024-05-01T08:30:00Z) comes before point 1",
        ),
        ({"points": [{"position": [4.0, 52.0]}, {"position": [5.0, 52.0]}]},
         "more than 5 km apart"),
        ({"geojson": {"type": "Polygon", "coordinates": []}}, "holds no trace"),
    ],
)  # fmt: skip
async def test_a_trace_that_cannot_be_snapped_is_refused_in_plain_words(
    arguments: dict, said: str
) -> None:
    async with tool_client() as tools:
        outcome = await tools.call(TOOL, arguments)
    assert outcome.is_error and said in outcome.text, outcome.text
