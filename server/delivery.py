"""App-data delivery: where each tool result is prepared, and what gets logged and counted.

Every model-visible tool ends here. `server.app_data.prepare` builds the result
(app data inline in `_meta`, fitted when too large, omitted with a reason when
even fitting cannot help); this module runs it on the event loop when the data
is small and in the fitting pool when not, then records the outcome. Long
routes take a shorter way: `deliver_prepared` runs a whole `server.route_job`
(decode, build, fit) in a worker, so that their bodies never touch the loop.
Nothing is kept between requests.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

import fitting
from server import metrics
from server.app_data import APP_DATA_KEY, OMITTED_KEY, Prepared, prepare, result, wire_size
from server.pool import FitWorkerDied
from server.runtime import Runtime
from server.upstream_body import BodyError

__all__ = ["APP_DATA_KEY", "OMITTED_KEY", "app_data_page", "deliver", "deliver_prepared"]

log = logging.getLogger(__name__)


async def deliver(
    runtime: Runtime,
    *,
    tool: str,
    answer: dict[str, Any],
    data: dict[str, Any] | None,
    show_ui: bool,
) -> CallToolResult:
    """The tool result for `answer` (to the model) and `data` (to the widget)."""
    small = data is None or not show_ui
    small = small or fitting.point_count({"data": data}) <= runtime.settings.inline_points
    return await deliver_prepared(
        runtime, tool, not small, prepare, tool, answer, data, show_ui, runtime.settings.budget
    )


async def deliver_prepared(
    runtime: Runtime,
    tool: str,
    heavy: bool,
    job: Callable[..., Prepared],
    *args: Any,
) -> CallToolResult:
    """`job(*args)` (a `prepare`, or a route job ending in one) in the pool when `heavy`
    and FIT_INLINE is off, else on the event loop; then logged, counted and returned."""
    where = "pool" if heavy and not runtime.settings.fit_inline else "inline"
    started = time.perf_counter()
    try:
        if where == "pool":
            prepared = await runtime.pool.run_in_process(job, *args)
        else:
            prepared = job(*args)
    except (FitWorkerDied, BodyError) as exc:  # BodyError: a route job's TomTom body
        raise ToolError(str(exc)) from None
    _record(tool, prepared, where, (time.perf_counter() - started) * 1000)
    return prepared.result()


def _record(tool: str, prepared: Prepared, where: str, ms: float) -> None:
    metrics.APP_DATA_OUTCOMES.labels(tool, prepared.outcome).inc()
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


async def app_data_page(
    runtime: Runtime, *, tool: str, data: dict[str, Any], offset: int
) -> CallToolResult:
    """One chunk of the encoded envelope of `data`, from `offset`, for the widget to page."""
    envelope = {"v": 1, "tool": tool, "data": data, "fitted": None}
    # Unbounded budget: data-viz data is never altered, the widget pages through it.
    if runtime.settings.fit_inline:
        encoded = fitting.fit(envelope, 1 << 62)
    else:
        try:
            encoded = await runtime.pool.run_in_process(fitting.fit, envelope, 1 << 62)
        except FitWorkerDied as exc:
            raise ToolError(str(exc)) from None
    full = encoded.app_data
    if not 0 <= offset < max(len(full), 1):
        raise ToolError(f"offset {offset} is outside the app data (0 to {len(full) - 1})")
    text_obj = {"tool": tool, "offset": offset, "total": len(full)}
    # "has_more": false is the longer spelling, so the chunk's room is measured with it.
    meta: dict[str, Any] = {**text_obj, "has_more": False}
    room = runtime.settings.budget - wire_size(result(text_obj, {**meta, APP_DATA_KEY: ""}))
    chunk = full[offset : offset + room]
    meta.update({APP_DATA_KEY: chunk, "has_more": offset + len(chunk) < len(full)})
    log.info(
        "app data page",
        extra={
            "event": "app_data_page",
            "tool": tool,
            "offset": offset,
            "chars": len(chunk),
            "total": len(full),
        },
    )
    return result(text_obj, meta)
