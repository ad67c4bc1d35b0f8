"""The TomTom REST client: a method per endpoint, each request paced, bounded and counted.

Every method returns TomTom's answer (parsed JSON, or calculateRoute's body as received,
which the route jobs decode where they run) or raises a `TomTomError` (`server.errors`,
built in `_errors.py`) the model reads as a tool error, scrubbed of the key that travels
in the query. A request has a deadline for its whole answer and a size cap as received
(`Bounds`); every body is decoded by `server.bodies`' one bounded decoding. Keyed
requests are paced by API family and spend a signed-in user's budget first; the one
retry is after TomTom's unbilled 429, when its Retry-After fits the call. A request with
a key goes to TomTom, one without to the offline upstream in process (docs/upstream.md).
Requests go out through `server.outbound`, the server's one HTTP seam.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.bodies import (
    ACCEPT_ENCODING,
    MAX_DECODED_BYTES,
    RawBody,
    loads,
    prefix,
)
from tomtom_mcp_apps.server.config import OFFLINE_BASE_URL
from tomtom_mcp_apps.server.errors import (
    AnswerTooLargeError,
    BodyError,
    InvalidURL,
    MissingKeyError,
    RateLimitError,
    Redirected,
    TomTomError,
    TransportError,
    TransportTimeout,
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
    url: str
    """`base + path` and the query, encoded (`request_url`)."""
    key: str | None
    body: bytes | None
    headers: dict[str, str]

    @property
    def offline(self) -> bool:
        """Whether the built-in offline upstream answers it (its transport, its counters)."""
        return self.base == OFFLINE_BASE_URL


def request_url(base: str, path: str, query: Params) -> str:
    """`base + path?query`, encoded once and sent as is: a name's values together, where it
    first appears, booleans as true and false (as httpx encodes `params`, which the tests
    check)."""
    if not query:
        return base + path
    values: dict[str, list[str]] = {}
    for name, value in query:
        values.setdefault(name, []).append(_text(value))
    pairs = [(name, value) for name, listed in values.items() for value in listed]
    return f"{base}{path}?{urlencode(pairs)}"


def _text(value: str | int | float | bool | None) -> str:
    """A query value as text: booleans as true and false, None as nothing."""
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
    `base_url`, `offline` those to the offline upstream (`transport` too when None),
    each a `server.outbound.Transport` or a test's stand-in (`outbound.transport`);
    the client owns both and closes them (`aclose`).
    """

    def __init__(
        self,
        transport: outbound.Transport,
        base_url: str,
        default_key: str | None,
        placement: Placement = INLINE,
        *,
        bounds: Bounds | None = None,
        pacer: Pacer | None = None,
        offline_mode: str = "auto",
        budgets: Budgets | None = None,
        public_url: str | None = None,
        offline: outbound.Transport | None = None,
    ) -> None:
        self._upstream = outbound.Client(transport)
        """Carries every request to `base_url`, and offline ones when `offline` is None."""
        self._offline = outbound.Client(offline) if offline is not None else self._upstream
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
        self._timeouts = outbound.Timeouts.within(self._bounds.deadline_s)
        """Each step of a request; the whole answer is bounded by `Bounds.deadline_s`."""

    async def aclose(self) -> None:
        """Closes the transports (their pooled connections); requests then fail."""
        self.closed = True
        await self._upstream.aclose()
        if self._offline is not self._upstream:
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
        client = self._offline if outgoing.offline else self._upstream
        try:
            async with client.request(
                method,
                outgoing.url,
                headers=outgoing.headers,
                body=outgoing.body,
                timeouts=self._timeouts,
                deadline_s=bounds.deadline_s,
                encoded=True,
            ) as answer:
                if answer.status >= 400:
                    raise await _error(answer, key)
                if 300 <= answer.status < 400:  # Matrix v2's result (`_matrix.py`)
                    raise Redirected(answer.header("location"))
                body = await _bounded_body(answer, bounds.max_body_bytes)
                encoding = answer.header("content-encoding")
                status, location = answer.status, answer.header("location")
        except (TimeoutError, TransportTimeout):
            raise UpstreamTimeoutError(
                f"TomTom did not answer in time (no whole answer within {bounds.deadline_s:g} "
                "s). The request may succeed if tried again later, or with a smaller area or "
                "fewer waypoints."
            ) from None
        except TransportError as exc:
            reason = scrub(str(exc), key) or type(exc).__name__
            logger.warning("TomTom %s %s failed: %s", method, path, reason)
            raise UpstreamUnavailableError(
                f"TomTom could not be reached ({type(exc).__name__}). Try again later."
            ) from None
        try:
            return self._placement.settled(
                RawBody.received(
                    body,
                    encoding,
                    bounds.max_decoded_bytes,
                    status=status,
                    location=location,
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
        try:
            url = outbound.parse_url(location)
        except InvalidURL:
            url = None
        if url is None or url.scheme not in ("http", "https") or not url.host:
            raise UpstreamUnavailableError(
                "TomTom's matrix result redirected to an address this server does not follow."
            )
        base = f"{url.scheme}://{url.netloc}"
        if (base == OFFLINE_BASE_URL) != offline:
            raise UpstreamUnavailableError(
                "TomTom's matrix result redirected to an address this server does not follow."
            )
        headers = {
            "accept": "*/*",
            "accept-encoding": ACCEPT_ENCODING,
            "user-agent": user_agent(self._public_url, refetch=call_scope.refetching()),
        }
        request = Outgoing(
            "matrix/asyncDownload", "GET", base, url.path, url.text, None, None, headers
        )
        try:
            return await self._attempt(request)
        except Redirected:
            raise UpstreamUnavailableError(
                "TomTom's matrix result redirected more than once; try again later."
            ) from None


async def _bounded_body(answer: outbound.Answer, limit: int) -> bytes:
    """The answer's bytes as received, refused as soon as they pass `limit`."""
    declared = answer.header("content-length")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    body = await answer.read(limit)
    if body is None:
        raise _too_large(limit)
    return body


async def _error(answer: outbound.Answer, key: str | None) -> TomTomError:
    """The error for a failed answer, from the start of its body, decoded
    (`ERROR_BODY_BYTES` at most, as received and once decoded), to quote: read as received,
    since an HTTP client decoding it would inflate every layer of a stacked coding whole."""
    start = await answer.read_start(ERROR_BODY_BYTES)
    content = prefix(start, answer.header("content-encoding"), ERROR_BODY_BYTES)
    return error_for(
        answer.status,
        content,
        key,
        retry_after=answer.header("retry-after"),
        content_type=answer.header("content-type"),
    )


def _too_large(limit: int) -> AnswerTooLargeError:
    return AnswerTooLargeError(
        f"TomTom's answer is larger than this server accepts ({limit / 2**20:.0f} MiB as "
        "received). Ask for less: fewer waypoints, alternatives or a smaller area."
    )
