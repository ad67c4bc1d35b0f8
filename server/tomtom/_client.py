"""The TomTom REST client: one shared `httpx.AsyncClient`, bodies kept as received.

Every method returns TomTom's answer (parsed JSON, or the raw calculateRoute body
that the route jobs decode where they run) or raises one of `server.tomtom`'s
errors (`_errors.py`), which the model reads as tool errors. The API key travels
as the `key` query parameter, which httpx repeats in its exception messages;
every text that leaves this module is scrubbed of it. Nothing is retried: a
TomTom request may have been billed even when it failed.

Which upstream answers is decided per request (`serves_offline`): a request with a
key (the caller's, else the configured one) goes to TomTom; one with no key goes to
the built-in offline upstream, mounted in the same `httpx.AsyncClient` at
`OFFLINE_BASE_URL`, unless `OFFLINE` says otherwise (docs/adr/0060).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from server.config import OFFLINE_BASE_URL
from server.ops import metrics
from server.pool import INLINE, Placement
from server.tomtom._body import ACCEPT_ENCODING, BodyError, RawBody, loads
from server.tomtom._errors import (
    OUTCOMES,
    MissingKeyError,
    TomTomError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
    error_for,
    scrub,
)

logger = logging.getLogger(__name__)

Params = Sequence[tuple[str, str | int | float | bool]]
"""Query parameters as pairs, so that a name may repeat (`sectionType`)."""


def _segment(text: str) -> str:
    """One URL path segment: spaces, slashes, `?`, `#` and unicode percent-encoded."""
    return quote(text, safe="")


def coordinate(value: float) -> str:
    """A degree value as TomTom parses it: fixed point (never `1e-05`), 1e-7 precision."""
    text = f"{value:.7f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _latlon(lon: float, lat: float) -> str:
    return f"{coordinate(lat)},{coordinate(lon)}"


class TomTomClient:
    """Async methods for the TomTom REST endpoints the tools use.

    Every method takes the caller's `key` (the `tomtom-api-key` header) and
    falls back to the configured default; the request goes to `base_url` with
    that key, or, when there is none, to the offline upstream (`offline_mode`
    `auto`). Bodies are returned as parsed JSON objects, except calculateRoute's,
    which the route jobs decode where they run.
    """

    def __init__(
        self,
        http: httpx.AsyncClient,
        base_url: str,
        default_key: str | None,
        placement: Placement = INLINE,
        offline_mode: str = "auto",
    ) -> None:
        self._http = http
        self._base_url = base_url.rstrip("/")
        self._default_key = default_key
        self._placement = placement
        self._offline_mode = offline_mode

    def key_for(self, key: str | None) -> str | None:
        """The key a request is made with: the caller's, else the configured one."""
        return key or self._default_key

    def serves_offline(self, key: str | None) -> bool:
        """Whether a request with the caller's `key` is answered by the offline upstream;
        `MissingKeyError` when it has no key and `OFFLINE=never` refuses it."""
        if self._offline_mode == "always":
            return True
        if self.key_for(key) is not None:
            return False
        if self._offline_mode == "never":
            raise MissingKeyError(
                "This server needs a TomTom API key for every request (OFFLINE=never): send "
                "yours in the tomtom-api-key request header, or have the operator set "
                "TOMTOM_API_KEY."
            )
        return True

    async def geocode(self, query: str, *, key: str | None, params: Params = ()) -> dict[str, Any]:
        """`GET /search/2/geocode/{query}.json`."""
        return await self._get(
            "search/geocode", f"/search/2/geocode/{_segment(query)}.json", params, key
        )

    async def reverse_geocode(
        self, lon: float, lat: float, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /search/2/reverseGeocode/{lat},{lon}.json`."""
        path = f"/search/2/reverseGeocode/{_latlon(lon, lat)}.json"
        return await self._get("search/reverseGeocode", path, params, key)

    async def fuzzy_search(
        self, query: str, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /search/2/search/{query}.json`."""
        path = f"/search/2/search/{_segment(query)}.json"
        return await self._get("search/fuzzy", path, params, key)

    async def poi_search(
        self, query: str, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /search/2/poiSearch/{query}.json`."""
        path = f"/search/2/poiSearch/{_segment(query)}.json"
        return await self._get("search/poi", path, params, key)

    async def nearby_search(
        self, lon: float, lat: float, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /search/2/nearbySearch/.json?lat&lon`."""
        located: Params = [("lat", coordinate(lat)), ("lon", coordinate(lon)), *params]
        return await self._get("search/nearby", "/search/2/nearbySearch/.json", located, key)

    async def search_along_route(
        self,
        query: str,
        route: RawBody,
        *,
        max_detour_time: int,
        key: str | None,
        params: Params = (),
    ) -> dict[str, Any]:
        """`POST /search/2/searchAlongRoute/{query}.json`; `route` is the JSON body with the
        route's points, as it goes on the wire (`server.jobs.along_route_request`)."""
        return await self._request(
            "search/alongRoute",
            "POST",
            f"/search/2/searchAlongRoute/{_segment(query)}.json",
            [("maxDetourTime", max_detour_time), *params],
            key,
            content=route,
        )

    async def calculate_route_raw(
        self,
        locations: Sequence[Sequence[float]],
        *,
        section_types: Iterable[str] = (),
        key: str | None,
        params: Params = (),
    ) -> RawBody:
        """`GET /routing/1/calculateRoute/{lat,lon:lat,lon...}/json` with text guidance,
        the requested section types and per-point progress (distance and travel time),
        as received: routing tools decode it in a fitting worker (`server.jobs`)."""
        path = ":".join(_latlon(lon, lat) for lon, lat in locations)
        full: list[tuple[str, str | int | float | bool]] = [
            ("instructionsType", "text"),
            ("extendedRouteRepresentation", "distance"),
            ("extendedRouteRepresentation", "travelTime"),
        ]
        full.extend(("sectionType", s) for s in section_types)
        full.extend(params)
        path = f"/routing/1/calculateRoute/{path}/json"
        return await self._fetch("routing/calculateRoute", "GET", path, full, key)

    async def calculate_reachable_range(
        self, lon: float, lat: float, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /routing/1/calculateReachableRange/{lat},{lon}/json`."""
        path = f"/routing/1/calculateReachableRange/{_latlon(lon, lat)}/json"
        return await self._get("routing/calculateReachableRange", path, params, key)

    async def incident_details(
        self, bbox: Sequence[float], *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /traffic/services/5/incidentDetails?bbox=minLon,minLat,maxLon,maxLat`."""
        box = ",".join(coordinate(v) for v in bbox)
        path = "/traffic/services/5/incidentDetails"
        return await self._get("traffic/incidentDetails", path, [("bbox", box), *params], key)

    async def _get(
        self, endpoint: str, path: str, params: Params, key: str | None
    ) -> dict[str, Any]:
        return await self._request(endpoint, "GET", path, params, key)

    async def _request(
        self,
        endpoint: str,
        method: str,
        path: str,
        params: Params,
        key: str | None,
        content: RawBody | None = None,
    ) -> dict[str, Any]:
        raw = await self._fetch(endpoint, method, path, params, key, content)
        try:
            return await self._placement.run(loads, raw, size=self._placement.for_bodies([raw]))
        except BodyError as exc:
            raise UpstreamUnavailableError(str(exc)) from None

    async def _fetch(
        self,
        endpoint: str,
        method: str,
        path: str,
        params: Params,
        key: str | None,
        content: RawBody | None = None,
    ) -> RawBody:
        """The upstream's answer as received (timed and counted), or the TomTomError for it."""
        offline = self.serves_offline(key)
        key = None if offline else self.key_for(key)
        base = OFFLINE_BASE_URL if offline else self._base_url
        query = list(params) + ([("key", key)] if key else [])
        headers = {"accept-encoding": ACCEPT_ENCODING}
        if content is not None:
            headers["content-type"] = "application/json"
            if content.encoding:
                headers["content-encoding"] = content.encoding
        started = time.perf_counter()
        outcome = "unavailable"
        try:
            body = content.content if content is not None else None
            raw = await self._send(method, base, path, query, key, body, headers)
            outcome = "ok"
            return raw
        except TomTomError as exc:
            outcome = OUTCOMES.get(type(exc), "unavailable")
            raise
        finally:
            elapsed = time.perf_counter() - started
            if offline:
                metrics.OFFLINE_REQUESTS.labels(endpoint).inc()
            else:
                metrics.UPSTREAM_SECONDS.labels(endpoint, outcome).observe(elapsed)
            level = logging.INFO if outcome == "ok" else logging.WARNING
            source = "offline upstream" if offline else "TomTom"
            logger.log(
                level, "%s %s %s: %s in %.1f ms", source, method, path, outcome, elapsed * 1000
            )

    async def _send(
        self,
        method: str,
        base: str,
        path: str,
        query: list[tuple[str, Any]],
        key: str | None,
        content: bytes | None,
        headers: dict[str, str],
    ) -> RawBody:
        request = self._http.build_request(
            method, base + path, params=query, content=content, headers=headers
        )
        try:
            response = await self._http.send(request, stream=True)
            try:
                if response.status_code >= 400:
                    await response.aread()
                    raise error_for(response, key)
                if response.is_stream_consumed:  # read by the transport (tests' MockTransport)
                    return RawBody(response.content)
                body = b"".join([chunk async for chunk in response.aiter_raw()])
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            raise UpstreamTimeoutError(
                "TomTom did not answer in time. The request may succeed if tried again later, "
                "or with a smaller area or fewer waypoints."
            ) from None
        except httpx.HTTPError as exc:
            reason = scrub(str(exc), key) or type(exc).__name__
            logger.warning("TomTom %s %s failed: %s", method, path, reason)
            raise UpstreamUnavailableError(
                f"TomTom could not be reached ({type(exc).__name__}). Try again later."
            ) from None
        return RawBody(body, response.headers.get("content-encoding", "").strip().lower())
