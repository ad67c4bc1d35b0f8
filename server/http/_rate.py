"""A token bucket per identity, per replica: bounded memory, no shared store.

One per client at the front door (`client_of`), one per tile grant at the tile route
(`Grant.id`, never the token's text).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable


class RateLimiter:
    """`rate` requests a second per id, in bursts of up to `burst`.

    The least recently seen ids are forgotten beyond `max_ids` (a forgotten id starts
    with a full bucket again), so a flood of distinct tokens costs bounded memory.
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        max_ids: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._max_ids = max_ids
        self._clock = clock
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def take(self, ident: Hashable) -> int | None:
        """None when `ident` may make a request now (one is spent), else the whole
        seconds to wait before asking again (for `Retry-After`)."""
        now = self._clock()
        tokens, last = self._buckets.pop(ident, (self._burst, now))
        tokens = min(self._burst, tokens + (now - last) * self._rate)
        wait = None
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = max(1, math.ceil((1.0 - tokens) / self._rate))
        self._buckets[ident] = (tokens, now)
        if len(self._buckets) > self._max_ids:
            self._buckets.popitem(last=False)
        return wait
