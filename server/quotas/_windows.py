"""The windows a user's budget is counted in: fixed windows on the wall clock (UTC).

A minute window starts at every whole minute, a day window at midnight UTC: every
replica (and Redis) agrees on which window a request falls in from its own clock, so
counters need no coordination beyond their key, and "retry in N s" is the time to the
window's end. A burst may straddle two windows (up to twice a minute's budget within
a minute); docs/adr/0077 says why that is accepted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Window:
    name: str
    """`minute` or `day`: the label of refusals, and part of the counter's key."""
    seconds: int
    limit: int
    """Requests a user may cause in one window (0: no limit)."""

    def index(self, now: float) -> int:
        """Which window `now` (unix seconds) falls in."""
        return int(now // self.seconds)

    def left(self, now: float) -> float:
        """Seconds from `now` to the end of its window."""
        return self.seconds - now % self.seconds

    def retry_in(self, now: float) -> int:
        """Whole seconds to wait for the next window (at least 1)."""
        return max(1, math.ceil(self.left(now)))


def windows(per_minute: int, per_day: int) -> tuple[Window, ...]:
    """The windows with a limit, shortest first."""
    every = (Window("minute", 60, per_minute), Window("day", 86_400, per_day))
    return tuple(window for window in every if window.limit > 0)
