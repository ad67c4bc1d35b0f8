"""Matrix Routing v2 through the client and the tools, against answers shaped as TomTom
documents them (`tests/fixtures/tomtom/matrix_*.json`): the synchronous answer, the
asynchronous job through every state, the result's 302, failed cells, and what it bills."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import orjson
import pytest

from tests.fixtures.tomtom import documented
from tests.server.harness import tool_client
from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.errors import BadRequestError, QuotaError, UserQuotaError
from tomtom_mcp_apps.server.ops import call_scope
from tomtom_mcp_apps.server.quotas import Budgets
from tomtom_mcp_apps.server.quotas._windows import windows
from tomtom_mcp_apps.server.tomtom import Pacer, TomTomClient, billed_cells

pytestmark = pytest.mark.asyncio

KEY = "matrix-test-key"
BASE = "https://api.example.test"
STORAGE = "https://storage.example.test/matrix/result-08.json?signature=abc"
POINTS = [[4.89, 52.37], [5.12, 52.09]]
JOB = documented("matrix_async_submit")["jobId"]


@pytest.mark.parametrize(
    ("origins", "destinations", "billed"),
    [(1, 1, 1), (5, 5, 25), (5, 100, 500), (6, 6, 30), (6, 100, 500), (50, 50, 250)],
)
async def test_a_matrix_is_billed_five_times_its_longer_side_when_both_exceed_five(
    origins: int, destinations: int, billed: int
) -> None:
    assert billed_cells(origins, destinations) == billed


async def test_tomtoms_documented_answer_reads_failed_cells_as_no_route_never_zero() -> None:
    matrix = jobs.read_matrix(documented("matrix_sync"), 2, 2)
    assert matrix.travel_times == [[9252, 5104], [None, None]]
    assert matrix.lengths == [[243399, 125091], [None, None]]
    assert matrix.statuses == [["OK", "OK"], ["NO_ROUTE_FOUND", "OUT_OF_REGION"]]
    assert matrix.dropped == 0


async def test_cells_the_answer_lacks_or_garbles_are_marked_not_zeroed() -> None:
    body = documented("matrix_sync")
    del body["data"][0]
    body["data"][0]["routeSummary"]["travelTimeInSeconds"] = -5
    matrix = jobs.read_matrix(body, 2, 2)
    assert matrix.statuses[0] == ["MISSING", "MALFORMED"]
    assert matrix.travel_times[0] == [None, None]
    assert matrix.dropped == 1


def tomtom(states: list[str], *, redirect: bool = True) -> tuple[Callable, list[httpx.Request]]:
    """A TomTom that runs one asynchronous job through `states`, then serves its result at
    the result endpoint (200) or, with `redirect`, as a 302 to a storage address."""
    seen: list[httpx.Request] = []
    pending = list(states)

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        path = request.url.path
        if request.url.host == "storage.example.test":
            return httpx.Response(200, content=orjson.dumps(documented("matrix_sync")))
        if path == "/routing/matrix/2/async":
            return httpx.Response(202, content=orjson.dumps(documented("matrix_async_submit")))
        if path == f"/routing/matrix/2/async/{JOB}":
            status = documented("matrix_async_status")
            status["state"] = pending.pop(0) if len(pending) > 1 else pending[0]
            return httpx.Response(200, content=orjson.dumps(status))
        if path == f"/routing/matrix/2/async/{JOB}/result":
            if pending[0] != "Completed":
                body = {"detailedError": {"code": "NOT_FOUND", "message": "Not Completed"}}
                return httpx.Response(404, content=orjson.dumps(body))
            if redirect:
                return httpx.Response(302, headers={"location": STORAGE})
            return httpx.Response(200, content=orjson.dumps(documented("matrix_sync")))
        if path == "/routing/matrix/2":
            return httpx.Response(200, content=orjson.dumps(documented("matrix_sync")))
        return httpx.Response(404)

    return answer, seen


async def test_a_job_through_every_state_ends_in_its_result_fetched_where_the_302_says() -> None:
    answer, seen = tomtom(["Submitted", "Enqueued", "InProgress", "Completed"])
    transport = httpx.MockTransport(answer)
    async with tool_client(key=KEY, transport=transport, matrix_sync_max_cells=1) as tools:
        out = await tools.call("tomtom-matrix", {"origins": POINTS})
    assert not out.is_error, out.text
    assert out.result.structured_content["statuses"] == [
        ["OK", "OK"],
        ["NO_ROUTE_FOUND", "OUT_OF_REGION"],
    ]
    paths = [r.url.path for r in seen]
    assert paths[0] == "/routing/matrix/2/async"
    assert paths.count(f"/routing/matrix/2/async/{JOB}") == 4
    download = seen[-1]
    assert download.url.host == "storage.example.test"
    assert KEY not in str(download.url) and "key" not in download.url.params
    submitted = orjson.loads(seen[0].content)
    assert submitted["origins"][1] == {"point": {"latitude": 52.09, "longitude": 5.12}}
    assert submitted["destinations"] == submitted["origins"]


async def test_a_result_answered_directly_is_read_as_well() -> None:
    answer, _ = tomtom(["Completed"], redirect=False)
    async with tool_client(
        key=KEY, transport=httpx.MockTransport(answer), matrix_sync_max_cells=1
    ) as tools:
        out = await tools.call("tomtom-matrix", {"origins": POINTS})
    assert not out.is_error, out.text
    assert out.result.structured_content["travelTimes"][0] == [9252, 5104]


async def test_a_failed_job_is_a_tool_error_naming_the_job_and_its_state() -> None:
    answer, _ = tomtom(["InProgress", "Failed"])
    async with tool_client(
        key=KEY, transport=httpx.MockTransport(answer), matrix_sync_max_cells=1
    ) as tools:
        out = await tools.call("tomtom-matrix", {"origins": POINTS})
    assert out.is_error
    assert JOB in out.text and "'Failed'" in out.text


async def test_a_job_that_outlasts_the_call_says_so_with_tomtoms_job_id_and_state() -> None:
    answer, seen = tomtom(["InProgress"])
    async with tool_client(
        key=KEY,
        transport=httpx.MockTransport(answer),
        matrix_sync_max_cells=1,
        call_deadline_s=2.5,
        upstream_timeout_s=1.0,
    ) as tools:
        out = await tools.call("tomtom-matrix", {"origins": POINTS})
    assert out.is_error
    assert f"job {JOB}, state InProgress" in out.text and "billed already" in out.text
    assert not any(r.url.path.endswith("/result") for r in seen)


def counted_client(**kwargs) -> tuple[TomTomClient, list[httpx.Request]]:  # type: ignore[no-untyped-def]
    answer, seen = tomtom(["Completed"])
    client = TomTomClient(httpx.MockTransport(answer), BASE, KEY, **kwargs)
    return client, seen


BODY = RawBody(b"{}")


async def test_a_matrix_spends_the_keys_quota_by_what_tomtom_bills_and_is_refused_unsent() -> None:
    client, seen = counted_client(pacer=Pacer({}, max_wait_s=1.0, quota_per_minute=50))
    await client.matrix_sync(BODY, origins=10, destinations=10, key=None)  # billed 50
    with pytest.raises(QuotaError):
        await client.matrix_sync(BODY, origins=1, destinations=1, key=None)
    assert len(seen) == 1
    fresh, unsent = counted_client(pacer=Pacer({}, max_wait_s=1.0, quota_per_minute=50))
    with pytest.raises(QuotaError, match="counts 55 TomTom requests"):
        await fresh.matrix_sync(BODY, origins=11, destinations=11, key=None)
    assert unsent == []


async def test_a_matrix_spends_a_signed_in_users_budget_by_what_tomtom_bills() -> None:
    budgets = Budgets(windows(30, 0))
    client, seen = counted_client(budgets=budgets)
    with call_scope.entered("tomtom-matrix", 30.0, user="user-1"):
        await client.matrix_sync(BODY, origins=6, destinations=6, key=None)  # billed 30
        with pytest.raises(UserQuotaError):
            await client.matrix_status(JOB, key=None)
    with call_scope.entered("tomtom-matrix", 30.0, user="user-2"), pytest.raises(UserQuotaError):
        await client.matrix_sync(BODY, origins=7, destinations=7, key=None)  # billed 35
    assert len(seen) == 1


async def test_offline_answers_spend_nothing() -> None:
    budgets = Budgets(windows(1, 0))
    answer, _ = tomtom(["Completed"])
    client = TomTomClient(httpx.MockTransport(answer), BASE, None, budgets=budgets)
    with call_scope.entered("tomtom-matrix", 30.0, user="user-1"):
        await client.matrix_sync(BODY, origins=20, destinations=20, key=None)
        await client.matrix_sync(BODY, origins=20, destinations=20, key=None)


async def test_a_result_asked_for_before_the_job_is_completed_is_tomtoms_404() -> None:
    answer, _ = tomtom(["InProgress"])
    client = TomTomClient(httpx.MockTransport(answer), BASE, KEY)
    with pytest.raises(BadRequestError) as refused:
        await client.matrix_result(JOB, key=None)
    assert refused.value.status == 404
