"""`GET /tiles/{layer}/{z}/{x}/{y}.{ext}?t=TOKEN`: TomTom tiles fetched with the key in a token.

The views never hold a TomTom key: `tomtom-get-map-config` seals the caller's key
into a short-lived token (`_tokens.py`) and hands out URL templates on this route.
Any replica opens the token, checks the tile and the grant's rate
(`server.http.RateLimiter`), takes the tile from the budget of the user the token was
minted for (`server.quotas`, with sign-in), waits for the key's turn and counts the tile
in its quota (the TomTom client's own `Pacer`: a tile is a TomTom request), fetches the
tile from TomTom with the key, and answers with TomTom's body and cache headers. A
refusal is a status with a one-line reason, never a broken image.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.bodies import IDENTITY, TILE, RawBody, coding_of
from tomtom_mcp_apps.server.errors import (
    BodyError,
    QuotaError,
    RateLimitError,
    TokenError,
    TransportError,
    TransportTimeout,
    UserQuotaError,
)
from tomtom_mcp_apps.server.http import RateLimiter
from tomtom_mcp_apps.server.ops import call_scope, metrics
from tomtom_mcp_apps.server.pool import Placement
from tomtom_mcp_apps.server.quotas import Budgets
from tomtom_mcp_apps.server.tiles._layers import LAYER_NAMES, LAYERS, Layer, tile_problem
from tomtom_mcp_apps.server.tiles._tokens import TileTokens
from tomtom_mcp_apps.server.tomtom import Family, Pacer, family_of, request_url, retry_after_s

log = logging.getLogger(__name__)

PASSED_BACK = ("content-type", "cache-control", "expires", "etag", "last-modified")
"""TomTom's response headers a tile keeps: what a browser needs to cache it."""
PASSED_ON = ("if-none-match", "if-modified-since")
"""The browser's conditional headers, so a cached tile costs TomTom a 304."""
_CORS = {
    # The views run in sandboxed iframes (an opaque or a host's sandbox origin) and load
    # tiles with fetch(): the answer must be readable from any origin. It carries no
    # credentials and no cookie; the token in the URL is the only grant.
    "access-control-allow-origin": "*",
    "cross-origin-resource-policy": "cross-origin",
    "x-content-type-options": "nosniff",
}


@dataclass(frozen=True)
class MapTiles:
    """URL templates (`{z}/{x}/{y}` slots) on the tile route, and when their token expires."""

    templates: dict[str, str]
    expires: int


class Tiles:
    """The tile route's state: the token sealer, the per-grant limiter, the pacing and quota
    it shares with the TomTom client, the upstream."""

    def __init__(
        self,
        *,
        tokens: TileTokens,
        limiter: RateLimiter,
        api_base_url: str,
        public_base_url: str,
        max_bytes: int,
        placement: Placement,
        pacer: Pacer,
        user_agent: str,
        timeout_s: float = 10.0,
        connections: int = 200,
        budgets: Budgets | None = None,
    ) -> None:
        self.tokens = tokens
        self._placement = placement
        self._pacer = pacer
        self._timeout_s = timeout_s
        self._budgets = budgets
        self._limiter = limiter
        self._api = api_base_url.rstrip("/")
        self._public = public_base_url.rstrip("/")
        self._max_bytes = max_bytes
        self._upstream = outbound.tiles(
            connections=connections, timeout_s=timeout_s, user_agent=user_agent
        )
        """TomTom's tiles, through a pool of their own (`server.outbound`)."""

    async def aclose(self) -> None:
        await self._upstream.aclose()

    def map_tiles(self, key: str, layers: Iterable[str], user: str | None = None) -> MapTiles:
        """Templates for `layers`, with a token sealing `key` (never the key itself) and the
        signed-in `user` whose budget the tiles spend."""
        names = [name for name in LAYER_NAMES if name in set(layers)]
        token, expires = self.tokens.seal(key, names, user)
        templates = {
            name: f"{self._public}/{name}/{{z}}/{{x}}/{{y}}.png?t={token}" for name in names
        }
        return MapTiles(templates, expires)

    async def serve(self, request: Request) -> Response:
        """One tile, or a status with a short reason (logged and counted, never the key)."""
        params = request.path_params
        name = str(params["layer"])
        layer = LAYERS.get(name)
        if layer is None:
            return _refused("other", 404, "not_found", f"no tile layer {name[:40]!r}")
        ext = str(params["ext"])
        if ext not in layer.formats:
            formats = " or ".join(layer.formats)
            return _refused(
                name, 404, "not_found", f"{name} tiles come as {formats}, not {ext[:8]!r}"
            )
        z, x, y = int(params["z"]), int(params["x"]), int(params["y"])
        problem = tile_problem(z, x, y)
        if problem is not None:
            return _refused(name, 400, "bad_request", problem)
        token = request.query_params.get("t", "")
        try:
            grant = self.tokens.open(token)
        except TokenError as exc:
            return _refused(name, 403, "forbidden", str(exc))
        if name not in grant.layers:
            return _refused(name, 403, "forbidden", f"tile token not valid for layer {name}")
        wait = self._limiter.take(grant.id)
        if wait is not None:
            return _refused(
                name,
                429,
                "rate_limited",
                "too many tile requests for this token; slow down",
                {"retry-after": str(wait)},
            )
        if grant.user is not None and self._budgets is not None:
            try:
                await self._budgets.spend(grant.user)
            except UserQuotaError as exc:
                retry = {"retry-after": str(int(exc.retry_after or 1))}
                return _refused(name, 429, "over_budget", str(exc), retry)
        path = layer.upstream_path(z, x, y, ext)
        refused = await self._admitted(name, grant.key, family_of(path), grant.user)
        if refused is not None:
            return refused
        conditional = {h: request.headers[h] for h in PASSED_ON if h in request.headers}
        return await self._fetch(layer, path, grant.key, conditional)

    async def _admitted(
        self, name: str, key: str, family: Family, user: str | None
    ) -> Response | None:
        """None when the key's turn has come: a tile is a TomTom request like any other,
        paced with the API calls of its key (queued fairly with the other requests of its
        `user`, when signed in) and counted in the key's quota (`TOMTOM_KEY_QUOTA_PER_MIN`);
        else the 429 that says when to come back."""
        scope = call_scope.CallScope("tiles", time.monotonic() + self._timeout_s, user)
        try:
            await self._pacer.admit(key, family, scope)
        except RateLimitError as exc:
            outcome = "quota" if isinstance(exc, QuotaError) else "rate_limited"
            why = (
                "this key's TomTom requests per minute on this server are used up"
                if outcome == "quota"
                else "this key's TomTom tile rate is reached"
            )
            retry = {"retry-after": str(max(1, math.ceil(exc.retry_after or 1)))}
            return _refused(name, 429, outcome, why, retry)
        return None

    async def _fetch(self, layer: Layer, path: str, key: str, headers: dict[str, str]) -> Response:
        url = request_url(self._api, path, [("tileSize", "256"), ("key", key)])
        started = time.perf_counter()
        outcome = "unavailable"
        try:
            async with self._upstream.request(
                "GET", url, headers=headers, encoded=True
            ) as upstream:
                outcome, response = await self._answer(layer.name, upstream)
                if upstream.status == 429:  # TomTom's own: nothing more for the key until then
                    wait = retry_after_s(upstream.headers.get("retry-after")) or 1.0
                    self._pacer.hold(key, family_of(path), wait)
                return response
        except (TimeoutError, TransportTimeout):
            return _refused(layer.name, 504, "unavailable", "TomTom sent no tile in time")
        except TransportError as exc:
            # The exception text repeats the URL and its key: only its type is told.
            reason = f"TomTom could not be reached ({type(exc).__name__})"
            return _refused(layer.name, 502, "unavailable", reason)
        finally:
            metrics.UPSTREAM_SECONDS.labels(f"tiles/{layer.name}", outcome).observe(
                time.perf_counter() - started
            )

    async def _answer(self, name: str, upstream: outbound.Answer) -> tuple[str, Response]:
        status = upstream.status
        kept = {h: upstream.headers[h] for h in PASSED_BACK if h in upstream.headers}
        if status == 304:
            metrics.TILE_REQUESTS.labels(name, "not_modified").inc()
            return "ok", Response(status_code=304, headers={**kept, **_CORS})
        if status != 200:
            return "refused", _upstream_refusal(name, status, upstream.headers)
        if not kept.get("content-type", "").startswith("image/"):
            return "unavailable", _refused(name, 502, "unavailable", "TomTom's answer is no image")
        declared = upstream.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max_bytes:
            return "too_large", self._too_large(name)
        try:
            coding = coding_of(upstream.header("content-encoding"), TILE)
            body = await upstream.read(self._max_bytes)
            if body is None:
                return "too_large", self._too_large(name)
            if coding != IDENTITY:
                body = await self._placement.decoded(RawBody(body, coding, self._max_bytes), TILE)
        except BodyError as exc:
            return "unavailable", _refused(name, 502, "unavailable", str(exc))
        metrics.TILE_REQUESTS.labels(name, "ok").inc()
        return "ok", Response(body, headers={**kept, **_CORS})

    def _too_large(self, name: str) -> Response:
        return _refused(name, 502, "too_large", f"TomTom's tile is over {self._max_bytes} bytes")


def _upstream_refusal(name: str, status: int, headers: Mapping[str, str]) -> Response:
    if status in (401, 403):
        return _refused(
            name,
            502,
            "upstream_refused",
            f"TomTom refused the key for {name} tiles (HTTP {status})",
        )
    if status == 429:
        extra = {"retry-after": headers["retry-after"]} if "retry-after" in headers else {}
        return _refused(name, 429, "rate_limited", "TomTom's rate limit for this key", extra)
    if status in (400, 404):
        return _refused(name, 404, "not_found", f"TomTom has no such tile (HTTP {status})")
    return _refused(name, 502, "unavailable", f"TomTom answered HTTP {status}")


def _refused(
    layer: str, status: int, outcome: str, reason: str, headers: dict[str, Any] | None = None
) -> Response:
    metrics.TILE_REQUESTS.labels(layer, outcome).inc()
    level = logging.WARNING if status >= 500 or outcome == "upstream_refused" else logging.INFO
    log.log(
        level,
        "tile refused",
        extra={"event": "tile_refused", "layer": layer, "status": status, "reason": reason},
    )
    return PlainTextResponse(
        reason + "\n",
        status_code=status,
        headers={"cache-control": "no-store", **_CORS, **(headers or {})},
    )
