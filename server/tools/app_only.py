"""Tools only the widgets call (`_meta.ui.visibility: ["app"]`).

- `tomtom-get-app-data` runs data-viz again from the widget's own tool input and
  answers with the page plan or one page of features (with `span`, from the page's bytes
  of the `data_url` alone, where its host honours `Range`); it refuses every other tool,
  because TomTom requests are billed and are never repeated for a widget
  (docs/architecture.md).
- `tomtom-report-app-status` logs what a widget showed, and in which host, so an
  empty map is never silent (counted per host with bounded labels, `_reports.py`).
- `tomtom-get-map-config` gives the widget URL templates on this server's tile
  route (`server.tiles`) with a sealed, short-lived token; the TomTom key never
  leaves the server (docs/front-door.md). With sign-in it answers signed-in callers only,
  each call spends one request of the user's budget, the token carries the user, whose
  budget the tiles spend, and asked again it gives the same grant while it holds
  (docs/sign-in.md). It
  also tells the view whether `tomtom-refetch-app-data` serves here (`refetch`).
- `tomtom-refetch-app-data`, with `VIEW_REFETCH=on` only, runs a TomTom tool again from
  its tool input for a view whose host dropped the result's `_meta`: the operator's
  choice to pay for a second request, which says so everywhere (docs/views.md).
"""

from __future__ import annotations

import logging
import time
from typing import Annotated, Any, Literal

import orjson
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from tomtom_mcp_apps.server.jobs import REFETCHED_KEY
from tomtom_mcp_apps.server.ops import call_scope, metrics
from tomtom_mcp_apps.server.tiles import LAYER_NAMES
from tomtom_mcp_apps.server.tool_names import (
    DATA_VIZ,
    GET_APP_DATA,
    GET_MAP_CONFIG,
    MODEL_TOOLS,
    REFETCH_APP_DATA,
    REFETCHABLE,
)
from tomtom_mcp_apps.server.tools._arguments import explain_arguments
from tomtom_mcp_apps.server.tools._caller import Caller, caller_identity, runtime_of
from tomtom_mcp_apps.server.tools._data_viz import (
    deliver_data_viz_features,
    deliver_data_viz_plan,
)
from tomtom_mcp_apps.server.tools._inputs import ByteSpan, DataVizArgs, PageRange
from tomtom_mcp_apps.server.tools._reports import HostInfo, host_label, platform_label, reason_label

logger = logging.getLogger(__name__)

MAP_CONFIG_KEY = "com.tomtom/map-config"
WIDGET_TOOLS = frozenset(MODEL_TOOLS)
"""Tools whose widgets report; any other name is counted as `other` (bounded label values)."""
TileLayer = Literal[LAYER_NAMES]  # type: ignore[valid-type]
"""A tile layer of `server.tiles`, by name (the schema lists them)."""


async def get_app_data(
    ctx: Context,
    tool: Annotated[str, Field(max_length=64, description="Must be 'tomtom-data-viz'")],
    arguments: Annotated[dict[str, Any], Field(description="The data-viz tool input")],
    plan: Annotated[
        bool, Field(description="Answer with the page plan: features, pages, digest")
    ] = False,
    page: Annotated[
        PageRange | None, Field(description="The page of features to answer with, from the plan")
    ] = None,
    span: Annotated[
        ByteSpan | None,
        Field(description="The page's bytes in the file at data_url, from the plan's spans"),
    ] = None,
) -> CallToolResult:
    if tool != DATA_VIZ:
        logger.warning("get-app-data refused for tool %r", tool[:64])
        raise ToolError(
            f"{GET_APP_DATA} serves only {DATA_VIZ}; {tool!r} is refused. TomTom "
            "tools are never run again for a widget: their data travels in the tool result."
        )
    try:
        args = DataVizArgs.model_validate(arguments)
    except ValidationError as exc:
        raise ToolError(explain_arguments(exc, under="arguments")) from None
    if page is not None:
        return await deliver_data_viz_features(
            runtime_of(ctx), args, page.start, page.stop, page.digest, span
        )
    if plan:
        return await deliver_data_viz_plan(runtime_of(ctx), args)
    raise ToolError(
        f"{GET_APP_DATA} needs plan: true (the page plan) or page: {{from, to, digest}} "
        "(one page of that plan)."
    )


async def report_app_status(
    tool: Annotated[str, Field(max_length=64, description="The tool whose result is shown")],
    status: Literal["ok", "error"],
    reason: Annotated[str, Field(max_length=200, description="Short machine-readable cause")],
    detail: Annotated[str, Field(max_length=2000, description="Human-readable detail")] = "",
    host: Annotated[
        HostInfo | None,
        Field(description="The host the view runs in: name, version and platform"),
    ] = None,
) -> CallToolResult:
    # Drawn without its map engine is a degradation an operator looks for, as errors are.
    level = logging.INFO if status == "ok" and reason != "fallback" else logging.WARNING
    logger.log(
        level,
        "widget for %s reported %s: %s",
        tool,
        status,
        reason,
        extra={
            "event": "app_status",
            "tool": tool,
            "status": status,
            "reason": reason,
            "detail": detail,
            "host": host.name if host else "",
            "host_version": host.version if host else "",
            "platform": host.platform if host else "",
        },
    )
    metrics.WIDGET_STATUS.labels(
        metrics.bounded(tool, WIDGET_TOOLS),
        status,
        reason_label(reason),
        host_label(host),
        platform_label(host),
    ).inc()
    return CallToolResult(content=[TextContent(type="text", text='{"logged": true}')])


async def get_map_config(
    ctx: Context,
    layers: Annotated[
        list[TileLayer] | None,
        Field(max_length=4, description="The tile layers the view draws (default: all)"),
    ] = None,
) -> CallToolResult:
    caller = Caller.of(ctx)
    if caller.runtime.settings.sign_in and caller.user is None:
        raise ToolError(
            f"{GET_MAP_CONFIG} answers signed-in callers only on this server: sign in "
            "(OAuth) and call it again."
        )
    tiles = caller.runtime.tiles
    refetch = caller.runtime.settings.view_refetch
    config: dict[str, Any] = {"tiles": {}, "refetch": refetch}
    if caller.offline:
        config["offline"] = True
        config["reason"] = "offline demo data: no TomTom tiles"
    elif tiles is None:
        config["reason"] = "this server serves no tiles (TILE_TOKEN_SECRET is not set)"
    else:
        effective = caller.tomtom.key_for(caller.key)
        assert effective is not None  # serves_offline is false only with a key
        user = caller.user.id if caller.user is not None else None
        if user is not None and caller.runtime.budgets is not None:
            await caller.runtime.budgets.spend(user)  # a grant is worth a request
        granted = tiles.map_tiles(effective, layers or LAYER_NAMES, user)
        config["tiles"] = granted.templates
        config["expires_at"] = granted.expires
        config["expires_in"] = max(1, granted.expires - int(time.time()))
    said = {
        "map_config": "in _meta",
        "tiles": sorted(config["tiles"]),
        "view_refetch": refetch,
        **({"note": config["reason"]} if "reason" in config else {}),
    }
    return CallToolResult(
        content=[TextContent(type="text", text=orjson.dumps(said).decode())],
        _meta={MAP_CONFIG_KEY: config},
    )


async def refetch_app_data(
    ctx: Context,
    tool: Annotated[
        str, Field(max_length=64, description="The TomTom tool whose result had no data")
    ],
    arguments: Annotated[
        dict[str, Any], Field(description="That tool's input, as the view received it")
    ],
) -> CallToolResult:
    runtime = runtime_of(ctx)
    if runtime.refetches is None:
        _refetched(tool, "off")
        raise ToolError(
            f"{REFETCH_APP_DATA} is off on this server (VIEW_REFETCH): TomTom requests are "
            "billed, so a TomTom tool never runs again for a view; the view says why it has "
            "no data."
        )
    if tool not in REFETCHABLE:
        _refetched(tool, "refused_tool")
        raise ToolError(
            f"{REFETCH_APP_DATA} runs only the TomTom tools with a view "
            f"({', '.join(REFETCHABLE)}); {tool[:64]!r} is refused."
        )
    wait = runtime.refetches.take(caller_identity(ctx))
    if wait is not None:
        _refetched(tool, "capped")
        raise ToolError(
            f"View refetches are capped at {runtime.settings.view_refetch_per_min} a minute "
            f"per user on this server; try again in {wait} s."
        )
    logger.warning(
        "view refetch: %s runs again",
        tool,
        extra={"event": "view_refetch", "tool": tool},
    )
    with call_scope.refetch():
        try:
            # The tool as registered (the TOOLS table): its own argument checks, its own
            # errors, the same request; the caller's key from this request's headers.
            result = await ctx.mcp_server.call_tool(tool, arguments, ctx)
        except ToolError as exc:
            _refetched(tool, "tool_error")
            return CallToolResult(
                content=[TextContent(type="text", text=str(exc))],
                is_error=True,
                _meta={REFETCHED_KEY: True},
            )
    assert isinstance(result, CallToolResult)  # TomTom tools ask no input of the user
    _refetched(tool, "tool_error" if result.is_error else "ok")
    return result.model_copy(update={"meta": {**(result.meta or {}), REFETCHED_KEY: True}})


def _refetched(tool: str, outcome: str) -> None:
    metrics.VIEW_REFETCHES.labels(tool if tool in REFETCHABLE else "other", outcome).inc()
