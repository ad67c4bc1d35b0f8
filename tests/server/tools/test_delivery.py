"""App-data delivery: inline when it fits, fitted when not, and always under the budget."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest

from tests.fitting.support import synthetic_route
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, DATA_SOURCE_KEY, OFFLINE_NOTE, OMITTED_KEY
from tomtom_mcp_apps.server.pool import FitPool, Placement
from tomtom_mcp_apps.server.runtime import Runtime
from tomtom_mcp_apps.server.tools._delivery import deliver


@pytest.fixture
async def runtime() -> AsyncIterator[Runtime]:
    pool = FitPool(workers=1)
    pool.start()
    async with httpx.AsyncClient() as http:
        yield Runtime(
            settings=Settings(budget=120_000),
            tomtom=None,  # type: ignore[arg-type]  # delivery never calls TomTom
            downloads=http,
            pool=pool,
            placement=Placement(pool),
        )
    pool.close()


def route_data(points: int, *, sections: int = 6) -> dict:
    line = synthetic_route(points, seed=7)
    n = len(line)
    bounds = [round(i * (n - 1) / sections) for i in range(sections + 1)]
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": {"type": "LineString", "coordinates": line},
                "properties": {
                    "kind": "route",
                    "sections": [
                        {
                            "sectionType": "TRAFFIC",
                            "startPointIndex": a,
                            "endPointIndex": b,
                            "magnitudeOfDelay": 2,
                        }
                        for a, b in itertools.pairwise(bounds)
                    ],
                    "legs": [{"startPointIndex": 0, "endPointIndex": n - 1}],
                },
            }
        ],
    }


def wire_size(result) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": result.model_dump(by_alias=True, exclude_none=True),
    }
    return len(orjson.dumps(body))


async def test_a_short_route_rides_inline_as_is(runtime: Runtime) -> None:
    result = await deliver(
        runtime,
        tool="tomtom-routing",
        answer={"km": 12},
        data=route_data(800),
        show_ui=True,
        offline=False,
    )
    text = orjson.loads(result.content[0].text)
    assert text == {"km": 12, "show_ui": True, "tool": "tomtom-routing"}
    envelope = fitting.decode(result.meta[APP_DATA_KEY])
    assert envelope["v"] == 2 and envelope["tool"] == "tomtom-routing"
    assert envelope["fitted"] is None
    assert result.meta["show_ui"] is True and result.meta["tool"] == "tomtom-routing"


async def test_an_offline_answer_is_flagged_for_model_and_view_and_stays_under_the_budget(
    runtime: Runtime,
) -> None:
    result = await deliver(
        runtime, tool="tomtom-routing", answer={}, data=route_data(80_000), show_ui=True,
        offline=True,
    )  # fmt: skip
    assert wire_size(result) < runtime.settings.budget
    assert orjson.loads(result.content[0].text)["data_source"] == OFFLINE_NOTE
    assert result.meta[DATA_SOURCE_KEY] == "offline"
    assert fitting.decode(result.meta[APP_DATA_KEY])["fitted"] is not None


async def test_every_result_carries_its_own_view_uuid_for_the_views_stored_state(
    runtime: Runtime,
) -> None:
    results = [
        await deliver(
            runtime,
            tool="tomtom-routing",
            answer={},
            data=route_data(50),
            show_ui=ui,
            offline=False,
        )
        for ui in (True, True, False)
    ]
    uuids = [r.meta["viewUUID"] for r in results]
    assert len(set(uuids)) == 3
    uuid4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"
    assert all(re.fullmatch(uuid4, u) for u in uuids)
    assert all("viewUUID" not in r.content[0].text for r in results), "the model needs no view id"


async def test_an_80000_point_route_is_fitted_in_the_pool_under_the_budget(
    runtime: Runtime,
) -> None:
    data = route_data(80_000)
    result = await deliver(
        runtime, tool="tomtom-routing", answer={}, data=data, show_ui=True, offline=False
    )
    assert wire_size(result) < runtime.settings.budget
    envelope = fitting.decode(result.meta[APP_DATA_KEY])
    report = envelope["fitted"]
    assert report["original_points"] >= 70_000
    assert 1_000 < report["points"] < report["original_points"]
    route = envelope["data"]["features"][0]
    coords = fitting.to_geojson(route["geometry"])["coordinates"]
    assert len(coords) == report["points"]
    original = data["features"][0]["geometry"]["coordinates"]
    for before, after in zip(
        data["features"][0]["properties"]["sections"],
        route["properties"]["sections"],
        strict=True,
    ):
        for key in ("startPointIndex", "endPointIndex"):
            assert coords[after[key]] == pytest.approx(original[before[key]], abs=1e-5)


async def test_show_ui_false_sends_no_app_data(runtime: Runtime) -> None:
    result = await deliver(
        runtime,
        tool="tomtom-routing",
        answer={},
        data=route_data(500),
        show_ui=False,
        offline=False,
    )
    assert APP_DATA_KEY not in result.meta and OMITTED_KEY not in result.meta
    assert orjson.loads(result.content[0].text) == {"show_ui": False}


async def test_data_that_cannot_fit_is_omitted_with_a_reason_the_widget_can_show(
    runtime: Runtime,
) -> None:
    tiny = dataclasses.replace(runtime, settings=Settings(budget=10_000))
    data = route_data(20_000, sections=3_000)  # 3,000 anchored sections cannot fit 10,000 chars
    result = await deliver(
        tiny, tool="tomtom-routing", answer={}, data=data, show_ui=True, offline=False
    )
    assert APP_DATA_KEY not in result.meta
    assert result.meta[OMITTED_KEY].startswith("too_large:")
    assert "not shown" in orjson.loads(result.content[0].text)["map"]
