"""Where jobs run: the fitting process pool, the order of its queue, and the rule that
puts each job in the pool or on the event loop.

- `FitPool`: the bounded, warmed, self-healing `ProcessPoolExecutor`, with one entry
  point, `run_in_process(func, *args, size=...)`;
- `Admission`: jobs waiting for a worker, least work first, none starved;
- `Placement`: pool or loop, for every job (`INLINE`: always the loop).
"""

from __future__ import annotations

from tomtom_mcp_apps.server.pool._admission import BYTES_PER_SECOND, Admission
from tomtom_mcp_apps.server.pool._placement import INLINE, POINT_BYTES, POOL_BYTES, Placement
from tomtom_mcp_apps.server.pool._pool import FitPool

__all__ = [
    "BYTES_PER_SECOND",
    "INLINE",
    "POINT_BYTES",
    "POOL_BYTES",
    "Admission",
    "FitPool",
    "Placement",
]
