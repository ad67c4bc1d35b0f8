"""Per-user budgets: the TomTom requests (tiles included) a signed-in user may cause.

`Budgets.spend(user)` takes one request from the user's budget in every window
(`USER_QUOTA_PER_MIN`, `USER_QUOTA_PER_DAY`), or raises `UserQuotaError` with the
time to retry: the model reads it as a tool error, a tile answers 429 with
`Retry-After`. Counts are kept on this replica, or in Redis with `QUOTA_STORE`.

While Redis fails or does not answer within `QUOTA_STORE_TIMEOUT_S`, the replica
does not wait on it for every request: it counts on its own for `STORE_RETRY_S`
(`QUOTA_STORE_DOWN=local`, the default: each replica enforces the whole budget, so
a user gets at most N times it across N replicas while the store is down) or refuses
signed-in users' requests (`refuse`), then tries the store again (docs/adr/0078).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from tomtom_mcp_apps.server.errors import QuotaStoreError, UserQuotaError
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.quotas._counters import MemoryCounts, RedisCounts
from tomtom_mcp_apps.server.quotas._windows import Window

log = logging.getLogger(__name__)

STORE_RETRY_S = 5.0
"""After a store failure, how long this replica counts on its own (or refuses) before
asking the store again."""


class Budgets:
    """The signed-in users' budgets on this replica (shared through `store` when given)."""

    def __init__(
        self,
        windows: Sequence[Window],
        *,
        store: RedisCounts | None = None,
        store_timeout_s: float = 0.25,
        refuse_when_down: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._windows = tuple(windows)
        self._store = store
        self._timeout_s = store_timeout_s
        self._refuse_when_down = refuse_when_down
        self._clock = clock
        self._local = MemoryCounts()
        self._store_down_until = -float("inf")

    async def spend(self, user: str, count: int = 1, keep: int = 0) -> None:
        """`count` TomTom requests for `user` (a `User.id`): one, or a batch's queries, which
        TomTom bills one by one, when `keep` more still fit after them (the request's own,
        spent as it is sent); `UserQuotaError` when over budget, and nothing spent."""
        now = self._clock()
        if self._store is None:
            full = self._local.take(user, self._windows, now, count, keep)
        elif now < self._store_down_until:
            full = self._without_store(user, now, count, keep)
        else:
            try:
                async with asyncio.timeout(self._timeout_s):
                    full = await self._store.take(user, self._windows, now, count, keep)
            except (QuotaStoreError, TimeoutError) as exc:
                self._store_down_until = now + STORE_RETRY_S
                metrics.QUOTA_STORE_FAILURES.inc()
                log.warning(
                    "budget store failed (%s): %s for %.0f s",
                    str(exc) or type(exc).__name__,
                    "refusing signed-in users" if self._refuse_when_down else "counting here",
                    STORE_RETRY_S,
                    extra={"event": "quota_store_down"},
                )
                full = self._without_store(user, now, count, keep)
        if full is not None:
            raise self._over(full, now, count + keep)

    def _without_store(self, user: str, now: float, count: int, keep: int) -> Window | None:
        if not self._refuse_when_down:
            return self._local.take(user, self._windows, now, count, keep)
        metrics.USER_QUOTA_REFUSALS.labels("store_down").inc()
        retry = max(1, round(self._store_down_until - now))
        raise UserQuotaError(
            "This server cannot check your budget of TomTom requests right now (its budget "
            f"store is unreachable); retry in {retry} s.",
            retry_after=retry,
        )

    async def aclose(self) -> None:
        if self._store is not None:
            await self._store.aclose()

    def _over(self, window: Window, now: float, count: int = 1) -> UserQuotaError:
        metrics.USER_QUOTA_REFUSALS.labels(window.name).inc()
        if count > window.limit:
            log.info(
                "request over the user's whole budget",
                extra={"event": "user_quota", "window": window.name, "requests": count},
            )
            return UserQuotaError(
                f"This asks TomTom for {count:,} requests at once (a batch is billed per "
                f"query, a matrix by its cells), more than your whole budget of "
                f"{window.limit:,} per {window.name} on this server; "
                f"send at most {window.limit:,} at a time."
            )
        retry = window.retry_in(now)
        when = (
            f"retry in {retry} s" if retry < 120 else f"retry in {_readable(retry)} (at 00:00 UTC)"
        )
        log.info(
            "user over budget",
            extra={"event": "user_quota", "window": window.name, "retry_after": retry},
        )
        if count > 1:
            return UserQuotaError(
                f"Your budget of {window.limit:,} TomTom requests per {window.name} on this "
                f"server has less room left than this request's {count:,} billed requests (a "
                f"batch is billed per query, a matrix by its cells); {when}.",
                retry_after=retry,
            )
        return UserQuotaError(
            f"You have used your {window.limit} TomTom requests per {window.name} on this "
            f"server (a budget per signed-in user, map tiles included); {when}.",
            retry_after=retry,
        )


def _readable(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min"
