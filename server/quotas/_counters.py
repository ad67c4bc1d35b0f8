"""Where a budget's counts live: this replica's memory, or a Redis every replica shares.

Both take requests against every window at once, atomically: either every window has
room for them and each count grows by as many, or none grows and the first window without
room is named (a batch of TomTom queries is billed per query: docs/upstream.md).
`MemoryCounts` is exact for one replica (N replicas give N times the budget);
`RedisCounts` runs the same rule as one Lua script on Redis, so it is exact across
replicas. Keys hold a user's id (a hash, never the token or the subject) and expire
with their window.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

from tomtom_mcp_apps.server.errors import QuotaStoreError
from tomtom_mcp_apps.server.quotas._windows import Window

KEY_PREFIX = "tomtom-mcp:quota"
_TAKE = """
local count = tonumber(ARGV[2 * #KEYS + 1])
local room = count + tonumber(ARGV[2 * #KEYS + 2])
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') + room > tonumber(ARGV[i]) then
    return i
  end
end
for i = 1, #KEYS do
  if redis.call('INCRBY', KEYS[i], count) == count then
    redis.call('EXPIRE', KEYS[i], ARGV[#KEYS + i])
  end
end
return 0
"""
"""KEYS: one counter per window; ARGV: each window's limit, then each counter's lifetime,
then how many requests to take, then how many more must still fit after them. Returns 0
when taken, else the (1-based) index of the first window without room."""


class MemoryCounts:
    """Counts on this replica: one (window index, count) per user and window, the least
    recently seen users forgotten beyond `max_users` (a forgotten user starts afresh)."""

    def __init__(self, max_users: int = 100_000) -> None:
        self._max_users = max_users
        self._counts: OrderedDict[str, list[tuple[int, int]]] = OrderedDict()

    def take(
        self, user: str, windows: Sequence[Window], now: float, count: int = 1, keep: int = 0
    ) -> Window | None:
        """None when `count` requests are taken in every window (with room left for `keep`
        more); else the first window without room for them."""
        indices = [window.index(now) for window in windows]
        held = self._counts.pop(user, None) or [(index, 0) for index in indices]
        pairs = zip(held, indices, strict=True)
        counts = [used if seen == index else 0 for (seen, used), index in pairs]
        room = count + keep
        full = next((w for w, c in zip(windows, counts, strict=True) if c + room > w.limit), None)
        if full is None:
            counts = [c + count for c in counts]
        self._counts[user] = list(zip(indices, counts, strict=True))
        if len(self._counts) > self._max_users:
            self._counts.popitem(last=False)
        return full


class RedisCounts:
    """Counts in Redis, shared by every replica; each take is one script run (atomic)."""

    def __init__(self, url: str, timeout_s: float) -> None:
        # Imported here: a replica without `QUOTA_STORE` never loads the Redis client.
        from redis.asyncio import Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import RedisError

        self._errors = (RedisError, OSError)
        # No retries inside the client: a failed take falls back at once (`Budgets`), and
        # the caller's wait stays bounded by the timeout.
        self._redis = Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),
        )
        self._take = self._redis.register_script(_TAKE)

    async def take(
        self, user: str, windows: Sequence[Window], now: float, count: int = 1, keep: int = 0
    ) -> Window | None:
        keys = [f"{KEY_PREFIX}:{{{user}}}:{w.name}:{w.index(now)}" for w in windows]
        limits = [w.limit for w in windows]
        lifetimes = [math.ceil(w.left(now)) + 5 for w in windows]  # a little past its end
        try:
            full = int(await self._take(keys=keys, args=[*limits, *lifetimes, count, keep]))
        except self._errors as exc:
            raise QuotaStoreError(type(exc).__name__) from None
        return windows[full - 1] if full else None

    async def aclose(self) -> None:
        await self._redis.aclose()
