"""The client's many-places endpoints: Batch Search's asynchronous flow read from TomTom's
statuses and Location, never followed blindly, and a batch counted by its queries."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import orjson
import pytest

from tests.fixtures.tomtom import documented
from tomtom_mcp_apps.server.errors import (
    BadRequestError,
    QuotaError,
    UpstreamUnavailableError,
    UserQuotaError,
)
from tomtom_mcp_apps.server.ops import call_scope
from tomtom_mcp_apps.server.quotas import Budgets, Window
from tomtom_mcp_apps.server.tomtom import Pacer, TomTomClient, batch_id_in, wait_seconds

SECRET = "s3cr3t-key-0123456789"
BASE = "https://api.example.test"


def client_for(
    handler: Callable[[httpx.Request], httpx.Response],
) -> tuple[TomTomClient, list[httpx.Request]]:
    """A client over a mock transport that records every request it sends."""
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    return TomTomClient(httpx.MockTransport(record), BASE, default_key=SECRET), seen


BATCH = "45e0909c-625a-4822-a060-8f7f88498c0e"


def queries(n: int) -> list[str]:
    return [f"/geocode/Street%20{i}.json?limit=3" for i in range(n)]


@pytest.mark.parametrize(
    ("status", "location"),
    [
        (202, f"{BASE}/search/2/batch/{BATCH}?key={SECRET}"),
        (303, f"/search/2/batch/{BATCH}"),
        (303, f"https://elsewhere.example/search/2/batch/{BATCH}?waitTimeSeconds=120"),
    ],
)
async def test_a_submission_gives_the_batch_id_of_its_location_and_we_download_from_our_upstream(
    status: int, location: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(status, headers={"location": location})
        return httpx.Response(200, content=orjson.dumps(documented("batch_search")))

    client, seen = client_for(answer)
    submitted = await client.batch_submit(queries(3), key=None)
    assert submitted.batch_id == BATCH and submitted.result is None
    sent = orjson.loads(seen[0].content)
    assert sent == {"batchItems": [{"query": q} for q in queries(3)]}
    assert seen[0].url.params["redirectMode"] == "manual"
    raw = await client.batch_download(BATCH, key=None, wait_s=5)
    assert raw is not None and raw.status == 200
    download = seen[1].url
    assert str(download).startswith(f"{BASE}/search/2/batch/{BATCH}?"), "never the Location's host"
    assert download.params["waitTimeSeconds"] == "5" and download.params["key"] == SECRET


async def test_a_download_still_in_the_works_is_none_and_an_expired_batch_a_404() -> None:
    states = iter([httpx.Response(202, headers={"location": f"/search/2/batch/{BATCH}"}),
                   httpx.Response(404, content=b'{"errorText":"Batch not found"}')])  # fmt: skip
    client, _ = client_for(lambda _: next(states))
    assert await client.batch_download(BATCH, key=None, wait_s=5) is None
    with pytest.raises(BadRequestError) as caught:
        await client.batch_download(BATCH, key=None, wait_s=5)
    assert caught.value.status == 404


async def test_a_submission_answered_without_a_location_is_said_in_words() -> None:
    client, _ = client_for(lambda _: httpx.Response(202))
    with pytest.raises(UpstreamUnavailableError, match="did not say where its result will be"):
        await client.batch_submit(queries(2), key=None)


async def test_a_batch_id_from_a_handle_cannot_escape_its_path_segment() -> None:
    client, seen = client_for(lambda _: httpx.Response(200, content=b"{}"))
    with pytest.raises(ValueError, match="letters, digits and dashes"):
        await client.batch_download("../../routing/1/calculateRoute", key=None, wait_s=5)
    assert seen == []


def test_a_location_names_a_batch_only_in_the_download_path() -> None:
    assert batch_id_in(f"https://api.tomtom.com/search/2/batch/{BATCH}?key=k") == BATCH
    assert batch_id_in(f"/search/2/batch/{BATCH}") == BATCH
    assert batch_id_in("/search/2/batch/sync.json") is None
    assert batch_id_in(f"/routing/1/batch/{BATCH}") is None


def test_a_long_poll_waits_what_the_request_and_the_call_both_allow() -> None:
    assert wait_seconds(10, 60) == 5, "a request's 10 s deadline holds a 5 s wait"
    assert wait_seconds(30, 60) == 20
    assert wait_seconds(130, 200) == 120
    assert wait_seconds(10, 4) is None


def keyed_client(pacer: Pacer, budgets: Budgets | None = None) -> tuple[TomTomClient, list]:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=orjson.dumps(documented("batch_search")))

    client = TomTomClient(httpx.MockTransport(answer), BASE, SECRET, pacer=pacer, budgets=budgets)
    return client, seen


async def test_a_batch_counts_each_query_against_the_keys_quota() -> None:
    pacer = Pacer({}, max_wait_s=10, quota_per_minute=100)
    client, seen = keyed_client(pacer)
    await client.batch_search_raw(queries(60), key=None)
    with pytest.raises(QuotaError, match="less room left than this request's 50 billed requests"):
        await client.batch_search_raw(queries(50), key=None)
    with pytest.raises(QuotaError, match="more than this API key's 100 per minute"):
        await client.batch_search_raw(queries(101), key=None)
    await client.batch_search_raw(queries(40), key=None)  # 60 + 40: exactly the quota
    assert len(seen) == 2, "a refused batch is never sent"


async def test_a_batch_counts_each_query_against_the_signed_in_users_budget() -> None:
    budgets = Budgets([Window("minute", 60, 100)], clock=lambda: 600.0)  # one fixed window
    client, seen = keyed_client(Pacer({}, max_wait_s=10), budgets)
    with call_scope.entered("tomtom-batch-geocode", 30, "a" * 32):
        await client.batch_search_raw(queries(70), key=None)
        with pytest.raises(
            UserQuotaError, match="less room left than this request's 31 billed requests"
        ):
            await client.batch_search_raw(queries(31), key=None)
        with pytest.raises(UserQuotaError, match="more than your whole budget of 100"):
            await client.batch_search_raw(queries(150), key=None)
        await client.batch_search_raw(queries(30), key=None)
    assert len(seen) == 2


async def test_offline_batches_cost_nothing() -> None:
    pacer = Pacer({}, max_wait_s=10, quota_per_minute=5)
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"{}")

    client = TomTomClient(httpx.MockTransport(answer), BASE, None, pacer=pacer)
    await client.batch_search_raw(queries(100), key=None)
    assert len(seen) == 1 and "key" not in seen[0].url.params
