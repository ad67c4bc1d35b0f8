"""What the TomTom client bounds: answer size and time, a key's rate, a key's quota, one retry.

Pacing and retry are checked in process (httpx's MockTransport records when each
request went); the hostile answers (a slow drip, a gzip bomb, truncated or corrupt
gzip) come over real HTTP from the offline upstream process, which serves them on
request (`server.offline` HOSTILE_KEYS).
"""

from __future__ import annotations

import asyncio
import gzip
import time
import tracemalloc
from collections.abc import Callable
from types import SimpleNamespace

import httpx
import orjson
import pytest
from prometheus_client import generate_latest

from loadtest.topology import Service
from tomtom_mcp_apps.server.bodies import RawBody, loads
from tomtom_mcp_apps.server.errors import (
    AnswerTooLargeError,
    BadRequestError,
    BodyError,
    QuotaError,
    RateLimitError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
    UserQuotaError,
)
from tomtom_mcp_apps.server.offline._app import _bomb, _stacked_bomb
from tomtom_mcp_apps.server.ops import call_scope, metrics
from tomtom_mcp_apps.server.outbound import Network
from tomtom_mcp_apps.server.pool import POOL_BYTES
from tomtom_mcp_apps.server.quotas import Budgets, Window
from tomtom_mcp_apps.server.tomtom import (
    Bounds,
    Pacer,
    TomTomClient,
    _pacing,
    family_of,
)

KEY = "s3cr3t-rate-key-0123456789"
BASE = "https://api.example.test"
OK = b'{"results": []}'


class Recorder:
    """A stand-in TomTom that answers with `answers` in turn (the last one repeats) and
    records when each request arrived."""

    def __init__(self, *answers: Callable[[], httpx.Response]) -> None:
        self.answers = list(answers) or [lambda: httpx.Response(200, content=OK)]
        self.times: list[float] = []
        self.paths: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.times.append(time.monotonic())
        self.paths.append(request.url.path)
        answer = self.answers[min(len(self.times) - 1, len(self.answers) - 1)]
        return answer()


def client(
    recorder: Recorder, *, pacer: Pacer | None = None, bounds: Bounds | None = None
) -> TomTomClient:
    return TomTomClient(
        httpx.MockTransport(recorder), BASE, default_key=None, bounds=bounds, pacer=pacer
    )


def refusals(family: str, reason: str) -> float:
    labels = {"family": family, "reason": reason}
    return metrics.REGISTRY.get_sample_value("tomtom_mcp_rate_limit_refusals_total", labels) or 0


# --- TomTom's 429 -----------------------------------------------------------------------------


async def test_a_429_is_retried_once_after_its_retry_after_and_then_answers() -> None:
    recorder = Recorder(
        lambda: httpx.Response(429, headers={"Retry-After": "0.2"}, content=b"Too Many"),
        lambda: httpx.Response(200, content=b'{"results": [{"type": "POI"}]}'),
    )
    before = metrics.REGISTRY.get_sample_value(
        "tomtom_mcp_upstream_retries_total", {"family": "geocoding"}
    )
    body = await client(recorder).geocode("Amsterdam", key=KEY)
    assert body["results"] == [{"type": "POI"}]
    assert len(recorder.times) == 2
    assert recorder.times[1] - recorder.times[0] >= 0.2
    after = metrics.REGISTRY.get_sample_value(
        "tomtom_mcp_upstream_retries_total", {"family": "geocoding"}
    )
    assert after == (before or 0) + 1


async def test_a_429_whose_wait_is_too_long_is_a_tool_error_carrying_the_retry_time() -> None:
    recorder = Recorder(lambda: httpx.Response(429, headers={"Retry-After": "30"}))
    before = refusals("search", "tomtom")
    with pytest.raises(RateLimitError, match=r"HTTP 429\); retry in 30 s") as caught:
        await client(recorder).fuzzy_search("coffee", key=KEY)
    assert caught.value.retry_after == 30
    assert len(recorder.times) == 1
    assert refusals("search", "tomtom") == before + 1


async def test_a_429_is_not_retried_when_the_call_has_no_time_left_for_it() -> None:
    recorder = Recorder(lambda: httpx.Response(429, headers={"Retry-After": "1"}))
    with call_scope.entered("tomtom-geocode", 5.0), pytest.raises(RateLimitError):
        await client(recorder, bounds=Bounds(deadline_s=10)).geocode("Amsterdam", key=KEY)
    assert len(recorder.times) == 1


async def test_a_retried_429_that_comes_again_is_not_retried_twice() -> None:
    recorder = Recorder(lambda: httpx.Response(429, headers={"Retry-After": "0.1"}))
    with pytest.raises(RateLimitError, match="retry in 1 s"):
        await client(recorder).geocode("Amsterdam", key=KEY)
    assert len(recorder.times) == 2


@pytest.mark.parametrize("status", [400, 403, 500, 503])
async def test_other_failures_are_never_sent_again(status: int) -> None:
    recorder = Recorder(lambda: httpx.Response(status, content=b'{"errorText": "no"}'))
    with pytest.raises(Exception) as caught:
        await client(recorder).geocode("Amsterdam", key=KEY)
    assert not isinstance(caught.value, RateLimitError)
    assert len(recorder.times) == 1


async def test_tomtoms_403_developer_over_qps_is_a_rate_limit_not_a_bad_key() -> None:
    recorder = Recorder(lambda: httpx.Response(403, content=b"<h1>Developer Over Qps</h1>"))
    bounds = Bounds(call_deadline_s=5)  # no time for a retry
    with pytest.raises(RateLimitError, match=r"HTTP 403.*Developer Over Qps"):
        await client(recorder, bounds=bounds).calculate_reachable_range(4.9, 52.4, key=KEY)


# --- pacing -----------------------------------------------------------------------------------


async def test_one_calls_requests_to_a_family_are_spread_at_the_keys_rate() -> None:
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"routing": 40}, max_wait_s=10))
    await asyncio.gather(
        *(tomtom.calculate_route_raw([(4.9, 52.3), (5.0, 52.1)], key=KEY) for _ in range(8))
    )
    gaps = [b - a for a, b in zip(recorder.times, recorder.times[1:], strict=False)]
    assert len(recorder.times) == 8
    # Granted 1/40 s apart; what the transport sees adds each request's own jitter.
    assert recorder.times[-1] - recorder.times[0] >= 7 / 40 - 0.005
    assert min(gaps) >= 1 / 80


async def test_families_and_keys_are_paced_apart() -> None:
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"routing": 1, "search": 1}, max_wait_s=0.5))
    await tomtom.calculate_reachable_range(4.9, 52.4, key=KEY)
    await tomtom.fuzzy_search("coffee", key=KEY)  # another family: no wait
    await tomtom.calculate_reachable_range(4.9, 52.4, key="another-key")  # another key
    with pytest.raises(RateLimitError, match=r"1 routing requests per second.*retry in 1 s"):
        await tomtom.calculate_reachable_range(4.9, 52.4, key=KEY)
    assert len(recorder.times) == 3


async def test_a_call_that_arrives_behind_a_long_one_is_served_among_its_first_requests() -> None:
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"routing": 50}, max_wait_s=10))

    async def one_call(tool: str, requests: int) -> None:
        with call_scope.entered(tool, 30):
            await asyncio.gather(
                *(tomtom.calculate_reachable_range(4.9, 52.4, key=KEY) for _ in range(requests))
            )

    long_call = asyncio.create_task(one_call("tomtom-dynamic-map", 10))
    await asyncio.sleep(0)  # the long call queues its ten first
    short_origin = (1.0, 1.0)

    async def short_call() -> None:
        with call_scope.entered("tomtom-reachable-range", 30):
            await tomtom.calculate_reachable_range(*short_origin, key=KEY)

    await asyncio.gather(long_call, short_call())
    order = [path.split("/")[-2] for path in recorder.paths]
    assert order.index("1,1") <= 2  # not behind the other nine


async def test_a_wait_past_the_bound_is_refused_at_once_with_the_time_to_retry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pacer's clock stands still while the four queue: which ones go then depends on
    # the queue alone, not on how long a loaded machine takes between them.
    now = time.monotonic()
    monkeypatch.setattr(_pacing, "time", SimpleNamespace(monotonic=lambda: now))
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"traffic": 5}, max_wait_s=0.3))
    before = refusals("traffic", "pacing")
    results = await asyncio.gather(
        *(tomtom.incident_details([4.8, 52.3, 5.0, 52.4], key=KEY) for _ in range(4)),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, RateLimitError)]
    assert len(refused) == 2 and len(recorder.times) == 2  # 0 s and 0.2 s went; 0.4 s is over
    assert all(r.retry_after and r.retry_after >= 1 for r in refused)
    assert "retry in" in str(refused[0])
    assert refusals("traffic", "pacing") == before + 2


async def test_requests_without_a_key_are_not_paced() -> None:
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"search": 1}, max_wait_s=0.1))
    for _ in range(5):
        await tomtom.fuzzy_search("coffee", key=None)
    assert len(recorder.times) == 5


async def test_the_key_a_request_is_made_with_is_the_one_paced_and_counted() -> None:
    """Pacing and the quota follow the request's key as chosen per request: the caller's,
    else the configured one; a request answered offline (OFFLINE=always) is not paced."""
    recorder = Recorder()
    pacer = Pacer({"search": 1000}, max_wait_s=1, quota_per_minute=2)
    http = httpx.MockTransport(recorder)
    tomtom = TomTomClient(http, BASE, default_key="configured-key", pacer=pacer)
    for _ in range(2):
        await tomtom.fuzzy_search("coffee", key=None)  # the configured key
    with pytest.raises(QuotaError):
        await tomtom.fuzzy_search("coffee", key=None)
    await tomtom.fuzzy_search("coffee", key=KEY)  # the caller's own key: its own quota
    offline = TomTomClient(http, BASE, default_key="configured-key", pacer=pacer,
                           offline_mode="always")  # fmt: skip
    for _ in range(3):
        await offline.fuzzy_search("coffee", key=KEY)
    assert len(recorder.times) == 6


def test_every_endpoint_the_client_calls_has_its_family() -> None:
    assert family_of("/search/2/geocode/x.json").name == "geocoding"
    assert family_of("/search/2/reverseGeocode/1,2.json").name == "reverse_geocoding"
    assert family_of("/search/2/searchAlongRoute/x.json").name == "search"
    assert family_of("/routing/1/calculateRoute/1,2:3,4/json").name == "routing"
    assert family_of("/routing/1/calculateLongDistanceEVRoute/1,2:3,4/json").name == "ev_routing"
    assert family_of("/traffic/services/5/incidentDetails").name == "traffic"
    assert family_of("/something/new").qps == 5


# --- the quota --------------------------------------------------------------------------------


async def test_a_key_past_its_quota_is_refused_clearly_and_counted() -> None:
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"search": 1000}, max_wait_s=1, quota_per_minute=3))
    before = refusals("search", "quota")
    for _ in range(3):
        await tomtom.fuzzy_search("coffee", key=KEY)
    with pytest.raises(QuotaError, match=r"3 TomTom requests per minute.*retry in (59|60) s"):
        await tomtom.poi_search("coffee", key=KEY)
    await tomtom.poi_search("coffee", key="someone-else")
    assert len(recorder.times) == 4
    assert refusals("search", "quota") == before + 1


async def test_no_metric_ever_names_a_key() -> None:
    recorder = Recorder(lambda: httpx.Response(429, headers={"Retry-After": "99"}))
    tomtom = client(recorder, pacer=Pacer({}, max_wait_s=1, quota_per_minute=1))
    with pytest.raises(RateLimitError):
        await tomtom.geocode("Amsterdam", key=KEY)
    with pytest.raises(QuotaError):
        await tomtom.geocode("Amsterdam", key=KEY)
    assert KEY not in generate_latest(metrics.REGISTRY).decode()


# --- signed-in users ---------------------------------------------------------------------------

ALICE = "a" * 32
BOB = "b" * 32


async def test_one_users_burst_of_calls_does_not_hold_up_another_users_call() -> None:
    """Ten calls of one user, one request each, queued before another user's one call on the
    same (the operator's) key: the other user goes second, not eleventh."""
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"routing": 50}, max_wait_s=10))

    async def call(user: str, origin: tuple[float, float]) -> None:
        with call_scope.entered("tomtom-reachable-range", 30, user):
            await tomtom.calculate_reachable_range(*origin, key=KEY)

    burst = [asyncio.create_task(call(ALICE, (4.9, 52.4))) for _ in range(10)]
    await asyncio.sleep(0)  # alice's ten queue first
    await asyncio.gather(*burst, call(BOB, (1.0, 1.0)))
    order = [path.split("/")[-2] for path in recorder.paths]
    assert order.index("1,1") <= 2, order


async def test_without_sign_in_each_call_is_its_own_turn_as_before() -> None:
    recorder = Recorder()
    tomtom = client(recorder, pacer=Pacer({"routing": 50}, max_wait_s=10))

    async def call(origin: tuple[float, float]) -> None:
        with call_scope.entered("tomtom-reachable-range", 30):
            await tomtom.calculate_reachable_range(*origin, key=KEY)

    burst = [asyncio.create_task(call((4.9, 52.4))) for _ in range(10)]
    await asyncio.sleep(0)
    await asyncio.gather(*burst, call((1.0, 1.0)))
    order = [path.split("/")[-2] for path in recorder.paths]
    assert order.index("1,1") >= 9, "eleven calls, one turn each: the last one last"


async def test_a_users_requests_spend_their_budget_once_each_never_offline_ones() -> None:
    recorder = Recorder(
        lambda: httpx.Response(429, headers={"Retry-After": "0"}),
        lambda: httpx.Response(200, content=OK),
    )
    budgets = Budgets([Window("minute", 60, 2)], clock=lambda: 1_000_040.0)
    http = httpx.MockTransport(recorder)
    tomtom = TomTomClient(http, BASE, default_key=None, pacer=Pacer({}, max_wait_s=5),
                          budgets=budgets)  # fmt: skip
    with call_scope.entered("tomtom-geocode", 30, ALICE):
        await tomtom.geocode("Amsterdam", key=KEY)  # a 429, retried: one request spent
        await tomtom.geocode("Amsterdam", key=KEY)
        with pytest.raises(UserQuotaError, match="retry in 40 s") as refused:
            await tomtom.geocode("Amsterdam", key=KEY)
        assert refused.value.retry_after == 40
        await tomtom.geocode("Amsterdam", key=None)  # offline: costs TomTom nothing
    with call_scope.entered("tomtom-geocode", 30, BOB):
        await tomtom.geocode("Amsterdam", key=KEY)
    with call_scope.entered("tomtom-geocode", 30):  # no sign-in: no budget
        await tomtom.geocode("Amsterdam", key=KEY)
    # The 429 and its retry, one more, the offline answer (which this transport also plays),
    # bob's, the anonymous one.
    assert len(recorder.times) == 6


# --- size and time bounds ---------------------------------------------------------------------


async def test_an_answer_declared_larger_than_the_cap_is_refused_unread() -> None:
    recorder = Recorder(lambda: httpx.Response(200, content=b"x" * 5000))
    with pytest.raises(AnswerTooLargeError, match="larger than this server accepts"):
        await client(recorder, bounds=Bounds(max_body_bytes=4096)).geocode("A", key=None)


def test_a_gzip_bomb_is_refused_once_past_the_cap_without_inflating_it_whole() -> None:
    bomb = gzip.compress(bytes(50 * 1024 * 1024), 9)
    started = time.process_time()
    with pytest.raises(BodyError, match=r"larger than this server accepts \(1 MiB"):
        RawBody(bomb, "gzip", limit=1024 * 1024).decoded()
    assert time.process_time() - started < 0.05  # a whole inflate of 50 MiB takes longer


def test_truncated_and_corrupt_gzip_are_clear_errors() -> None:
    packed = gzip.compress(orjson.dumps({"results": [{"id": i} for i in range(2000)]}))
    with pytest.raises(BodyError, match="truncated"):
        loads(RawBody(packed[: len(packed) // 2], "gzip"))
    corrupt = packed[:100] + bytes(64) + packed[164:]
    with pytest.raises(BodyError, match="corrupt gzip"):
        loads(RawBody(corrupt, "gzip"))
    assert RawBody(packed + packed, "gzip").decoded() == gzip.decompress(packed) * 2  # 2 members


def streamed(status: int, body: bytes, coding: str) -> Callable[[], httpx.Response]:
    """An answer as a transport hands it over: its body still to read, as received (a
    `content=` body would be decoded by httpx on the spot, before the client sees it)."""
    headers = {"content-encoding": coding, "content-type": "application/json"}
    return lambda: httpx.Response(status, headers=headers, stream=httpx.ByteStream(body))


@pytest.mark.parametrize(
    ("coding", "says"),
    [("gzip, gzip, gzip", "stacked"), ("br", r"unrequested encoding \(br\)")],
)
async def test_an_answer_in_a_coding_this_server_refuses_is_a_clear_error_never_inflated(
    coding: str, says: str
) -> None:
    recorder = Recorder(streamed(200, _stacked_bomb(), coding))
    tracemalloc.start()
    try:
        with pytest.raises(UpstreamUnavailableError, match=says):
            await client(recorder).fuzzy_search("coffee", key=KEY)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024  # 4 GiB once every layer is inflated


@pytest.mark.parametrize(
    ("body", "coding"),
    [(lambda: _stacked_bomb(), "gzip, gzip, gzip"), (lambda: _bomb(), "gzip")],
    ids=["stacked", "bomb"],
)
async def test_an_error_answer_is_quoted_from_its_start_whatever_its_body_holds(
    body: Callable[[], bytes], coding: str
) -> None:
    recorder = Recorder(streamed(500, body(), coding))
    tracemalloc.start()
    try:
        with pytest.raises(UpstreamUnavailableError, match=r"TomTom is unavailable \(HTTP 500\)"):
            await client(recorder).geocode("Amsterdam", key=KEY)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024


async def test_an_error_answers_own_words_are_quoted_when_gzipped() -> None:
    said = orjson.dumps({"errorText": "Invalid query: lat out of range"})
    recorder = Recorder(streamed(400, gzip.compress(said), "gzip"))
    with pytest.raises(BadRequestError, match="TomTom said: Invalid query: lat out of range"):
        await client(recorder).geocode("Amsterdam", key=KEY)


async def test_a_small_gzip_answer_arrives_decoded_and_a_lying_one_counts_as_large() -> None:
    small = gzip.compress(b'{"routes": []}')
    lying = _bomb()[:-4] + (512).to_bytes(4, "little")
    tomtom = client(Recorder(streamed(200, small, "gzip"), streamed(200, lying, "gzip")))
    first = await tomtom.calculate_route_raw([(4.9, 52.4), (5.1, 52.1)], key=None)
    assert first == RawBody(b'{"routes": []}')
    second = await tomtom.calculate_route_raw([(4.9, 52.4), (5.1, 52.1)], key=None)
    assert second.gzipped and second.size >= POOL_BYTES  # placed in the pool
    with pytest.raises(BodyError, match="larger than"):
        second.decoded()


async def test_a_static_map_in_a_refused_coding_is_an_upstream_error() -> None:
    recorder = Recorder(streamed(200, _stacked_bomb(), "gzip, gzip, gzip"))
    with pytest.raises(UpstreamUnavailableError, match="stacked"):
        await client(recorder).static_image((4.8, 52.3, 5.0, 52.4), 1200, 750, key=KEY)


@pytest.fixture
async def over_http(upstream: Service) -> TomTomClient:
    bounds = Bounds(deadline_s=1.5, max_decoded_bytes=16 * 1024 * 1024)
    tomtom = TomTomClient(Network(4), upstream.url, default_key=None, bounds=bounds)
    yield tomtom
    await tomtom.aclose()


async def test_a_slow_drip_stops_at_the_requests_deadline_though_every_read_is_quick(
    over_http: TomTomClient,
) -> None:
    started = time.monotonic()
    with pytest.raises(UpstreamTimeoutError, match=r"no whole answer within 1.5 s"):
        await over_http.fuzzy_search("coffee", key="offline-slow-drip")
    assert time.monotonic() - started < 5.0  # the drip alone would take a minute


async def test_hostile_gzip_over_http_becomes_a_clear_error(over_http: TomTomClient) -> None:
    with pytest.raises(UpstreamUnavailableError, match="larger than this server accepts"):
        await over_http.fuzzy_search("coffee", key="offline-gzip-bomb")
    with pytest.raises(UpstreamUnavailableError, match="truncated"):
        await over_http.fuzzy_search("coffee", key="offline-truncated-gzip")
    with pytest.raises(UpstreamUnavailableError, match="corrupt gzip"):
        await over_http.fuzzy_search("coffee", key="offline-corrupt-gzip")
    route = await over_http.calculate_route_raw([(4.9, 52.4), (5.1, 52.1)], key="offline-x")
    with pytest.raises(BodyError, match="truncated"):
        cut = await over_http.calculate_route_raw(
            [(4.9, 52.4), (5.1, 52.1)], key="offline-truncated-gzip"
        )
        cut.decoded()
    assert route.decoded()


@pytest.mark.parametrize(
    ("key", "error", "says"),
    [
        ("offline-stacked-500", UpstreamUnavailableError, r"HTTP 500\)\. Try again later\.$"),
        ("offline-error-bomb", UpstreamUnavailableError, r"HTTP 500"),
        ("offline-stacked-gzip", UpstreamUnavailableError, "stacked"),
        ("offline-unknown-encoding", UpstreamUnavailableError, "unrequested encoding"),
        ("offline-lying-gzip-bomb", UpstreamUnavailableError, "larger than"),
    ],
)
async def test_hostile_codings_over_http_are_refused_quickly_and_clearly(
    over_http: TomTomClient, key: str, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        await over_http.fuzzy_search("coffee", key=key)


async def test_a_429_from_the_upstream_process_is_retried_once_and_answers(
    over_http: TomTomClient,
) -> None:
    over_http._bounds = Bounds(deadline_s=5)
    body = await over_http.geocode("Rotterdam", key="offline-429-once")
    assert body["results"]
