"""Where a job runs, in the fitting pool or on the event loop: the one rule.

A job is measured by the bytes it decodes (TomTom bodies, caller GeoJSON) or, for
map data already built, by its vertices. Past a threshold it runs in the pool, so
the event loop never parses megabytes or fits long lines; below it, it runs on
the loop, where a worker's round trip would cost more than the work itself.
`FIT_INLINE=1` runs everything on the loop (the event-loop benchmark's reference).
The measure also orders the pool's queue (`_admission.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from server.bodies import RawBody
    from server.pool._pool import FitPool

T = TypeVar("T")

POOL_BYTES = 512 * 1024
"""Bodies this large once decoded (a route of about 10,000 points) are decoded in the
pool: a 5 MB body parsed on the event loop stalls every other request of the replica."""

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

    def for_bytes(self, decoded: int) -> int | None:
        """The pool size of a job that decodes `decoded` bytes, or None: it runs on the loop."""
        return decoded if decoded >= POOL_BYTES else None

    def for_bodies(self, bodies: Iterable[RawBody]) -> int | None:
        """`for_bytes` of the bytes `bodies` hold once decoded."""
        return self.for_bytes(sum(body.size for body in bodies))

    def for_points(self, points: int) -> int | None:
        """The pool size of a job that encodes `points` vertices of built map data, or None."""
        return points * POINT_BYTES if points > self._inline_points else None

    def for_image(self, size: int | None) -> int:
        """The pool size of a job that also renders a map image: at least `POOL_BYTES`,
        so it always runs in the pool. Rasterising is CPU work whatever the data's size."""
        return max(size or 0, POOL_BYTES)

    def in_pool(self, size: int | None) -> bool:
        return size is not None and not self._inline_only

    async def run(self, job: Callable[..., T], *args: object, size: int | None) -> T:
        """`job(*args)` in the pool when `size` says so (see `for_*`), else right here."""
        if self.in_pool(size) and self._pool is not None:
            return await self._pool.run_in_process(job, *args, size=size or 0)
        return job(*args)


INLINE = Placement(None)
"""Every job on the loop: for clients built without a pool (tools' unit tests)."""
