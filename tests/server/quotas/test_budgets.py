"""Per-user budgets (`server.quotas`): fixed windows on the wall clock, per replica or shared
through a real Redis (Debian's redis-server), and what a replica does while Redis fails.
"""

from __future__ import annotations

import asyncio

import pytest

from loadtest.topology import Service
from tests.processes import redis_server, redis_url
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import UserQuotaError
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.quotas import Budgets, Window, build_budgets
from tomtom_mcp_apps.server.quotas._counters import RedisCounts

ALICE = "a" * 32
BOB = "b" * 32
NOON = 1_799_971_200.0 + 43_200  # 12:00:00 UTC (2027-01-15)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def spend(budgets: Budgets, user: str, times: int) -> list[UserQuotaError | None]:
    """The outcome of `times` requests: None when spent, else the refusal."""
    outcomes: list[UserQuotaError | None] = []
    for _ in range(times):
        try:
            await budgets.spend(user)
            outcomes.append(None)
        except UserQuotaError as exc:
            outcomes.append(exc)
    return outcomes


async def test_a_user_over_the_minute_budget_is_refused_with_the_retry_time_another_is_not() -> (
    None
):
    clock = Clock(NOON + 45)
    budgets = Budgets([Window("minute", 60, 3)], clock=clock)
    alice = await spend(budgets, ALICE, 4)
    assert alice[:3] == [None, None, None]
    refusal = alice[3]
    assert refusal is not None and refusal.retry_after == 15
    assert str(refusal) == (
        "You have used your 3 TomTom requests per minute on this server (a budget per signed-in "
        "user, map tiles included); retry in 15 s."
    )
    assert await spend(budgets, BOB, 3) == [None, None, None]
    clock.now = NOON + 60  # the next minute
    assert await spend(budgets, ALICE, 1) == [None]


async def test_the_day_budget_says_when_the_day_ends_in_utc() -> None:
    clock = Clock(NOON)
    budgets = Budgets([Window("minute", 60, 100), Window("day", 86_400, 2)], clock=clock)
    *spent, refused = await spend(budgets, ALICE, 3)
    assert spent == [None, None] and refused is not None
    assert refused.retry_after == 43_200
    assert "2 TomTom requests per day" in str(refused)
    assert "retry in 12 h 0 min (at 00:00 UTC)" in str(refused)


async def test_a_refused_request_spends_nothing_in_any_window() -> None:
    clock = Clock(NOON)
    budgets = Budgets([Window("minute", 60, 1), Window("day", 86_400, 3)], clock=clock)
    for minute in range(3):
        clock.now = NOON + 60 * minute
        assert [r is None for r in await spend(budgets, ALICE, 5)] == [True] + [False] * 4
    clock.now = NOON + 180
    (refused,) = await spend(budgets, ALICE, 1)
    assert refused is not None and "per day" in str(refused), "three spent, none refused counted"


def test_budgets_exist_only_with_a_limit() -> None:
    assert build_budgets(Settings()) is None
    settings = Settings(
        oauth_issuer="https://as.example.test", user_quota_per_min=0, user_quota_per_day=10
    )
    budgets = build_budgets(settings)
    assert budgets is not None and [w.name for w in budgets._windows] == ["day"]


def test_with_sign_in_every_user_has_a_budget_unless_the_operator_sets_0() -> None:
    """Where strangers come in (sign-in on, any account the issuer lets anyone create),
    budgets are on by default; `0` turns them off on purpose."""
    issuer = {"OAUTH_ISSUER": "https://as.example.test", "PUBLIC_URL": "https://m.example/mcp"}
    defaults = Settings.from_env(issuer, tiles=False)
    budgets = build_budgets(defaults)
    assert budgets is not None
    assert [(w.name, w.limit) for w in budgets._windows] == [("minute", 300), ("day", 5000)]
    off = {**issuer, "USER_QUOTA_PER_MIN": "0", "USER_QUOTA_PER_DAY": "0"}
    assert build_budgets(Settings.from_env(off, tiles=False)) is None
    assert build_budgets(Settings.from_env({}, tiles=False)) is None, "no users, no budgets"


# --- shared through Redis -------------------------------------------------------------------


STORE_TIMEOUT_S = 5.0
"""Generous: on a loaded machine a slow answer must not pass for a failed store."""


def replicas(url: str, limit: int, clock: Clock) -> list[Budgets]:
    """Two replicas' budgets sharing one Redis."""
    return [
        Budgets(
            [Window("minute", 60, limit)],
            store=RedisCounts(url, STORE_TIMEOUT_S),
            store_timeout_s=STORE_TIMEOUT_S,
            clock=clock,
        )
        for _ in range(2)
    ]


@pytest.mark.process
async def test_two_replicas_sharing_redis_enforce_one_budget_exactly(redis: Service) -> None:
    clock = Clock(NOON + 1)
    user = "c" * 31 + "1"
    one, two = replicas(redis_url(redis), 7, clock)
    try:
        outcomes = await asyncio.gather(
            *(budgets.spend(user) for _ in range(10) for budgets in (one, two)),
            return_exceptions=True,
        )
    finally:
        await asyncio.gather(one.aclose(), two.aclose())
    assert sum(o is None for o in outcomes) == 7
    assert all(isinstance(o, UserQuotaError) and o.retry_after == 59 for o in outcomes if o)


@pytest.mark.process
async def test_a_matrix_takes_its_billed_units_from_the_shared_budget_all_or_none(
    redis: Service,
) -> None:
    clock = Clock(NOON + 1)
    user = "d" * 31 + "1"
    one, two = replicas(redis_url(redis), 100, clock)
    try:
        await one.spend(user, 60)  # a 12 x 12 matrix: 5 x 12 transactions
        with pytest.raises(UserQuotaError):
            await two.spend(user, 41)
        await two.spend(user, 40)
        with pytest.raises(UserQuotaError):
            await one.spend(user)
    finally:
        await asyncio.gather(one.aclose(), two.aclose())


async def test_a_matrix_over_what_is_left_takes_nothing_on_one_replica() -> None:
    budgets = Budgets([Window("minute", 60, 10)], clock=Clock(NOON + 1))
    with pytest.raises(UserQuotaError):
        await budgets.spend(ALICE, 11)
    assert await spend(budgets, ALICE, 10) == [None] * 10


@pytest.mark.process
async def test_while_redis_is_unreachable_each_replica_keeps_the_budget_itself() -> None:
    clock = Clock(NOON + 1)
    failures = metrics.REGISTRY.get_sample_value("tomtom_mcp_quota_store_failures_total") or 0
    with redis_server() as redis:
        one, two = replicas(redis_url(redis), 3, clock)
        assert await spend(one, ALICE, 1) == [None]
    try:  # the server is gone: a refused connection, at once
        outcomes = [o is None for b in (one, two) for o in await spend(b, ALICE, 4)]
    finally:
        await asyncio.gather(one.aclose(), two.aclose())
    # Replica one had spent one in Redis and counts on its own from here: three more; two
    # counts from nothing: three. Each keeps the whole budget, none refuses every call.
    assert outcomes == [True, True, True, False] * 2
    after = metrics.REGISTRY.get_sample_value("tomtom_mcp_quota_store_failures_total") or 0
    assert after - failures == 2, "one failure each, then no more asking until the retry time"


@pytest.mark.process
async def test_with_refuse_a_replica_refuses_while_redis_is_down_and_uses_it_again_after() -> None:
    clock = Clock(NOON + 1)
    with redis_server() as redis:
        url = redis_url(redis)
    budgets = Budgets(
        [Window("minute", 60, 3)],
        store=RedisCounts(url, STORE_TIMEOUT_S),
        store_timeout_s=STORE_TIMEOUT_S,
        refuse_when_down=True,
        clock=clock,
    )
    try:
        (refused,) = await spend(budgets, ALICE, 1)
        assert refused is not None and refused.retry_after == 5
        assert "cannot check your budget" in str(refused) and "retry in 5 s" in str(refused)
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with redis_server(port):
            clock.now += 5  # the retry time has passed: the store is asked again
            assert await spend(budgets, ALICE, 1) == [None]
    finally:
        await budgets.aclose()


@pytest.mark.process
async def test_a_batch_is_taken_whole_or_not_at_all_across_replicas(redis: Service) -> None:
    # A batch of 5 queries takes 4 up front and keeps room for its own request's 1, spent
    # as it is sent: of six sent at once through two replicas, two fit a budget of 10; the
    # 8 they took leave room for 2 single requests, and nothing of a refused one counted.
    clock = Clock(NOON + 1)
    user = "d" * 31 + "2"
    one, two = replicas(redis_url(redis), 10, clock)
    try:
        batches = await asyncio.gather(
            *(budgets.spend(user, 4, keep=1) for _ in range(3) for budgets in (one, two)),
            return_exceptions=True,
        )
        singles = await asyncio.gather(
            *(budgets.spend(user) for budgets in (one, two, one)), return_exceptions=True
        )
    finally:
        await asyncio.gather(one.aclose(), two.aclose())
    assert sum(o is None for o in batches) == 2
    refused = [o for o in batches if o is not None]
    assert all("less room left than this request's 5 billed requests" in str(o) for o in refused)
    assert [o is None for o in singles] == [True, True, False]
