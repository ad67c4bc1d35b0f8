"""The offline upstream's Matrix Routing v2: TomTom's shapes, limits and job lifecycle."""

from __future__ import annotations

import asyncio

import httpx
import orjson
import pytest

from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.offline._matrix import JOB_SECONDS

pytestmark = pytest.mark.asyncio


def body(origins: list[list[float]], destinations: list[list[float]] | None = None) -> bytes:
    def points(ps: list[list[float]]) -> list[dict]:
        return [{"point": {"latitude": lat, "longitude": lon}} for lon, lat in ps]

    return orjson.dumps(
        {
            "origins": points(origins),
            "destinations": points(destinations or origins),
            "options": {"travelMode": "car"},
        }
    )


def client() -> httpx.AsyncClient:
    transport = httpx.ASGITransport(build_upstream_app())
    return httpx.AsyncClient(transport=transport, base_url="http://upstream.test")


async def test_a_synchronous_matrix_has_a_cell_per_pair_and_its_statistics() -> None:
    async with client() as http:
        answer = await http.post("/routing/matrix/2", content=body([[4.89, 52.37], [5.12, 52.09]]))
    assert answer.status_code == 200
    matrix = answer.json()
    assert len(matrix["data"]) == 4
    cell = next(c for c in matrix["data"] if (c["originIndex"], c["destinationIndex"]) == (0, 1))
    assert cell["routeSummary"]["travelTimeInSeconds"] > 1800
    assert cell["routeSummary"]["lengthInMeters"] > 30_000
    assert matrix["statistics"] == {"totalCount": 4, "successes": 4, "failures": 0}


async def test_far_cells_of_a_large_synchronous_matrix_are_out_of_region() -> None:
    near = [[4.3 + 0.01 * i, 52.0] for i in range(10)]
    far = [[13.4, 52.5], *[[4.3 + 0.01 * i, 52.1] for i in range(10)]]  # 110 cells, Berlin
    async with client() as http:
        matrix = (await http.post("/routing/matrix/2", content=body(near, far))).json()
    codes = {c.get("detailedError", {}).get("code") for c in matrix["data"]}
    assert "OUT_OF_REGION" in codes
    assert matrix["statistics"]["failures"] == 10


async def test_a_synchronous_matrix_over_200_cells_is_refused_as_tomtom_refuses_it() -> None:
    points = [[4.3 + 0.001 * i, 52.0] for i in range(15)]
    async with client() as http:
        answer = await http.post("/routing/matrix/2", content=body(points))
    assert answer.status_code == 400
    assert answer.json()["detailedError"]["code"] == "MATRIX_TOO_LARGE"


async def test_a_job_is_accepted_then_its_result_is_404_until_completed_then_redirected() -> None:
    points = [[4.3 + 0.01 * i, 52.0] for i in range(30)]
    async with client() as http:
        submitted = await http.post("/routing/matrix/2/async", content=body(points))
        assert submitted.status_code == 202
        job = submitted.json()
        assert job["state"] == "Submitted"
        early = await http.get(f"/routing/matrix/2/async/{job['jobId']}/result")
        assert early.status_code == 404
        await asyncio.sleep(JOB_SECONDS + 0.05)
        status = (await http.get(f"/routing/matrix/2/async/{job['jobId']}")).json()
        assert status == {"jobId": job["jobId"], "state": "Completed"}
        result = await http.get(f"/routing/matrix/2/async/{job['jobId']}/result")
        assert result.status_code == 302
        download = await http.get(result.headers["location"])
    assert len(download.json()["data"]) == 900


async def test_an_unknown_job_is_404() -> None:
    async with client() as http:
        assert (await http.get("/routing/matrix/2/async/00-nothing")).status_code == 404
