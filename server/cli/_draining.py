"""uvicorn, stopping as `server.ops.drain` describes: drain first, then shut down.

SIGTERM starts the drain; the listening sockets close `delay_s` later and uvicorn's
graceful shutdown follows, all within `timeout_s` of the signal (docs/operations.md,
Draining). SIGINT skips the delay; a second signal forces the exit.
"""

from __future__ import annotations

import signal
import time
from types import FrameType

import uvicorn

from tomtom_mcp_apps.server.ops.drain import Drain

SETTLE_S = 1.0
"""After the listener closes, time for requests on connections it has just accepted to
arrive before uvicorn closes the connections that look idle."""


class DrainingServer(uvicorn.Server):
    def __init__(
        self, config: uvicorn.Config, drain: Drain, *, delay_s: float, timeout_s: float
    ) -> None:
        config.timeout_graceful_shutdown = max(1, round(timeout_s - delay_s - SETTLE_S))
        super().__init__(config)
        self._drain = drain
        self._delay_s = delay_s
        self._closed_at: float | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._drain.active:  # a second signal: stop now
            super().handle_exit(sig, frame)
            self.force_exit = True
            return
        if sig == signal.SIGINT:
            self._delay_s = 0.0
        self._drain.begin(signal.Signals(sig).name)

    async def on_tick(self, counter: int) -> bool:
        since = self._drain.since
        if since is not None and not self.should_exit:
            now = time.monotonic()
            if self._closed_at is None and now - since >= self._delay_s:
                for server in self.servers:
                    server.close()  # stop accepting; open connections carry on
                self._closed_at = now
            elif self._closed_at is not None and now - self._closed_at >= SETTLE_S:
                self.should_exit = True  # uvicorn's graceful shutdown from here
        return await super().on_tick(counter)
