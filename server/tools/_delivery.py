"""App-data delivery: every model-visible tool ends here.

`deliver` sends an answer and its map data; `deliver_job` runs a whole job from
`server.jobs` (decode, build, fit: long routes and large GeoJSON, whose bodies
are never parsed on the loop). Both run where `server.pool.Placement` says, and
log and count what became of the app data (inline as is, fitted, omitted and
why). A result answered by the offline upstream is flagged for the model and the
view (`offline=`). Nothing is kept between requests.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from mcp_types import CallToolResult

import fitting
from server.bodies import DROPPED_KEY
from server.jobs import APP_DATA_KEY, Prepared, prepare
from server.ops import metrics
from server.runtime import Runtime

__all__ = ["deliver", "deliver_job"]

log = logging.getLogger(__name__)


async def deliver(
    runtime: Runtime,
    *,
    tool: str,
    answer: dict[str, Any],
    data: dict[str, Any] | None,
    show_ui: bool,
    offline: bool,
) -> CallToolResult:
    """The tool result for `answer` (to the model) and `data` (to the widget); `offline`:
    the offline upstream answered (`TomTomClient.serves_offline`)."""
    points = 0 if data is None or not show_ui else fitting.point_count({"data": data})
    return await deliver_job(
        runtime,
        tool,
        runtime.placement.for_points(points),
        prepare,
        tool,
        answer,
        data,
        show_ui,
        runtime.settings.budget,
        offline=offline,
    )


async def deliver_job(
    runtime: Runtime,
    tool: str,
    size: int | None,
    job: Callable[..., Prepared],
    *args: Any,
    offline: bool,
) -> CallToolResult:
    """`job(*args)` (`prepare`, or a route or data-viz job) run where `runtime.placement`
    puts it, then logged, counted and returned; `size` is the job's `Placement.for_*`
    measure; `offline` flags a result the offline upstream answered. A job's failure (a
    `ToolCallError`) ends the call as a tool error (`server.app.TomTomServer`)."""
    started = time.perf_counter()
    prepared = await runtime.placement.run(job, *args, size=size)
    where = "pool" if runtime.placement.in_pool(size) else "inline"
    _record(tool, prepared, where, (time.perf_counter() - started) * 1000)
    return prepared.result(offline=offline)


def _record(tool: str, prepared: Prepared, where: str, ms: float) -> None:
    metrics.APP_DATA_OUTCOMES.labels(tool, prepared.outcome).inc()
    dropped = prepared.text.get(DROPPED_KEY)
    if dropped:
        metrics.UPSTREAM_DROPPED.labels(tool).inc(sum(dropped.values()))
        log.warning(
            "malformed TomTom entries dropped",
            extra={"event": "upstream_dropped", "tool": tool, "dropped": dropped},
        )
    if prepared.outcome == "page":
        log.info(
            "app data page",
            extra={
                "event": "app_data_page",
                "tool": tool,
                "offset": prepared.text["offset"],
                "chars": len(prepared.meta[APP_DATA_KEY]),
                "total": prepared.text["total"],
                "where": where,
            },
        )
        return
    if prepared.outcome.startswith("omitted_") and prepared.detail:
        level = logging.ERROR if prepared.outcome == "omitted_invalid" else logging.WARNING
        log.log(
            level,
            "app data omitted",
            extra={
                "event": "app_data_omitted",
                "tool": tool,
                "reason": prepared.outcome.removeprefix("omitted_"),
                "detail": prepared.detail,
            },
        )
    app_data = prepared.meta.get(APP_DATA_KEY)
    if app_data is None:
        return
    metrics.FIT_SECONDS.labels(where).observe(prepared.fit_ms / 1000)
    metrics.APP_DATA_CHARS.labels(tool).observe(len(app_data))
    log.info(
        "app data inline",
        extra={
            "event": "app_data",
            "tool": tool,
            "outcome": prepared.outcome,
            "where": where,
            "chars": len(app_data),
            "budget": prepared.budget,
            "ms": round(ms, 2),
            **({"fitted": prepared.report} if prepared.report else {}),
        },
    )
