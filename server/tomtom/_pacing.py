"""TomTom's rate limits kept on our side: pacing per key and API family, fair between calls.

Requests with one key to one family start at most at the family's rate, evenly spaced;
waiting ones take turns by start-time fair queueing between flows (the call, or the
signed-in user), and a wait past its bound or the call's deadline is refused with the time
to retry. An optional quota caps a key's requests per minute; keys are held only as short
hashes (docs/upstream.md, Pacing).
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import itertools
import math
import time
from collections import deque
from collections.abc import Hashable, Mapping

from tomtom_mcp_apps.server.errors import QuotaError, RateLimitError
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.ops.call_scope import CallScope
from tomtom_mcp_apps.server.tomtom._families import Family

QUOTA_WINDOW_S = 60.0
_PRUNE_EVERY_S = 60.0


def key_id(key: str) -> bytes:
    """A short stand-in for an API key: pacing state never holds the key itself."""
    return hashlib.blake2b(key.encode(), digest_size=8).digest()


class _TooLong(Exception):
    """The wait would pass its bound; `admit` refuses with a `RateLimitError` instead
    (control flow inside this module, so not in `server.errors`)."""

    def __init__(self, retry_in: float) -> None:
        self.retry_in = retry_in


class _Bucket:
    """One key's requests to one family: evenly spaced starts, waiters in fair order."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.next_free = 0.0
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._tags: dict[Hashable, float] = {}
        self._virtual = 0.0
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def idle(self) -> bool:
        return not self._waiting and self.next_free < time.monotonic()

    def acquire(self, caller: CallScope, bound: float) -> asyncio.Future[None] | None:
        """None when the request may go now; else a future granted in fair order. Raises
        `_TooLong` when the expected wait exceeds `bound`."""
        now = time.monotonic()
        if not self._waiting and now >= self.next_free:
            self.next_free = now + self.interval
            return None
        flow = caller.flow
        tag = max(self._tags.get(flow, 0.0), self._virtual) + 1.0
        ahead = sum(1 for t, _, f in self._waiting if t <= tag and not f.done())
        expected = max(0.0, self.next_free - now) + ahead * self.interval
        if expected > bound:
            raise _TooLong(expected)
        self._tags[flow] = tag
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (tag, next(self._order), future))
        self._schedule()
        return future

    def expected_wait(self) -> float:
        waiting = sum(1 for *_, f in self._waiting if not f.done())
        return max(0.0, self.next_free - time.monotonic()) + waiting * self.interval

    def hold(self, seconds: float) -> None:
        """Send nothing for `seconds` (TomTom answered 429 with this Retry-After)."""
        self.next_free = max(self.next_free, time.monotonic() + seconds)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is None and self._waiting:
            delay = max(0.0, self.next_free - time.monotonic())
            self._timer = asyncio.get_running_loop().call_later(delay, self._release)

    def _release(self) -> None:
        self._timer = None
        while self._waiting:
            tag, _, future = heapq.heappop(self._waiting)
            if future.done():  # its caller gave up waiting
                continue
            future.set_result(None)
            self._virtual = tag
            self.next_free = max(self.next_free, time.monotonic()) + self.interval
            break
        if self._waiting:
            self._schedule()
        else:
            self._tags.clear()


class Pacer:
    """Admission of every keyed TomTom request: quota, then a paced, fair slot."""

    def __init__(
        self, rates: Mapping[str, float], *, max_wait_s: float, quota_per_minute: int = 0
    ) -> None:
        self._rates = dict(rates)
        self._max_wait_s = max_wait_s
        self._quota = quota_per_minute
        self._buckets: dict[tuple[bytes, str], _Bucket] = {}
        self._used: dict[bytes, deque[float]] = {}
        self._pruned = time.monotonic()

    @property
    def max_wait_s(self) -> float:
        """The longest a request waits for its turn (`TOMTOM_RATE_WAIT_S`)."""
        return self._max_wait_s

    def rate(self, family: Family) -> float:
        return self._rates.get(family.name, family.qps)

    async def admit(self, key: str, family: Family, scope: CallScope) -> float:
        """Wait for the request's turn; the seconds waited. Raises `QuotaError` past the
        key's quota, `RateLimitError` when the wait would be too long."""
        now = time.monotonic()
        if now - self._pruned > _PRUNE_EVERY_S:
            self._prune(now)
        who = key_id(key)
        if self._quota:
            self._check_quota(who, family, now)
        bucket = self._bucket(who, family)
        bound = min(self._max_wait_s, max(0.0, scope.remaining))
        try:
            future = bucket.acquire(scope, bound)
        except _TooLong as exc:
            raise self._refused(family, exc.retry_in) from None
        if future is not None:
            try:
                await asyncio.wait_for(future, bound)
            except TimeoutError:
                raise self._refused(family, bucket.expected_wait()) from None
        waited = time.monotonic() - now
        metrics.RATE_WAIT_SECONDS.labels(family.name).observe(waited)
        if self._quota:
            self._used.setdefault(who, deque()).append(time.monotonic())
        return waited

    def charge(self, key: str, family: Family, count: int) -> None:
        """Count `count` requests more against the key's quota, for a request TomTom bills
        as `count + 1` (a batch, billed per query; a matrix, billed by its cells:
        docs/upstream.md), before it is admitted: `QuotaError` unless the quota has room for
        all of them. Pacing is not charged: it spaces the requests sent, which TomTom's rate
        limits count."""
        if not self._quota or count <= 0:
            return
        now = time.monotonic()
        who = key_id(key)
        if count + 1 > self._quota:
            metrics.RATE_LIMIT_REFUSALS.labels(family.name, "quota").inc()
            raise QuotaError(
                f"This request counts {count + 1:,} TomTom requests (TomTom bills each batch "
                f"query and a matrix by its cells), more than this API key's {self._quota:,} "
                f"per minute on this server (an operator's quota); ask for fewer at a time."
            )
        used = self._used.setdefault(who, deque())
        while used and used[0] <= now - QUOTA_WINDOW_S:
            used.popleft()
        if len(used) + count + 1 > self._quota:
            retry_in = math.ceil(used[0] + QUOTA_WINDOW_S - now) if used else 1
            metrics.RATE_LIMIT_REFUSALS.labels(family.name, "quota").inc()
            raise QuotaError(
                f"This API key's quota of {self._quota:,} TomTom requests per minute on this "
                f"server has less room left than this request's {count + 1:,} billed requests "
                f"(TomTom bills a batch per query, a matrix by its cells); retry in {retry_in} "
                "s, or ask for fewer at a time.",
                retry_after=retry_in,
            )
        used.extend([now] * count)

    def hold(self, key: str, family: Family, seconds: float) -> None:
        """TomTom refused this key's `family` for `seconds`: nothing goes until then."""
        self._bucket(key_id(key), family).hold(seconds)

    def _bucket(self, who: bytes, family: Family) -> _Bucket:
        bucket = self._buckets.get((who, family.name))
        if bucket is None:
            bucket = self._buckets[(who, family.name)] = _Bucket(1.0 / self.rate(family))
        return bucket

    def _check_quota(self, who: bytes, family: Family, now: float) -> None:
        used = self._used.get(who)
        if used is None:
            return
        while used and used[0] <= now - QUOTA_WINDOW_S:
            used.popleft()
        if len(used) >= self._quota:
            retry_in = math.ceil(used[0] + QUOTA_WINDOW_S - now)
            metrics.RATE_LIMIT_REFUSALS.labels(family.name, "quota").inc()
            raise QuotaError(
                f"This API key has used its {self._quota} TomTom requests per minute on this "
                f"server (an operator's quota); retry in {retry_in} s.",
                retry_after=retry_in,
            )

    def _refused(self, family: Family, retry_in: float) -> RateLimitError:
        metrics.RATE_LIMIT_REFUSALS.labels(family.name, "pacing").inc()
        seconds = max(1, math.ceil(retry_in))
        return RateLimitError(
            f"Rate limit: TomTom allows {self.rate(family):g} {family.name} requests per second "
            "for this API key, and this server already has more queued for it than can go in "
            f"time; retry in {seconds} s.",
            retry_after=seconds,
        )

    def _prune(self, now: float) -> None:
        self._pruned = now
        for slot in [s for s, bucket in self._buckets.items() if bucket.idle]:
            del self._buckets[slot]
        for who in [w for w, used in self._used.items() if not used or used[-1] < now - 60]:
            del self._used[who]
