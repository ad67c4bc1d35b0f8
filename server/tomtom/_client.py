"""The TomTom REST client: requests straight to httpx transports, bodies kept as received.

Every method returns TomTom's answer (parsed JSON, or the raw calculateRoute body
that the route jobs decode where they run) or raises a `TomTomError` (`server.errors`;
built in `_errors.py`), which the model reads as a tool error. The API key travels
as the `key` query parameter, which httpx repeats in its exception messages;
every text that leaves this module is scrubbed of it.

Every request is bounded (`Bounds`): a deadline for the whole answer, not only for
each read, and a size as received. Every body, error answers included, is read as
received (never decoded by httpx, which inflates every layer of a stacked coding
whole) and decoded by `server.bodies`' one bounded decoding: a success within its
decoded cap (`RawBody.limit`) wherever it is used, small ones settled on the loop
(`Placement.settled`); the start of an error answer, to quote. Every keyed request is
paced (`_pacing.py`) by its API family (`_families.py`). The one retry is after
TomTom's 429, which TomTom does not bill, when its Retry-After fits the call's
deadline; nothing else is retried, since a failed request may still have been billed.

A request a signed-in user causes (the call's scope names them) is taken from their
budget first (`server.quotas.Budgets`), once, whatever pacing and the one retry then do;
over budget it is never sent and the call ends in a `UserQuotaError` with the time to
retry. Offline answers cost TomTom nothing and are not counted.

Every request goes through `_fetch` under an endpoint label `"<family>/<endpoint>"`
(search, routing, traffic, map, ev), which metrics and traces report; pacing takes
its family from the path (`_families.py`).

Which upstream answers is decided per request (`serves_offline`): a request with a
key (the caller's, else the configured one) goes to TomTom; one with no key goes to
the built-in offline upstream at `OFFLINE_BASE_URL`, unless `OFFLINE` says otherwise
(docs/adr/0060).

A request goes straight to its upstream's transport (`AiohttpTransport`'s keep-alive
pool for TomTom, docs/adr/0102; the offline upstream's `httpx.ASGITransport`), not
through an `httpx.AsyncClient`: the client's layers (cookies, auth, redirects, default
headers merged, the URL parsed again) serve nothing here and cost about a tenth of a
millisecond per request (docs/adr/0091-per-call-overhead.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from tomtom_mcp_apps.server.bodies import (
    ACCEPT_ENCODING,
    MAX_DECODED_BYTES,
    RawBody,
    loads,
    prefix,
    received,
)
from tomtom_mcp_apps.server.config import OFFLINE_BASE_URL
from tomtom_mcp_apps.server.errors import (
    AnswerTooLargeError,
    BodyError,
    MissingKeyError,
    RateLimitError,
    Redirected,
    TomTomError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
)
from tomtom_mcp_apps.server.ops import call_scope, metrics, tracing
from tomtom_mcp_apps.server.pool import INLINE, Placement
from tomtom_mcp_apps.server.product import user_agent
from tomtom_mcp_apps.server.quotas import Budgets
from tomtom_mcp_apps.server.tomtom import _batches
from tomtom_mcp_apps.server.tomtom._errors import OUTCOMES, error_for, scrub
from tomtom_mcp_apps.server.tomtom._families import Family, family_of
from tomtom_mcp_apps.server.tomtom._matrix import ASYNC_PATH, SYNC_PATH, billed_cells
from tomtom_mcp_apps.server.tomtom._pacing import Pacer

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


ERROR_BODY_BYTES = 64 * 1024
"""Of an error answer only this much is read: its description is quoted, 300 characters."""


@dataclass(frozen=True)
class Outgoing:
    """One request as it goes out: sent as is by each attempt (a 429's retry resends it)."""

    endpoint: str
    method: str
    base: str
    path: str
    url: httpx.URL
    """`base + path` and the query (`request_url`)."""
    key: str | None
    body: bytes | None
    headers: dict[str, str]

    @property
    def offline(self) -> bool:
        """Whether the built-in offline upstream answers it (its transport, its counters)."""
        return self.base == OFFLINE_BASE_URL


def request_url(base: str, path: str, query: Params) -> httpx.URL:
    """`base + path?query`, the query encoded exactly as httpx encodes `params` (a name's
    values together, where it first appears; booleans as true and false), parsed once:
    httpx's merging of `params` into a URL cost more than the rest of a request's making
    (docs/adr/0091-per-call-overhead.md)."""
    if not query:
        return httpx.URL(base + path)
    values: dict[str, list[str]] = {}
    for name, value in query:
        values.setdefault(name, []).append(_text(value))
    pairs = [(name, value) for name, listed in values.items() for value in listed]
    return httpx.URL(f"{base}{path}?{urlencode(pairs)}")


def _text(value: str | int | float | bool | None) -> str:
    """A query value as httpx writes it (`httpx._utils.primitive_value_to_str`)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return "" if value is None else str(value)


@dataclass(frozen=True)
class Bounds:
    """What one TomTom request may take (settings: `TOMTOM_TIMEOUT_S`, `TOMTOM_MAX_*`)."""

    deadline_s: float = 10.0
    """The whole request, from sending to the answer's last byte."""
    max_body_bytes: int = 32 * 1024 * 1024
    """The answer as received (compressed when gzipped)."""
    max_decoded_bytes: int = MAX_DECODED_BYTES
    """The answer once decompressed."""
    call_deadline_s: float = 60.0
    """A tool call's budget, for requests made outside one (`server.ops.call_scope`)."""


class TomTomClient:
    """Async methods for the TomTom REST endpoints the tools use.

    Every method takes the caller's `key` (the `tomtom-api-key` header) and
    falls back to the configured default; the request goes to `base_url` with
    that key, or, when there is none, to the offline upstream (`offline_mode`
    `auto`). Bodies are returned as parsed JSON objects, except calculateRoute's,
    which the route jobs decode where they run. `transport` carries the requests to
    `base_url`, `offline` those to the offline upstream (`transport` too when None);
    the client owns both and closes them (`aclose`).
    """

    def __init__(
        self,
        transport: httpx.AsyncBaseTransport,
        base_url: str,
        default_key: str | None,
        placement: Placement = INLINE,
        *,
        bounds: Bounds | None = None,
        pacer: Pacer | None = None,
        offline_mode: str = "auto",
        budgets: Budgets | None = None,
        public_url: str | None = None,
        offline: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._transport = transport
        """Carries every request to `base_url`, and offline ones when `offline` is None."""
        self._offline = offline or transport
        self.closed = False
        """Set by `aclose`."""
        self._public_url = public_url
        """Where this server serves, named in every request's User-Agent."""
        self._base_url = base_url.rstrip("/")
        self._default_key = default_key
        self._placement = placement
        self._bounds = bounds or Bounds()
        self._pacer = pacer or Pacer({}, max_wait_s=10.0)
        self._offline_mode = offline_mode
        self._budgets = budgets
        deadline = self._bounds.deadline_s
        self._timeout = {
            "connect": min(5.0, deadline),
            "read": deadline,
            "write": deadline,
            "pool": deadline,
        }
        """Each request's httpx timeouts (its `timeout` extension); the whole answer is
        bounded by `Bounds.deadline_s` besides."""

    async def aclose(self) -> None:
        """Closes the transports (their pooled connections); requests then fail."""
        self.closed = True
        await self._transport.aclose()
        if self._offline is not self._transport:
            await self._offline.aclose()

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

    async def calculate_long_distance_ev_route_raw(
        self,
        locations: Sequence[Sequence[float]],
        charging: RawBody,
        *,
        key: str | None,
        params: Params = (),
    ) -> RawBody:
        """`POST /routing/1/calculateLongDistanceEVRoute/{lat,lon:lat,lon...}/json`: the
        consumption model in `params`, the charging model (`chargingParameters`) in the
        body; as received, decoded by the EV route job like any route body."""
        path = ":".join(_latlon(lon, lat) for lon, lat in locations)
        full: list[tuple[str, str | int | float | bool]] = [
            ("vehicleEngineType", "electric"),
            ("instructionsType", "text"),
            ("extendedRouteRepresentation", "distance"),
            ("extendedRouteRepresentation", "travelTime"),
            *params,
        ]
        path = f"/routing/1/calculateLongDistanceEVRoute/{path}/json"
        return await self._fetch("ev/longDistanceEVRoute", "POST", path, full, key, charging)

    async def ev_search(
        self, lon: float, lat: float, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /search/2/evsearch.json?lat&lon`: charging parks near a position."""
        located: Params = [("lat", coordinate(lat)), ("lon", coordinate(lon)), *params]
        return await self._get("ev/evsearch", "/search/2/evsearch.json", located, key)

    async def charging_availability(
        self, availability_id: str, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`GET /search/2/chargingAvailability.json?chargingAvailability=<id>`: live
        connector counts of one charging park."""
        query: Params = [("chargingAvailability", availability_id), *params]
        path = "/search/2/chargingAvailability.json"
        return await self._get("ev/chargingAvailability", path, query, key)

    async def geometry_search(
        self, query: str, geometries: RawBody, *, key: str | None, params: Params = ()
    ) -> dict[str, Any]:
        """`POST /search/2/geometrySearch/{query}.json` with `{"geometryList": [...]}`."""
        path = f"/search/2/geometrySearch/{_segment(query)}.json"
        return await self._request("search/geometry", "POST", path, params, key, geometries)

    async def poi_categories(self, *, key: str | None, params: Params = ()) -> dict[str, Any]:
        """`GET /search/2/poiCategories.json`: the whole POI category tree."""
        return await self._get("search/poiCategories", "/search/2/poiCategories.json", params, key)

    async def static_image(
        self, bbox: Sequence[float], width: int, height: int, *, key: str | None
    ) -> bytes:
        """`GET /map/1/staticimage` (Map Display API): a PNG of TomTom's basic map for
        `bbox` (west, south, east, north) at `width` x `height` pixels."""
        params: Params = [
            ("layer", "basic"),
            ("style", "main"),
            ("format", "png"),
            ("bbox", ",".join(coordinate(v) for v in bbox)),
            ("width", width),
            ("height", height),
        ]
        raw = await self._fetch("map/staticImage", "GET", "/map/1/staticimage", params, key)
        try:
            return await self._placement.decoded(raw)
        except BodyError as exc:
            raise UpstreamUnavailableError(str(exc)) from None

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
        """The upstream's answer as received, or the TomTomError for it: paced when keyed,
        and sent a second time only after a 429 whose Retry-After fits the call. A request
        answered offline carries no key and is not paced."""
        offline = self.serves_offline(key)
        key = None if offline else self.key_for(key)
        base = OFFLINE_BASE_URL if offline else self._base_url
        family = family_of(path)
        scope = call_scope.current(self._bounds.call_deadline_s)
        query = list(params) + ([("key", key)] if key else [])
        headers = {
            "accept": "*/*",
            "accept-encoding": ACCEPT_ENCODING,
            "user-agent": user_agent(self._public_url, refetch=call_scope.refetching()),
        }
        if content is not None:
            headers["content-type"] = "application/json"
            if content.encoding:
                headers["content-encoding"] = content.encoding
        body = content.content if content is not None else None
        url = request_url(base, path, query)
        request = Outgoing(endpoint, method, base, path, url, key, body, headers)
        if not offline and scope.user is not None and self._budgets is not None:
            await self._budgets.spend(scope.user)
        try:
            return await self._paced(request, family, scope, attempt=1)
        except RateLimitError as exc:
            if not self._retry_fits(exc, scope):
                metrics.RATE_LIMIT_REFUSALS.labels(family.name, "tomtom").inc()
                raise
            metrics.UPSTREAM_RETRIES.labels(family.name).inc()
            await asyncio.sleep(exc.retry_after if exc.retry_after is not None else 1.0)
        try:
            return await self._paced(request, family, scope, attempt=2)
        except RateLimitError:
            metrics.RATE_LIMIT_REFUSALS.labels(family.name, "tomtom").inc()
            raise

    async def _paced(
        self, request: Outgoing, family: Family, scope: call_scope.CallScope, *, attempt: int
    ) -> RawBody:
        """One request in its span, sent at the key's turn; a 429 holds the key's family."""
        key = request.key
        attributes = {
            "tomtom.api_family": family.name,
            "tomtom.endpoint": request.endpoint,
            "http.request.method": request.method,
            "tomtom.attempt": attempt,
        }
        with tracing.span(
            f"TomTom {family.name}", kind=tracing.CLIENT, attributes=attributes
        ) as span:
            waited = await self._pacer.admit(key, family, scope) if key else 0.0
            span.set_attribute("tomtom.rate_limit_wait_ms", round(waited * 1000, 1))
            try:
                raw = await self._attempt(request)
            except TomTomError as exc:
                if exc.status is not None:
                    span.set_attribute("http.response.status_code", exc.status)
                if isinstance(exc, RateLimitError) and key:
                    self._pacer.hold(key, family, exc.retry_after or 1.0)
                raise
            span.set_attribute("http.response.status_code", 200)
            span.set_attribute("tomtom.response.bytes", len(raw.content))
            span.set_attribute("tomtom.response.decoded_bytes", raw.size)
            return raw

    def _retry_fits(self, exc: RateLimitError, scope: call_scope.CallScope) -> bool:
        """TomTom does not bill a 429: one retry, when its wait and a whole request still fit
        the call and the wait is no longer than pacing would wait."""
        wait = exc.retry_after if exc.retry_after is not None else 1.0
        return wait <= self._pacer.max_wait_s and wait + self._bounds.deadline_s <= scope.remaining

    async def _attempt(self, request: Outgoing) -> RawBody:
        """One request, timed, counted and logged by endpoint and outcome (offline answers
        counted apart from TomTom's latency)."""
        endpoint, method, path = request.endpoint, request.method, request.path
        offline = request.offline
        started = time.perf_counter()
        outcome = "unavailable"
        try:
            raw = await self._send(request)
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
            if outcome == "ok":  # the call's one log line says it (`call_scope`)
                call_scope.upstream_answered("offline" if offline else "tomtom", elapsed * 1000)
            level = logging.DEBUG if outcome == "ok" else logging.WARNING
            source = "offline upstream" if offline else "TomTom"
            logger.log(
                level, "%s %s %s: %s in %.1f ms", source, method, path, outcome, elapsed * 1000
            )

    async def _send(self, outgoing: Outgoing) -> RawBody:
        bounds = self._bounds
        key, method, path = outgoing.key, outgoing.method, outgoing.path
        transport = self._offline if outgoing.offline else self._transport
        request = httpx.Request(
            method,
            outgoing.url,
            content=outgoing.body,
            headers=outgoing.headers,
            extensions={"timeout": self._timeout},
        )
        try:
            async with asyncio.timeout(bounds.deadline_s):
                response = await transport.handle_async_request(request)
                # A body the transport read (tests' MockTransport) is already decoded.
                decoded = response.is_stream_consumed
                try:
                    if response.status_code >= 400:
                        raise error_for(await _error_answer(response), key)
                    if 300 <= response.status_code < 400:  # Matrix v2's result (`_matrix.py`)
                        raise Redirected(response.headers.get("location", ""))
                    body = await _bounded_body(response, bounds.max_body_bytes)
                finally:
                    await response.aclose()
        except (TimeoutError, httpx.TimeoutException):
            raise UpstreamTimeoutError(
                f"TomTom did not answer in time (no whole answer within {bounds.deadline_s:g} "
                "s). The request may succeed if tried again later, or with a smaller area or "
                "fewer waypoints."
            ) from None
        except httpx.HTTPError as exc:
            reason = scrub(str(exc), key) or type(exc).__name__
            logger.warning("TomTom %s %s failed: %s", method, path, reason)
            raise UpstreamUnavailableError(
                f"TomTom could not be reached ({type(exc).__name__}). Try again later."
            ) from None
        encoding = "" if decoded else response.headers.get("content-encoding", "")
        try:
            return self._placement.settled(
                RawBody.received(
                    body,
                    encoding,
                    bounds.max_decoded_bytes,
                    status=response.status_code,
                    location=response.headers.get("location", ""),
                )
            )
        except BodyError as exc:
            raise UpstreamUnavailableError(str(exc)) from None

    # --- many places at once: Batch Search and Snap to Roads (docs/upstream.md) -----------

    async def batch_search_raw(self, queries: list[str], *, key: str | None) -> RawBody:
        """`POST /search/2/batch/sync.json`: up to 100 Search queries (each a path under
        `/search/2` with its query, e.g. `/geocode/Damrak%201.json?limit=3`) answered in one
        body, as received: `batchItems` in the queries' order, each with its own
        `statusCode`. TomTom bills each query, and so do the key's quota and the user's
        budget (`_charge`)."""
        path = "/search/2/batch/sync.json"
        await self._charge(path, key, len(queries))
        body = _batches.batch_body(queries)
        return await self._fetch("search/batchSync", "POST", path, (), key, body)

    async def batch_submit(self, queries: list[str], *, key: str | None) -> _batches.Submitted:
        """`POST /search/2/batch.json?redirectMode=manual`: up to 10,000 queries as an
        asynchronous batch, kept by TomTom for 14 days. TomTom answers 202 (303 in its
        default mode) with the download's `Location`, whose batch id this returns; billed,
        and counted, per query."""
        path = "/search/2/batch.json"
        await self._charge(path, key, len(queries))
        body = _batches.batch_body(queries)
        query: Params = [("redirectMode", "manual")]
        try:
            raw = await self._fetch("search/batchSubmit", "POST", path, query, key, body)
        except Redirected as redirect:  # TomTom's default mode: 303 to the download
            raw = RawBody(b"", status=303, location=redirect.location)
        return _batches.submitted(raw)

    async def batch_download(
        self, batch_id: str, *, key: str | None, wait_s: int
    ) -> RawBody | None:
        """`GET /search/2/batch/{batchId}?waitTimeSeconds=`: TomTom's long poll of an
        asynchronous batch: its results as received (200) once done, or None when TomTom
        is still at work after `wait_s` seconds (202). A batch past its 14 days, or of
        another key, is TomTom's 404 (`BadRequestError`)."""
        path = f"/search/2/batch/{_batches.checked_batch_id(batch_id)}"
        query: Params = [("waitTimeSeconds", wait_s)]
        raw = await self._fetch("search/batchDownload", "GET", path, query, key)
        return raw if raw.status == 200 else None

    async def snap_to_roads_raw(
        self, points: RawBody, *, key: str | None, params: Params = ()
    ) -> RawBody:
        """`POST /snapToRoads/1` with `{"points": [...]}` (GeoJSON Point features, with
        `timestamp` and `heading` properties where known): one trace of at most 5,000
        points and 100 km of road matched to the roads driven, as received; `fields` in
        `params` says what the answer holds."""
        return await self._fetch("snap/snapToRoads", "POST", "/snapToRoads/1", params, key, points)

    async def _charge(self, path: str, key: str | None, billed: int) -> None:
        """Before a request TomTom bills as `billed` requests (a batch: each query; a matrix:
        `_matrix.billed_cells`), count the `billed - 1` beyond the one `_fetch` counts,
        against the signed-in user's budget and the key's quota; refused, nothing is sent.
        Offline answers cost nothing."""
        if billed <= 1 or self.serves_offline(key):
            return
        scope = call_scope.current(self._bounds.call_deadline_s)
        if scope.user is not None and self._budgets is not None:
            await self._budgets.spend(scope.user, billed - 1, keep=1)
        used = self.key_for(key)
        if used is not None:
            self._pacer.charge(used, family_of(path), billed - 1)

    # Matrix Routing v2: thin methods over `_fetch` and `_request`, with what TomTom bills
    # (`_matrix.py`; docs/upstream.md, Matrix Routing v2).

    async def matrix_sync(
        self, body: RawBody, *, origins: int, destinations: int, key: str | None
    ) -> dict[str, Any]:
        """`POST /routing/matrix/2`: the whole matrix in the answer (TomTom's synchronous
        limits apply), billed by its cells."""
        await self._charge(SYNC_PATH, key, billed_cells(origins, destinations))
        return await self._request("matrix/sync", "POST", SYNC_PATH, (), key, body)

    async def matrix_submit(
        self, body: RawBody, *, origins: int, destinations: int, key: str | None
    ) -> dict[str, Any]:
        """`POST /routing/matrix/2/async`: TomTom's 202 `{"jobId", "state"}`, billed by the
        matrix's cells."""
        await self._charge(ASYNC_PATH, key, billed_cells(origins, destinations))
        return await self._request("matrix/asyncSubmit", "POST", ASYNC_PATH, (), key, body)

    async def matrix_status(self, job_id: str, *, key: str | None) -> dict[str, Any]:
        """`GET /routing/matrix/2/async/{jobId}`: the job's `state`."""
        path = f"{ASYNC_PATH}/{_segment(job_id)}"
        return await self._get("matrix/asyncStatus", path, (), key)

    async def matrix_result(self, job_id: str, *, key: str | None) -> dict[str, Any]:
        """`GET /routing/matrix/2/async/{jobId}/result` once the job is `Completed` (404
        before): the matrix in the answer, or where a 302's `Location` says, fetched
        without the key."""
        path = f"{ASYNC_PATH}/{_segment(job_id)}/result"
        try:
            return await self._get("matrix/asyncResult", path, (), key)
        except Redirected as redirect:
            raw = await self._follow(redirect.location, offline=self.serves_offline(key))
        try:
            return await self._placement.run(loads, raw, size=self._placement.for_bodies([raw]))
        except BodyError as exc:
            raise UpstreamUnavailableError(str(exc)) from None

    async def _follow(self, location: str, *, offline: bool) -> RawBody:
        """The answer at a redirect's `location`: bounded like any answer, unpaced, never
        with the key. Only an absolute http(s) address is followed, and a request that went
        to TomTom is never sent to the offline upstream."""
        url = httpx.URL(location)
        if url.scheme not in ("http", "https") or not url.host:
            raise UpstreamUnavailableError(
                "TomTom's matrix result redirected to an address this server does not follow."
            )
        base = f"{url.scheme}://{url.netloc.decode()}"
        if (base == OFFLINE_BASE_URL) != offline:
            raise UpstreamUnavailableError(
                "TomTom's matrix result redirected to an address this server does not follow."
            )
        headers = {
            "accept": "*/*",
            "accept-encoding": ACCEPT_ENCODING,
            "user-agent": user_agent(self._public_url, refetch=call_scope.refetching()),
        }
        request = Outgoing("matrix/asyncDownload", "GET", base, url.path, url, None, None, headers)
        try:
            return await self._attempt(request)
        except Redirected:
            raise UpstreamUnavailableError(
                "TomTom's matrix result redirected more than once; try again later."
            ) from None


async def _bounded_body(response: httpx.Response, limit: int) -> bytes:
    """The answer's bytes as received, refused as soon as they pass `limit`."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    if response.is_stream_consumed:  # read by the transport (tests' MockTransport)
        body = response.content
        if len(body) > limit:
            raise _too_large(limit)
        return body
    body = await received(response.aiter_raw(), limit)
    if body is None:
        raise _too_large(limit)
    return body


async def _error_answer(response: httpx.Response) -> httpx.Response:
    """An error answer with the start of its body, decoded (`ERROR_BODY_BYTES` at most, as
    received and once decoded), to quote: read as received, since an HTTP client decoding
    it would inflate every layer of a stacked coding whole."""
    if response.is_stream_consumed:
        return response
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        chunks.append(chunk)
        size += len(chunk)
        if size >= ERROR_BODY_BYTES:
            break
    encoding = response.headers.get("content-encoding", "")
    content = prefix(b"".join(chunks)[:ERROR_BODY_BYTES], encoding, ERROR_BODY_BYTES)
    headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-encoding"]
    return httpx.Response(response.status_code, headers=headers, content=content)


def _too_large(limit: int) -> AnswerTooLargeError:
    return AnswerTooLargeError(
        f"TomTom's answer is larger than this server accepts ({limit / 2**20:.0f} MiB as "
        "received). Ask for less: fewer waypoints, alternatives or a smaller area."
    )
