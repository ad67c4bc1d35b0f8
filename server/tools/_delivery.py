"""App-data delivery: every model-visible tool ends here.

`deliver_job` runs a tool's `Job` where `server.pool.Placement` says, counts and notes what
became of the app data, and flags an offline result; `deliver` does the same for an answer
already read on the loop. A job's `ToolCallError` ends the call as a tool error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVarTuple

from mcp_types import CallToolResult

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.bodies import DROPPED_KEY
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, Prepared, prepare
from tomtom_mcp_apps.server.ops import call_scope, metrics
from tomtom_mcp_apps.server.runtime import Runtime

__all__ = ["Job", "deliver", "deliver_job"]

log = logging.getLogger(__name__)

Ts = TypeVarTuple("Ts")


@dataclass(frozen=True)
class Job(Generic[*Ts]):
    """One tool result to make: `func(*args)`, a function of `server.jobs` (it and its
    arguments pickle: it may run in a worker)."""

    tool: str
    """The tool whose result it makes (logs and metrics are labelled with it)."""
    func: Callable[[*Ts], Prepared]
    args: tuple[*Ts]
    size: int | None
    """The job's `Placement.for_*` measure: where it runs, and its place in the pool's queue."""
    offline: bool
    """The offline upstream answered (`Caller.offline`): the result says it is demo data."""


async def deliver(
    runtime: Runtime,
    *,
    tool: str,
    answer: dict[str, Any],
    data: dict[str, Any] | None,
    show_ui: bool,
    offline: bool,
) -> CallToolResult:
    """The tool result for `answer` (to the model) and `data` (to the widget), made by
    `jobs.prepare`; `offline`: the offline upstream answered."""
    points = 0 if data is None or not show_ui else fitting.point_count({"data": data})
    budget = runtime.settings.budget
    job = Job(
        tool=tool,
        func=prepare,
        args=(tool, answer, data, show_ui, budget),
        size=runtime.placement.for_points(points),
        offline=offline,
    )
    return await deliver_job(runtime, job)


async def deliver_job(runtime: Runtime, job: Job[*Ts]) -> CallToolResult:
    """The tool result `job` makes, run where `runtime.placement` puts it, then logged,
    counted and returned."""
    started = time.perf_counter()
    prepared = await runtime.placement.run(job.func, *job.args, size=job.size)
    where = "pool" if runtime.placement.in_pool(job.size) else "inline"
    _record(job.tool, prepared, where, (time.perf_counter() - started) * 1000)
    return prepared.result(offline=job.offline)


def _record(tool: str, prepared: Prepared, where: str, ms: float) -> None:
    metrics.APP_DATA_OUTCOMES.labels(tool, prepared.outcome).inc()
    dropped = prepared.text.get(DROPPED_KEY)
    if dropped:
        metrics.UPSTREAM_DROPPED.labels(tool).inc(sum(dropped.values()))
        log.warning(
            "malformed TomTom entries dropped",
            extra={"event": "upstream_dropped", "tool": tool, "dropped": dropped},
        )
    # What became of the app data goes on the call's one log line (`call_scope`).
    if prepared.outcome in ("page", "plan", "paged"):  # data-viz's pages
        call_scope.noted(
            app_data=prepared.outcome,
            app_data_detail=prepared.detail,
            app_data_chars=len(prepared.meta.get(APP_DATA_KEY, "")),
            app_data_where=where,
            app_data_ms=round(ms, 2),
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
        call_scope.noted(app_data=prepared.outcome)
        return
    metrics.FIT_SECONDS.labels(where).observe(prepared.fit_ms / 1000)
    metrics.APP_DATA_CHARS.labels(tool).observe(len(app_data))
    call_scope.noted(
        app_data=prepared.outcome,
        app_data_chars=len(app_data),
        app_data_budget=prepared.budget,
        app_data_where=where,
        app_data_ms=round(ms, 2),
        **({"fitted": prepared.report} if prepared.report else {}),
    )
