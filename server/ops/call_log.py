"""MCP middleware that logs and counts every tool call, whatever the tool does.

One line at INFO per call, with what its work noted in its scope (`call_scope.noted`), and
`tomtom_mcp_tool_calls_total`, so tools stay thin and no call goes unrecorded. It also
enters the call's scope: who is calling, and the deadline its TomTom requests plan against.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from tomtom_mcp_apps.server.ops import call_scope, metrics, tracing

log = logging.getLogger(__name__)

DEADLINE_S = 60.0


def _nobody() -> str | None:
    return None


class ToolCallLog:
    """`ServerMiddleware`: one log line and one counter increment per `tools/call`, run
    within the call's scope of `deadline_s` seconds; a name not among `tools` is counted
    as `other` (a caller's made-up names add no metric series); `who` names the signed-in
    user's id (the log line carries it)."""

    def __init__(
        self,
        tools: Collection[str],
        deadline_s: float = DEADLINE_S,
        who: Callable[[], str | None] = _nobody,
    ) -> None:
        self._tools = frozenset(tools)
        self._deadline_s = deadline_s
        self._who = who

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params if isinstance(ctx.params, dict) else {}
        tool = str(params.get("name", "?"))[:64]
        started = time.perf_counter()
        outcome = "crash"
        user = self._who()
        with call_scope.entered(tool, self._deadline_s, user) as scope:
            try:
                result = await call_next(ctx)
                outcome = "tool_error" if _is_error(result) else "ok"
                return result
            finally:
                tracing.current_span().set_attribute("mcp.tool.outcome", outcome)
                ms = (time.perf_counter() - started) * 1000
                metrics.TOOL_CALLS.labels(metrics.bounded(tool, self._tools), outcome).inc()
                log.log(
                    logging.INFO if outcome == "ok" else logging.WARNING,
                    "tool call",
                    extra={
                        "event": "tool_call",
                        "tool": tool,
                        "outcome": outcome,
                        "ms": round(ms, 2),
                        **scope.facts,
                        **({"user": user} if user is not None else {}),
                    },
                )


def _is_error(result: HandlerResult) -> bool:
    if isinstance(result, dict):
        return bool(result.get("isError") or result.get("is_error"))
    return bool(getattr(result, "is_error", False))
