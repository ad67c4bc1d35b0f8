"""The event loop's lag, measured from inside: how late a 50 ms timer fires.

The one number that says whether anything (a parse, a collection pause, CPU
starvation) holds the loop up, so operators can watch the promise that long
routes never stall a replica (`tomtom_mcp_event_loop_lag_seconds`). Twenty
wake-ups a second cost next to nothing.
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
