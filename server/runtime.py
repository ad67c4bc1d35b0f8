"""The long-lived objects a request needs, built once per process by `build_runtime`."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from server.config import Settings
from server.pool import FitPool, Placement
from server.tomtom import Bounds, Pacer, TomTomClient


@dataclass
class Runtime:
    settings: Settings
    tomtom: TomTomClient
    """The one shared TomTom client, over `http`."""
    http: httpx.AsyncClient
    """The pooled keep-alive HTTP client under `tomtom` (closed by the app's lifespan)."""
    downloads: httpx.AsyncClient
    """A separate client for data-viz `data_url` downloads (no TomTom base URL, no redirects)."""
    pool: FitPool
    placement: Placement
    """Where each job runs: `pool` or the event loop."""


def build_runtime(settings: Settings) -> Runtime:
    """The shared clients and the (not yet started) fitting pool."""
    limits = httpx.Limits(
        max_connections=settings.upstream_connections,
        max_keepalive_connections=settings.upstream_connections,
        # Under the 5 s idle timeout of uvicorn and many proxies: a request sent on a
        # connection the other side is closing fails, and a billed call is never retried.
        keepalive_expiry=4.0,
    )
    timeout = httpx.Timeout(
        settings.upstream_timeout_s, connect=min(5.0, settings.upstream_timeout_s)
    )
    transport: httpx.AsyncBaseTransport | None = None
    if settings.offline:
        from server.offline import build_upstream_app

        transport = httpx.ASGITransport(app=build_upstream_app())
    http = httpx.AsyncClient(limits=limits, timeout=timeout, transport=transport)
    downloads = httpx.AsyncClient(
        timeout=httpx.Timeout(settings.data_viz_timeout_s), follow_redirects=False
    )
    pool = FitPool(
        settings.fit_workers,
        least_work_first=settings.fit_order == "least-work",
        traces_exporter=settings.traces_exporter,
    )
    placement = Placement(
        pool, inline_points=settings.inline_points, inline_only=settings.fit_inline
    )
    return Runtime(
        settings=settings,
        tomtom=TomTomClient(
            http=http,
            base_url=settings.upstream_base_url,
            default_key=settings.api_key,
            placement=placement,
            bounds=bounds_of(settings),
            pacer=pacer_of(settings),
        ),
        http=http,
        downloads=downloads,
        pool=pool,
        placement=placement,
    )


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
