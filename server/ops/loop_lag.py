"""The event loop's lag, measured from inside: how late a 50 ms timer fires.

Whatever holds the loop up (a parse, a collection pause, CPU starvation) shows in
`tomtom_mcp_event_loop_lag_seconds`, so operators can watch that long routes never stall
a replica.
"""

from __future__ import annotations

import asyncio

from tomtom_mcp_apps.server.ops import metrics

INTERVAL_S = 0.05


async def watch_loop_lag(interval_s: float = INTERVAL_S) -> None:
    """Observe the lateness of every tick until cancelled."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + interval_s
        await asyncio.sleep(interval_s)
        metrics.LOOP_LAG.observe(max(0.0, loop.time() - due))
