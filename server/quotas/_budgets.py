"""Per-user budgets: the TomTom requests (tiles included) a signed-in user may cause.

`Budgets.spend(user)` takes one request from every window or raises `UserQuotaError` with
the time to retry. While the store fails, the replica counts on its own
(`QUOTA_STORE_DOWN=local`) or refuses signed-in users' requests (`refuse`) for
`STORE_RETRY_S`, then tries it again (docs/sign-in.md, While Redis is down).
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

    async def spend(self, user: str) -> None:
        """One TomTom request for `user` (a `User.id`); `UserQuotaError` when over budget."""
        now = self._clock()
        if self._store is None:
            full = self._local.take(user, self._windows, now)
        elif now < self._store_down_until:
            full = self._without_store(user, now)
        else:
            try:
                async with asyncio.timeout(self._timeout_s):
                    full = await self._store.take(user, self._windows, now)
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
                full = self._without_store(user, now)
        if full is not None:
            raise self._over(full, now)

    def _without_store(self, user: str, now: float) -> Window | None:
        if not self._refuse_when_down:
            return self._local.take(user, self._windows, now)
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

    def _over(self, window: Window, now: float) -> UserQuotaError:
        metrics.USER_QUOTA_REFUSALS.labels(window.name).inc()
        retry = window.retry_in(now)
        when = (
            f"retry in {retry} s" if retry < 120 else f"retry in {_readable(retry)} (at 00:00 UTC)"
        )
        log.info(
            "user over budget",
            extra={"event": "user_quota", "window": window.name, "retry_after": retry},
        )
        return UserQuotaError(
            f"You have used your {window.limit} TomTom requests per {window.name} on this "
            f"server (a budget per signed-in user, map tiles included); {when}.",
            retry_after=retry,
        )


def _readable(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min"
