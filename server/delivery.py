"""App-data delivery: where each tool result is prepared, and what gets logged and counted.

Every model-visible tool ends here. `server.app_data.prepare` builds the result
(app data inline in `_meta`, fitted when too large, omitted with a reason when
even fitting cannot help); this module runs it on the event loop when the data
is small and in the fitting pool when not, then records the outcome. Long
routes and large GeoJSON take a shorter way: `deliver_prepared` runs a whole
job (`server.route_job`, `server.data_viz_job`: decode, build, fit) in a
worker, so that their bodies are never parsed on the loop.
Nothing is kept between requests.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

import fitting
from server import metrics
from server.app_data import APP_DATA_KEY, OMITTED_KEY, JobError, Prepared, prepare
from server.pool import FitWorkerDied
from server.runtime import Runtime

__all__ = ["APP_DATA_KEY", "OMITTED_KEY", "deliver", "deliver_prepared", "run_job"]

log = logging.getLogger(__name__)

T = TypeVar("T")

POINT_BYTES = 48
"""What a vertex of built map data weighs as TomTom sends it (a route point with its
progress), so that `prepare` jobs queue for the pool in the units of route jobs."""


async def deliver(
    runtime: Runtime,
    *,
    tool: str,
    answer: dict[str, Any],
    data: dict[str, Any] | None,
    show_ui: bool,
) -> CallToolResult:
    """The tool result for `answer` (to the model) and `data` (to the widget)."""
    points = 0 if data is None or not show_ui else fitting.point_count({"data": data})
    size = points * POINT_BYTES if points > runtime.settings.inline_points else None
    return await deliver_prepared(
        runtime, tool, size, prepare, tool, answer, data, show_ui, runtime.settings.budget
    )


async def deliver_prepared(
    runtime: Runtime,
    tool: str,
    size: int | None,
    job: Callable[..., Prepared],
    *args: Any,
) -> CallToolResult:
    """`job(*args)` (`prepare`, or a route or data-viz job) run by `run_job`, then logged,
    counted and returned."""
    started = time.perf_counter()
    prepared = await run_job(runtime, size, job, *args)
    where = "pool" if in_pool(runtime, size) else "inline"
    _record(tool, prepared, where, (time.perf_counter() - started) * 1000)
    return prepared.result()


async def run_job(runtime: Runtime, size: int | None, job: Callable[..., T], *args: Any) -> T:
    """`job(*args)` in the pool when it has a `size` (the bytes it decodes: see
    `server.upstream_body.pool_size`) and FIT_INLINE is off, else on the event loop;
    its JobError, or a dead worker, becomes a tool error."""
    try:
        if in_pool(runtime, size):
            return await runtime.pool.run_in_process(job, *args, size=size or 0)
        return job(*args)
    except (FitWorkerDied, JobError) as exc:
        raise ToolError(str(exc)) from None


def in_pool(runtime: Runtime, size: int | None) -> bool:
    return size is not None and not runtime.settings.fit_inline


def _record(tool: str, prepared: Prepared, where: str, ms: float) -> None:
    metrics.APP_DATA_OUTCOMES.labels(tool, prepared.outcome).inc()
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
