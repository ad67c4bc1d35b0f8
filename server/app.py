"""The Starlette app: stateless MCP on `POST /mcp`, plus `/tiles`, `/health`, `/metrics` and
`/preview`; and the same server over stdio for local hosts (`build_stdio_server`).

`build_server()` makes the `MCPServer`, whose lifespan owns the long-lived resources
(`server.runtime.running`) for whichever transport serves it; `build_app()` wraps it for
uvicorn. Nothing is kept between requests, so any replica answers any request.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from mcp.server import MCPServer
from mcp.server.apps import Apps
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tomtom_mcp_apps import fitting, widgets
from tomtom_mcp_apps.server.auth import SignIn, build_sign_in, current_user, user_id_in
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import ToolCallError
from tomtom_mcp_apps.server.http import DoorLimits, FrontDoor, SignedInShares
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.ops.call_log import ToolCallLog
from tomtom_mcp_apps.server.ops.drain import CloseWhileDraining, Drain
from tomtom_mcp_apps.server.ops.heap import freeze_startup_heap
from tomtom_mcp_apps.server.ops.loop_lag import watch_loop_lag
from tomtom_mcp_apps.server.product import NAME, VERSION
from tomtom_mcp_apps.server.protocol import ProtocolSurface, TrimmedHeaders
from tomtom_mcp_apps.server.runtime import Runtime, build_runtime, running
from tomtom_mcp_apps.server.tools import (
    TOOLS,
    explain_arguments,
    register_earlier_views,
    register_plain_tools,
    register_tools,
    register_views,
)

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "TomTom maps: search places (also inside areas), geocode, route between [lon, lat] "
    "positions (trucks, best order, alternatives), EV charging stations and EV trips with "
    "charging stops, reachable ranges, live traffic, and maps of the caller's GeoJSON. Each "
    "tool shows an interactive map to the user when the host supports MCP Apps (routing and "
    "dynamic-map also attach a PNG with image=true); its text answer is for you. Pass "
    "show_ui=false when the user does not need to see a map."
)
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")
"""Browser origins always accepted: pages on this machine (the MCP Apps reference host)."""
CACHED_LISTS = (
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
)
"""Answers the same for every caller until the next release, which 2026-07-28 clients may
keep for `MCP_CACHE_TTL_S` (view documents are content-versioned: docs/views.md)."""


class TomTomServer(MCPServer[Any]):
    """The `MCPServer`, whose tools may end in this project's errors for the model.

    Two kinds of error reach the model here, each worded in this one place:

    - Arguments the SDK refused (its `ToolError` caused by pydantic's `ValidationError`):
      the model reads `explain_arguments`' plain sentence, never pydantic's report.
    - This project's errors for the model (`server.errors.ToolCallError`): plain
      exceptions, so that fitting workers raise them without loading the MCP SDK. The SDK
      takes any exception that is not its `ToolError` for a crash and withholds the
      message; here such an error becomes the `ToolError` it stands for.

    Either way the model reads what the SDK writes for a `ToolError` ("Error executing
    tool <name>: <message>") in an `is_error` result, and the SDK logs a tool failure
    (only the refused fields' names, for arguments), not a crash."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ToolCallError):
                raise
            # `exc` says "Error executing tool <name>", the SDK's own prefix of both kinds.
            raise ToolError(f"{exc}: {cause}") from cause
        except ToolError as exc:
            refused = exc.__cause__
            if not isinstance(refused, ValidationError):
                raise
            raise ToolError(
                f"Error executing tool {name}: {explain_arguments(refused)}"
            ) from refused


def build_server(runtime: Runtime, *, start_pool: bool = True) -> MCPServer[Runtime]:
    """The MCP server: every tool and view, the middleware that keeps its protocol surface
    strict (`server.protocol`) and logs each call, and its cache hints. Its lifespan keeps
    `runtime` alive (`running`; `start_pool` is passed on) and yields it to the tools."""

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer[Runtime]) -> AsyncIterator[Runtime]:
        async with running(runtime, start_pool=start_pool):
            yield runtime

    apps = Apps()
    register_tools(apps)
    register_views(apps, runtime.settings)
    hint = CacheHint(ttl_ms=runtime.settings.cache_ttl_s * 1000, scope="public")
    mcp = TomTomServer(
        NAME,
        version=VERSION,
        instructions=INSTRUCTIONS,
        extensions=[apps],
        middleware=[
            ProtocolSurface((tool.name for tool in TOOLS), {apps.identifier: apps.settings()}),
            ToolCallLog(
                [tool.name for tool in TOOLS], runtime.settings.call_deadline_s, who=_user_id
            ),
        ],
        lifespan=lifespan,
        cache_hints=dict.fromkeys(CACHED_LISTS, hint),
        # Change notifications need a stream this stateless JSON server never keeps open:
        # no `subscriptions/listen`, and `listChanged` false in both eras.
        subscriptions=False,
    )
    register_plain_tools(mcp)
    register_earlier_views(mcp, runtime.settings)
    return mcp


def build_stdio_server(settings: Settings) -> MCPServer[Runtime]:
    """The server for a local host over stdio: the same tools, views and fitting pool as a
    replica's, kept alive by the same lifespan (`running`), which `run_stdio_async` enters;
    no HTTP app around it."""
    return build_server(build_runtime(settings))


def _user_id() -> str | None:
    """The signed-in user's id for the call's scope and log line (never a token)."""
    user = current_user()
    return user.id if user is not None else None


def build_app(
    settings: Settings, drain: Drain | None = None, *, start_pool: bool = True
) -> Starlette:
    """The replica: `POST /mcp` and its companions, owning the runtime in its lifespan;
    `drain` is the replica's stopping state (the server that runs the app sets it).
    `start_pool=False` is for an app whose jobs all run on the loop (`FIT_INLINE`) in
    process (the HTTP surface's tests): its `/health` then never says ready."""
    drain = drain or Drain()
    runtime = build_runtime(settings)
    mcp = build_server(runtime, start_pool=start_pool)
    mcp.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=_transport_security(settings),
    )
    mcp_endpoint: Any = StreamableHTTPASGIApp(mcp.session_manager)
    door = DoorLimits.of(settings)
    sign_in = build_sign_in(settings)
    if sign_in is not None:
        mcp_endpoint = sign_in.protect(SignedInShares(mcp_endpoint, door, user_id_in))

    loop_kernels = asyncio.Event()
    """Set once this process has loaded the kernels of the jobs it runs on its loop."""

    async def load_loop_kernels() -> None:
        # In a thread, while the pool warms: a replica's first short route would otherwise
        # load them on the loop, stalling every call beside it (docs/runtime.md).
        await asyncio.to_thread(fitting.warm_up, keep_freed=False)
        freeze_startup_heap()
        loop_kernels.set()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        _log_modes(settings, sign_in)
        async with contextlib.AsyncExitStack() as stack:
            if sign_in is not None:
                await stack.enter_async_context(sign_in.running())
            await stack.enter_async_context(mcp.session_manager.run())  # the server's `running`
            freeze_startup_heap()
            loop = asyncio.get_running_loop()
            lag = loop.create_task(watch_loop_lag())
            kernels = loop.create_task(load_loop_kernels()) if start_pool else None
            try:
                yield
            finally:
                lag.cancel()
                if kernels is not None:
                    kernels.cancel()

    async def health(_: Request) -> JSONResponse:
        ready = runtime.pool.ready and loop_kernels.is_set() and not drain.active
        status = "draining" if drain.active else "ok" if ready else "starting"
        body = {
            "status": status,
            "ready": ready,
            "fit_pool_warm": runtime.pool.ready,
            "offline": settings.offline_mode,
            "tiles": runtime.tiles is not None,
        }
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics_endpoint(_: Request) -> Response:
        return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)

    async def tiles(request: Request) -> Response:
        if runtime.tiles is None:
            why = "offline demo data" if not settings.serves_keyed else "no TILE_TOKEN_SECRET"
            return PlainTextResponse(
                f"this server serves no map tiles ({why})\n",
                status_code=404,
                headers={"access-control-allow-origin": "*", "cache-control": "no-store"},
            )
        return await runtime.tiles.serve(request)

    routes = [
        Route("/mcp", TrimmedHeaders(mcp_endpoint), methods=["POST"]),
        Route("/tiles/{layer}/{z:int}/{x:int}/{y:int}.{ext}", tiles, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/metrics", metrics_endpoint, methods=["GET"]),
        *(sign_in.routes if sign_in is not None else []),
    ]
    if settings.preview:
        page = widgets.preview_html()
        sandbox = widgets.preview_sandbox_html()

        async def preview(_: Request) -> HTMLResponse:
            return HTMLResponse(page)

        async def preview_sandbox(_: Request) -> HTMLResponse:
            return HTMLResponse(sandbox)

        routes.append(Route("/preview", preview, methods=["GET"]))
        routes.append(Route("/preview/sandbox", preview_sandbox, methods=["GET"]))

    middleware = [Middleware(CloseWhileDraining, drain=drain)]
    if settings.traces_exporter != "none":
        middleware.insert(0, _traced())
    middleware.append(_cors(settings))  # outside the front door: its refusals carry CORS too
    middleware.append(Middleware(FrontDoor, limits=door, signed_in=sign_in is not None))
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.drain = drain
    return app


def _traced() -> Middleware:
    """OpenTelemetry's ASGI instrumentation: a server span per request (`POST /mcp`), none
    for the probes and scrapes, none for tiles (many, and their URL holds a token), and
    none for each body chunk sent or received."""
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.util.http import ExcludeList

    return Middleware(
        OpenTelemetryMiddleware,
        excluded_urls=ExcludeList([r"/health$", r"/metrics$", r"/tiles/"]),
        exclude_spans=["receive", "send"],
    )


def _log_modes(settings: Settings, sign_in: SignIn | None) -> None:
    """Say at start-up, loudly, who gets offline demo data, who gets no tiles, who signs
    users in, and when anyone at all spends the operator's key."""
    if settings.offline_mode == "always":
        log.warning(
            "OFFLINE=always: every request is answered by the built-in OFFLINE upstream "
            "(synthetic places, routes and traffic), with or without a key.",
            extra={"event": "offline_mode", "offline": "always"},
        )
    elif settings.offline_mode == "auto" and settings.api_key is None:
        log.warning(
            "No TOMTOM_API_KEY: requests without a tomtom-api-key header get OFFLINE demo data "
            "(synthetic, flagged as such); requests with one go to %s. OFFLINE=never refuses "
            "keyless requests instead.",
            settings.api_base_url,
            extra={"event": "offline_mode", "offline": "auto"},
        )
    if settings.serves_keyed and not settings.tile_token_secrets:
        log.warning(
            "No TILE_TOKEN_SECRET: the views of keyed callers get no map tiles; set the same "
            "secret on every replica to serve them through /tiles.",
            extra={"event": "no_tiles"},
        )
    if settings.tiles_enabled:
        log.info(
            "tiles served at %s (views' CSP origin %s)",
            settings.tiles_base_url,
            settings.public_origin,
            extra={"event": "tiles"},
        )
    if sign_in is not None:
        log.info(
            "sign-in on: POST /mcp needs a bearer token from %s for %s%s",
            sign_in.issuer.issuer,
            settings.token_audience,
            f" with scopes {' '.join(sign_in.scopes)}" if sign_in.scopes else "",
            extra={"event": "sign_in"},
        )
    elif settings.api_key is not None and settings.serves_keyed and _public(settings):
        log.warning(
            "TOMTOM_API_KEY is set, sign-in is off (no OAUTH_ISSUER) and PUBLIC_URL %s is not "
            "a loopback address: anyone who reaches this server spends that key, on every call "
            "and every tile. Set OAUTH_ISSUER to sign users in (deploy/README.md).",
            settings.public_url,
            extra={"event": "open_key"},
        )


def _public(settings: Settings) -> bool:
    """Whether `PUBLIC_URL` names something other than this machine's loopback."""
    host = urlsplit(settings.public_url or "").hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return bool(host)


def _browser_origins(settings: Settings) -> list[str]:
    """Origins of the browser pages allowed to call `/mcp`: loopback on any port, and
    `ALLOWED_ORIGINS`; exact, or `scheme://host:*` for any port. The Origin check and CORS
    both read this list, so a page the check lets in can also read the answer."""
    return [*LOOPBACK_ORIGINS, *settings.allowed_origins]


def _transport_security(settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks against DNS rebinding; `ALLOWED_HOSTS=*` turns them off."""
    if "*" in settings.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*settings.allowed_hosts, "127.0.0.1", "localhost"],
        allowed_origins=_browser_origins(settings),
    )


def _cors(settings: Settings) -> Middleware:
    """CORS for the browser origins (preflight included), matched as the SDK's Origin check
    matches them: the MCP Apps reference host runs on another loopback port than the
    server. Any request header may be sent (hosts add their own: `tomtom-api-key`,
    `authorization`, the 2026-07-28 `mcp-*` headers)."""
    patterns = [
        re.escape(origin[:-2]) + r":\d+" if origin.endswith(":*") else re.escape(origin)
        for origin in _browser_origins(settings)
    ]
    return Middleware(
        CORSMiddleware,
        allow_origin_regex="|".join(patterns),
        allow_methods=["POST"],
        allow_headers=["*"],
        # A browser host reads the sign-in challenge of a 401 (the metadata to sign in with).
        expose_headers=["mcp-session-id", "www-authenticate"],
        # Chromium asks before a page reaches a more private address than its own (Private
        # Network Access): a web host's page reaching a server on loopback or the intranet.
        allow_private_network=True,
        max_age=600,
    )
