"""Route jobs: TomTom's gzip bodies decoded, built and fitted in one call, in a worker or inline."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import httpx
import numpy as np
import orjson
import pytest

from tests.server.harness import LISBON, MADRID, WARSAW
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.config import OFFLINE_BASE_URL
from tomtom_mcp_apps.server.errors import BodyError, NoRoute
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.pool import FitPool, Placement
from tomtom_mcp_apps.server.tomtom import TomTomClient

BUDGET = 120_000


@pytest.fixture
async def tomtom() -> AsyncIterator[TomTomClient]:
    tomtom = TomTomClient(
        httpx.ASGITransport(app=build_upstream_app()), OFFLINE_BASE_URL, default_key=None
    )
    yield tomtom
    await tomtom.aclose()


async def test_a_long_route_arrives_gzipped_and_its_size_is_known_before_decoding(
    tomtom: TomTomClient,
) -> None:
    raw = await tomtom.calculate_route_raw([LISBON, WARSAW], key=None)
    assert raw.encoding == "gzip"
    decoded = raw.decoded()
    assert raw.size == len(decoded) > 5 * len(raw.content)
    assert Placement(None).for_bodies([raw]) == raw.size
    (route,) = jobs.routes_of(raw)
    assert len(route["legs"][0]["points"]) == len(
        orjson.loads(decoded)["routes"][0]["legs"][0]["points"]
    )


async def test_a_job_in_a_worker_gives_exactly_the_result_of_the_same_job_inline(
    tomtom: TomTomClient,
) -> None:
    # Lisbon-Warsaw: long enough to need fitting (Madrid-Warsaw goes as is).
    raw = await tomtom.calculate_route_raw([LISBON, WARSAW], key=None)
    inline = jobs.routing(raw, [LISBON, WARSAW], True, BUDGET)
    pool = FitPool(workers=1)
    pool.start()
    try:
        pooled = await pool.run_in_process(jobs.routing, raw, [LISBON, WARSAW], True, BUDGET)
    finally:
        pool.close()
    # Every result has a fresh viewUUID; everything else is the same.
    assert pooled.meta["viewUUID"] != inline.meta["viewUUID"]
    assert dataclasses.replace(pooled, fit_ms=0, meta={**pooled.meta, "viewUUID": ""}) == (
        dataclasses.replace(inline, fit_ms=0, meta={**inline.meta, "viewUUID": ""})
    )
    assert inline.outcome == "fitted"
    assert fitting.decode(inline.meta[APP_DATA_KEY])["fitted"]["original_points"] > 30_000


def test_bodies_that_are_not_routes_fail_with_a_message_for_the_model() -> None:
    with pytest.raises(BodyError, match="corrupt gzip"):
        jobs.routes_of(RawBody(b"\x1f\x8b\x08\x00 not really gzip", "gzip"))
    with pytest.raises(BodyError, match="unrequested encoding"):
        jobs.routes_of(RawBody(b"...", "br"))
    with pytest.raises(BodyError, match="not JSON"):
        jobs.routes_of(RawBody(b"<html>proxy</html>"))
    with pytest.raises(NoRoute, match="found no route"):
        jobs.routes_of(RawBody(b'{"routes": []}'))


async def test_a_map_names_the_route_whose_body_failed(tomtom: TomTomClient) -> None:
    good = await tomtom.calculate_route_raw([MADRID, LISBON], key=None)
    routes = [jobs.DrawnRoute([MADRID, LISBON], "A", None)] * 2
    with pytest.raises(NoRoute, match=r"^routes\[1\]: TomTom found no route"):
        jobs.dynamic_map([good, RawBody(b'{"routes": []}')], routes, {}, [], None, True, BUDGET)


async def test_search_along_route_posts_every_route_point_as_lat_lon(tomtom: TomTomClient) -> None:
    raw = await tomtom.calculate_route_raw([MADRID, LISBON], key=None)
    (route,) = jobs.routes_of(raw)
    line = np.concatenate([leg["points"] for leg in route["legs"]])
    body = jobs.along_route_request(raw)
    assert body.encoding == "gzip"
    points = orjson.loads(body.decoded())["route"]["points"]
    assert len(points) == len(line) > 1000
    assert points[0] == {"lat": line[0, 1], "lon": line[0, 0]}
    assert points[-1] == {"lat": line[-1, 1], "lon": line[-1, 0]}
