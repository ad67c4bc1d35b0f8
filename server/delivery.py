"""App-data delivery: the tool result of DESIGN.md, with the widget's data inline in `_meta`.

Every model-visible tool ends here. The text for the model gets `show_ui` and
`tool`; the envelope goes into `_meta["com.tomtom/app-data"]` as is when the
whole serialized result fits the budget, fitted (in the process pool for
large data) when it does not, and is left out with a logged reason and a
`com.tomtom/app-data-omitted` marker (so the widget can say why) when even
fitting cannot make it fit. Nothing is kept between requests.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

import fitting
from server import metrics
from server.pool import FitWorkerDied
from server.runtime import Runtime

log = logging.getLogger(__name__)

APP_DATA_KEY = "com.tomtom/app-data"
OMITTED_KEY = "com.tomtom/app-data-omitted"
WIRE_MARGIN = 600
"""Characters kept free for the JSON-RPC envelope and the SDK's own `_meta` keys."""


async def deliver(
    runtime: Runtime,
    *,
    tool: str,
    answer: dict[str, Any],
    data: dict[str, Any] | None,
    show_ui: bool,
) -> CallToolResult:
    """The tool result for `answer` (to the model) and `data` (to the widget)."""
    has_data = data is not None and show_ui
    text_obj = {**answer, "show_ui": show_ui}
    if has_data:
        text_obj["tool"] = tool
    meta: dict[str, Any] = {"show_ui": show_ui, "tool": tool}
    if not has_data:
        outcome = "omitted_show_ui_false" if not show_ui else "none"
        metrics.APP_DATA_OUTCOMES.labels(tool, outcome).inc()
        return _result(text_obj, meta)

    envelope = {"v": 1, "tool": tool, "data": data, "fitted": None}
    budget = runtime.settings.budget - _size(_result(text_obj, {**meta, APP_DATA_KEY: ""}))
    started = time.perf_counter()
    try:
        if budget <= 0:
            raise fitting.DoesNotFit(f"the text answer alone leaves no room ({-budget} over)")
        where, fitted = await _fit(runtime, envelope, budget)
    except fitting.DoesNotFit as exc:
        return _omitted(tool, text_obj, meta, "too_large", str(exc))
    except fitting.FittingError as exc:  # InvalidGeometry, or data that is not JSON
        log.error(
            "app data rejected by fitting",
            extra={"event": "app_data_invalid", "tool": tool, "reason": str(exc)},
        )
        return _omitted(tool, text_obj, meta, "invalid", str(exc))
    except FitWorkerDied as exc:
        raise ToolError(str(exc)) from None
    ms = (time.perf_counter() - started) * 1000
    metrics.FIT_SECONDS.labels(where).observe(ms / 1000)
    outcome = "fitted" if fitted.report else "as_is"
    metrics.APP_DATA_OUTCOMES.labels(tool, outcome).inc()
    metrics.APP_DATA_CHARS.labels(tool).observe(len(fitted.app_data))
    meta[APP_DATA_KEY] = fitted.app_data
    result = _result(text_obj, meta)
    log.info(
        "app data inline",
        extra={
            "event": "app_data",
            "tool": tool,
            "outcome": outcome,
            "where": where,
            "chars": len(fitted.app_data),
            "budget": budget,
            "ms": round(ms, 2),
            **({"fitted": fitted.report} if fitted.report else {}),
        },
    )
    return result


async def app_data_page(
    runtime: Runtime, *, tool: str, data: dict[str, Any], offset: int
) -> CallToolResult:
    """One chunk of the encoded envelope of `data`, from `offset`, for the widget to page."""
    envelope = {"v": 1, "tool": tool, "data": data, "fitted": None}
    # Unbounded budget: data-viz data is never altered, the widget pages through it.
    _, encoded = await _fit(runtime, envelope, 1 << 62, always_pool=True)
    full = encoded.app_data
    if not 0 <= offset < max(len(full), 1):
        raise ToolError(f"offset {offset} is outside the app data (0 to {len(full) - 1})")
    text_obj = {"tool": tool, "offset": offset, "total": len(full)}
    # "has_more": false is the longer spelling, so the chunk's room is measured with it.
    meta: dict[str, Any] = {**text_obj, "has_more": False}
    room = runtime.settings.budget - _size(_result(text_obj, {**meta, APP_DATA_KEY: ""}))
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
    return _result(text_obj, meta)


async def _fit(
    runtime: Runtime, envelope: dict[str, Any], budget: int, *, always_pool: bool = False
) -> tuple[str, fitting.FitResult]:
    settings = runtime.settings
    small = not always_pool and fitting.point_count(envelope) <= settings.inline_points
    if settings.fit_inline or small:
        return "inline", fitting.fit(envelope, budget)
    return "pool", await runtime.pool.run_in_process(fitting.fit, envelope, budget)


def _omitted(
    tool: str, text_obj: dict[str, Any], meta: dict[str, Any], reason: str, detail: str
) -> CallToolResult:
    metrics.APP_DATA_OUTCOMES.labels(tool, f"omitted_{reason}").inc()
    log.warning(
        "app data omitted",
        extra={"event": "app_data_omitted", "tool": tool, "reason": reason, "detail": detail},
    )
    text_obj = {**text_obj, "map": f"not shown: the map data is {reason.replace('_', ' ')}"}
    return _result(text_obj, {**meta, OMITTED_KEY: f"{reason}: {detail}"[:500]})


def _result(text_obj: dict[str, Any], meta: dict[str, Any]) -> CallToolResult:
    text = orjson.dumps(text_obj).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], _meta=meta)


def _size(result: CallToolResult) -> int:
    """Characters of `result` as serialized on the wire, plus the JSON-RPC envelope."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True)) + WIRE_MARGIN
