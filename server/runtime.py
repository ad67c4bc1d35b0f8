"""The long-lived objects a request needs, built once per process by `build_runtime` and
kept alive by `running`.

`running` is the runtime's one owner, whichever transport serves the tools: it is the
`MCPServer`'s lifespan (`server.app.build_server`), which the streamable-HTTP session
manager enters once in `session_manager.run()` (inside the Starlette app's lifespan)
and a stdio or in-memory server enters when it starts. Tools read the runtime it
yields from their context (`server.tools._caller`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.pool import FitPool, Placement
from tomtom_mcp_apps.server.product import user_agent
from tomtom_mcp_apps.server.quotas import Budgets, build_budgets
from tomtom_mcp_apps.server.tiles import RateLimiter, Tiles, build_tiles
from tomtom_mcp_apps.server.tomtom import Bounds, Pacer, TomTomClient


@dataclass
class Runtime:
    settings: Settings
    tomtom: TomTomClient
    """The one shared TomTom client: its pooled keep-alive connections to TomTom, and the
    offline upstream at `OFFLINE_BASE_URL`."""
    downloads: outbound.Client
    """A separate client for data-viz `data_url` downloads (no TomTom base URL, no redirects)."""
    pool: FitPool
    placement: Placement
    """Where each job runs: `pool` or the event loop."""
    tiles: Tiles | None = None
    """The tile route's tokens, limits and upstream pool; None when this server serves no
    tiles."""
    refetches: RateLimiter | None = None
    """Each user's or client's allowance of view refetches (`VIEW_REFETCH_PER_MIN`, per
    replica); None with `VIEW_REFETCH` off."""
    budgets: Budgets | None = None
    """Signed-in users' budgets of TomTom requests (API and tiles); None without
    `USER_QUOTA_*`."""


@contextlib.asynccontextmanager
async def running(runtime: Runtime, *, start_pool: bool = True) -> AsyncIterator[Runtime]:
    """`runtime` alive: its fitting pool started (warming in the background; calls wait
    until it is warm), and its pool and every client closed when the block ends.
    `start_pool=False` leaves the pool unstarted, for a runtime whose jobs all run on the
    event loop in process (`FIT_INLINE`, the tools' tests); a replica always starts it,
    since `/health` waits for it."""
    if start_pool:
        runtime.pool.start()
    try:
        yield runtime
    finally:
        runtime.pool.close()
        await runtime.tomtom.aclose()
        await runtime.downloads.aclose()
        if runtime.tiles is not None:
            await runtime.tiles.aclose()
        if runtime.budgets is not None:
            await runtime.budgets.aclose()


def build_runtime(settings: Settings, *, upstream: object = None) -> Runtime:
    """The shared clients and the (not yet started) fitting pool. `upstream`, when given
    (an httpx transport in the tools' tests: a stand-in TomTom in process), carries every
    TomTom request, keyed or not, in place of the network and the offline upstream."""
    offline: outbound.Transport | None = None
    if settings.offline_mode != "never" and upstream is None:
        from tomtom_mcp_apps.server.offline import build_upstream_app

        # Requests with no key go here, the others to TomTom.
        offline = outbound.offline_upstream(build_upstream_app())
    downloads = outbound.data_urls(
        timeout_s=settings.data_viz_timeout_s, user_agent=user_agent(settings.public_url)
    )
    pool = FitPool(
        settings.fit_workers,
        least_work_first=settings.fit_order == "least-work",
        traces_exporter=settings.traces_exporter,
        max_queued_bytes=settings.fit_queue_max_bytes,
    )
    placement = Placement(
        pool, inline_points=settings.inline_points, inline_only=settings.fit_inline
    )
    pacer = pacer_of(settings)  # one per replica: API calls and tiles count against it alike
    budgets = build_budgets(settings)
    return Runtime(
        settings=settings,
        tomtom=TomTomClient(
            upstream or outbound.tomtom_api(settings.upstream_connections),
            base_url=settings.api_base_url,
            default_key=settings.api_key,
            placement=placement,
            bounds=bounds_of(settings),
            pacer=pacer,
            offline_mode=settings.offline_mode,
            budgets=budgets,
            public_url=settings.public_url,
            offline=offline,
        ),
        downloads=downloads,
        pool=pool,
        placement=placement,
        tiles=build_tiles(settings, placement, pacer, budgets),
        budgets=budgets,
        refetches=refetches_of(settings),
    )


def refetches_of(settings: Settings) -> RateLimiter | None:
    """`VIEW_REFETCH_PER_MIN` refetches a minute per user or client, in bursts of as many."""
    if not settings.view_refetch:
        return None
    per_min = settings.view_refetch_per_min
    return RateLimiter(per_min / 60.0, per_min)


def bounds_of(settings: Settings) -> Bounds:
    """What one TomTom request may take, from `settings`."""
    return Bounds(
        deadline_s=settings.upstream_timeout_s,
        max_body_bytes=settings.upstream_max_body_bytes,
        max_decoded_bytes=settings.upstream_max_decoded_bytes,
        call_deadline_s=settings.call_deadline_s,
    )


def pacer_of(settings: Settings) -> Pacer:
    """TomTom's rate limits kept per key and API family, from `settings`."""
    return Pacer(
        dict(settings.tomtom_qps),
        max_wait_s=settings.rate_wait_s,
        quota_per_minute=settings.key_quota_per_min,
    )
