"""The windows a user's budget is counted in: fixed windows on the wall clock (UTC).

Every replica (and Redis) agrees from its own clock which window a request falls in, so a
counter needs only its key, and "retry in N s" is the time to the window's end. A burst
may straddle two windows (docs/sign-in.md, Per-user budgets).
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
