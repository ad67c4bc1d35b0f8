"""Where work runs, in the fitting pool, a thread or on the event loop: the one rule.

A job is measured by the bytes it decodes or, for map data already built, its vertices:
past a threshold it runs in the pool, below it on the loop (docs/runtime.md). A gzip
trailer's size is the sender's claim, so `settled` decodes on the loop only as far as the
threshold; bytes the loop needs itself are inflated past it in a thread (`decoded`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from tomtom_mcp_apps.server.bodies import (
    IDENTITY,
    TOMTOM,
    Inflation,
    Origin,
    RawBody,
    coding_of,
    decode,
)
from tomtom_mcp_apps.server.pool._admission import BYTES_PER_SECOND

if TYPE_CHECKING:
    from tomtom_mcp_apps.server.pool._pool import FitPool

T = TypeVar("T")

POOL_BYTES = 512 * 1024
"""Bodies this large once decoded (a route of about 10,000 points) are decoded in the
pool: a 5 MB body parsed on the event loop stalls every other request of the replica."""

DECODE_THREADS = 2
"""Bodies inflated in threads at once; more wait their turn. Each holds up to its cap
decoded (20 MiB for a `data_url`), so this bounds what decoding holds, not only the CPU
it takes from the fitting workers on a replica's cores."""

POINT_BYTES = 48
"""What a vertex of built map data weighs as TomTom sends it (a route point with its
progress), so that jobs over built data queue for the pool in the units of route jobs."""


class Placement:
    """Decides, for every job, pool or loop, and runs it there."""

    def __init__(
        self, pool: FitPool | None, *, inline_points: int = 12_000, inline_only: bool = False
    ) -> None:
        self._pool = pool
        self._inline_points = inline_points
        self._inline_only = inline_only or pool is None
        self._decode_inline = inline_only
        """`FIT_INLINE=1`: no thread either (a pool is not needed for threads)."""
        self._threads = asyncio.Semaphore(DECODE_THREADS)

    def for_bytes(self, decoded: int) -> int | None:
        """The pool size of a job that decodes `decoded` bytes, or None: it runs on the loop."""
        return decoded if decoded >= POOL_BYTES else None

    def for_bodies(self, bodies: Iterable[RawBody]) -> int | None:
        """`for_bytes` of the bytes `bodies` hold once decoded."""
        return self.for_bytes(sum(body.size for body in bodies))

    def settled(self, raw: RawBody) -> RawBody:
        """`raw` decoded now when it holds less than the threshold, whatever its trailer
        claims; else measured at least the threshold (`RawBody.settled`)."""
        return raw.settled(POOL_BYTES)

    async def decoded(self, raw: RawBody, origin: Origin = TOMTOM) -> bytes:
        """`raw`'s decoded bytes, for the loop's own use: inflated here up to the threshold,
        the rest in a thread (`DECODE_THREADS` at once). `BodyError` past `raw.limit`, for
        a coding this server refuses, truncated or corrupt gzip."""
        coding = coding_of(raw.encoding, origin)
        if coding == IDENTITY:
            return decode(raw.content, coding, raw.limit, origin)
        inflation = Inflation(raw.content, raw.limit, origin)
        if not inflation.run(budget=None if self._decode_inline else POOL_BYTES):
            async with self._threads:
                await asyncio.to_thread(inflation.run)
        return inflation.result()

    def for_points(self, points: int) -> int | None:
        """The pool size of a job that encodes `points` vertices of built map data, or None."""
        return points * POINT_BYTES if points > self._inline_points else None

    def for_image(self, size: int | None) -> int:
        """The pool size of a job that also renders a map image: at least `POOL_BYTES`,
        so it always runs in the pool. Rasterising is CPU work whatever the data's size."""
        return max(size or 0, POOL_BYTES)

    def for_solve(self, seconds: float) -> int:
        """The pool size of a solver run of `seconds`: always the pool (it is CPU for its
        whole time limit), queued as a job of that expected run time (`BYTES_PER_SECOND`)."""
        return max(POOL_BYTES, int(seconds * BYTES_PER_SECOND))

    def in_pool(self, size: int | None) -> bool:
        return size is not None and not self._inline_only

    async def run(self, job: Callable[..., T], *args: object, size: int | None) -> T:
        """`job(*args)` in the pool when `size` says so (see `for_*`), else right here."""
        if self.in_pool(size) and self._pool is not None:
            return await self._pool.run_in_process(job, *args, size=size or 0)
        return job(*args)


INLINE = Placement(None)
"""Every job on the loop: for clients built without a pool (tools' unit tests)."""
