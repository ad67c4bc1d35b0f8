"""The order in which jobs enter the fitting pool: least work first, no job starved.

A waiting job's deadline is its arrival plus its expected run time (`size` bytes at
`BYTES_PER_SECOND`), and a freed worker goes to the earliest: a small job overtakes a big
one only if it arrived within the big one's run time after it (docs/runtime.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import AsyncIterator

BYTES_PER_SECOND = 32 * 1024 * 1024
"""Decoded input a worker gets through per second, decode, build and fit together
(measured on maps and routes)."""


class Admission:
    """At most `slots` jobs at once; the rest wait, earliest deadline first (in order of
    arrival when `bytes_per_second` is None: FIT_ORDER=arrival)."""

    def __init__(self, slots: int, bytes_per_second: float | None = BYTES_PER_SECOND) -> None:
        self._free = slots
        self._rate = bytes_per_second
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()
        self.waiting_bytes = 0
        """The sizes of the jobs waiting for a slot, summed."""

    @property
    def waiting(self) -> int:
        return sum(1 for *_, future in self._waiting if not future.done())

    @contextlib.asynccontextmanager
    async def slot(self, size: int) -> AsyncIterator[None]:
        """Hold one slot for the block; `size` is the bytes the job will decode."""
        await self._acquire(size)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, size: int) -> None:
        if self._free and not self._waiting:
            self._free -= 1
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        deadline = loop.time() + (size / self._rate if self._rate else 0.0)
        heapq.heappush(self._waiting, (deadline, next(self._arrivals), future))
        self.waiting_bytes += size
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # granted a slot just as it was cancelled: pass it on
            raise
        finally:
            self.waiting_bytes -= size

    def _release(self) -> None:
        while self._waiting:
            *_, future = heapq.heappop(self._waiting)
            if not future.done():  # a cancelled waiter's future is done
                future.set_result(None)
                return
        self._free += 1
