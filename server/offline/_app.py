"""The Starlette app that speaks TomTom's REST shapes: routes, caching, failure injection."""

from __future__ import annotations

import asyncio
import functools
import gzip
import hashlib
import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

import anyio
import orjson
from isal import igzip, isal_zlib
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import (
    _batch,
    _categories,
    _ev,
    _image,
    _matrix,
    _range,
    _routing,
    _search,
    _snap,
    _tiles,
    _traffic,
)
from tomtom_mcp_apps.server.offline._cache import ResponseCache
from tomtom_mcp_apps.server.offline._errors import Service, error_body, service_of
from tomtom_mcp_apps.server.offline._query import Query

Handler = Callable[[dict[str, Any], Query, bytes], "dict[str, Any] | bytes"]

JSON = "application/json"
# `key` values that make the upstream fail the way TomTom does, for tests.
FAILURE_KEYS = ("offline-403", "offline-429", "offline-500", "offline-timeout")
# `key` values that make it answer the way a broken or hostile upstream might.
HOSTILE_KEYS = (
    "offline-429-once",  # 429 (Retry-After: 1) the first time a request is seen, then the answer
    "offline-over-qps",  # 403 "Developer Over Qps", as TomTom's gateway has answered
    "offline-slow-drip",  # 200, then a byte of body every 0.2 s: each read is quick, the whole not
    "offline-gzip-bomb",  # 200, gzip of 256 MiB of zeros (about 250 KB on the wire)
    "offline-truncated-gzip",  # the real answer, gzipped, cut in half
    "offline-corrupt-gzip",  # the real answer, gzipped, with its middle overwritten
    "offline-lying-gzip-bomb",  # 200, the gzip bomb with a trailer claiming 1 KiB
    "offline-stacked-gzip",  # 200, "gzip, gzip, gzip": 373 bytes that inflate to 4 GiB
    "offline-stacked-500",  # the same body on an HTTP 500 (an error answer)
    "offline-error-bomb",  # HTTP 500, the gzip bomb as its body
    "offline-unknown-encoding",  # the real answer labelled with a coding nobody asked for
)
DRIP_INTERVAL_S = 0.2
BOMB_BYTES = 256 * 1024 * 1024
NESTED_BOMB_BYTES = 4 * 1024**3
"""What the three stacked gzip layers of `offline-stacked-gzip` hold once all decoded."""
STACKED = b"gzip, gzip, gzip"


def build_upstream_app(*, cache_bytes: int = 64 * 1024 * 1024, slow_answer_s: float = 30.0,
                       clock: Callable[[], datetime] = lambda: datetime.now(UTC),
                       batch_seconds: Callable[[int], float] = lambda items: 0.0,
                       ) -> Starlette:  # fmt: skip
    """The offline TomTom upstream. `slow_answer_s` is how long `key=offline-timeout` waits
    (unless the client leaves first) before answering 504; `clock` is "now" for departures
    and incident times (answers are the same within a minute, then move with it);
    `batch_seconds(items)` is how long an asynchronous batch of that many queries takes
    to be done (none by default: TomTom's latency is played by a stand-in)."""
    cache: ResponseCache[_Answer] = ResponseCache(cache_bytes)
    inflight: dict[Hashable, asyncio.Task[_Answer]] = {}
    batches = _Batches(_batch.JobStore(batch_seconds))

    def route(path: str, service: Service, handler: Handler, *, heavy: bool = False,
              methods: tuple[str, ...] = ("GET",), clocked: bool = False,
              media_type: str = JSON) -> Route:  # fmt: skip
        endpoint = _endpoint(cache, inflight, service, handler, heavy, clock, clocked, media_type)
        return Route(path, endpoint, methods=list(methods))

    routes = [
        Route("/health", _health, methods=["GET"]),
        route("/search/2/geocode/{query:path}.json", "search",
              lambda p, q, b: _search.geocode(p["query"], q)),
        route("/search/2/reverseGeocode/{position}.json", "search",
              lambda p, q, b: _search.reverse_geocode(p["position"], q)),
        route("/search/2/search/{query:path}.json", "search",
              lambda p, q, b: _search.fuzzy_search(p["query"], q)),
        route("/search/2/poiSearch/{query:path}.json", "search",
              lambda p, q, b: _search.poi_search(p["query"], q)),
        route("/search/2/nearbySearch/.json", "search", lambda p, q, b: _search.nearby_search(q)),
        route("/search/2/searchAlongRoute/{query:path}.json", "search",
              lambda p, q, b: _search.search_along_route(p["query"], q, b), heavy=True,
              methods=("POST",)),
        route("/routing/1/calculateRoute/{locations}/json", "routing",
              lambda p, q, b: _routing.calculate_route(
                  _routing.parse_request(p["locations"], q, b)),
              heavy=True, methods=("GET", "POST"), clocked=True),
        route("/routing/1/calculateReachableRange/{origin}/json", "routing",
              lambda p, q, b: _range.reachable_range(p["origin"], q)),
        route("/search/2/geometrySearch/{query:path}.json", "search",
              lambda p, q, b: _search.geometry_search(p["query"], q, b), methods=("POST",)),
        route("/search/2/poiCategories.json", "search",
              lambda p, q, b: _categories.poi_categories(q)),
        route("/search/2/batch/sync.json", "search",
              lambda p, q, b: _batch.answer(_batch.items_of(b, _batch.SYNC_MAX_ITEMS)),
              heavy=True, methods=("POST",)),
        Route("/search/2/batch.json", batches.submit, methods=["POST"]),
        Route("/search/2/batch/{batch_id}", batches.download, methods=["GET"]),
        route("/snapToRoads/1", "gateway", lambda p, q, b: _snap.snap_to_roads(q, b),
              heavy=True, methods=("GET", "POST")),
        route("/search/2/evsearch.json", "search", lambda p, q, b: _ev.ev_search(q)),
        route("/search/2/chargingAvailability.json", "search",
              lambda p, q, b: _ev.charging_availability(q)),
        route("/routing/1/calculateLongDistanceEVRoute/{locations}/json", "routing",
              lambda p, q, b: _ev.long_distance_ev_route(p["locations"], q, b),
              heavy=True, methods=("POST",), clocked=True),
        route("/map/1/staticimage", "gateway", lambda p, q, b: _image.static_image(q),
              heavy=True, media_type="image/png"),
        route("/traffic/services/5/incidentDetails", "traffic",
              lambda p, q, b: _traffic.incident_details(q), heavy=True, clocked=True),
        route("/routing/matrix/2", "routing", lambda p, q, b: _matrix.sync_matrix(b),
              heavy=True, methods=("POST",)),
        *_matrix_jobs(),
        Route("/map/1/tile/{layer}/{style}/{z:int}/{x:int}/{y:int}.{ext}", _tiles.map_tile),
        Route("/traffic/map/4/tile/{kind}/{style}/{z:int}/{x:int}/{y:int}.{ext}",
              _tiles.traffic_tile),
    ]  # fmt: skip
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(_FailureInjection, slow_answer_s=slow_answer_s),
            Middleware(_HostileAnswers),
        ],
        exception_handlers={HTTPException: _http_error},
    )


def _matrix_jobs() -> list[Route]:
    """Matrix v2's asynchronous endpoints over one upstream's jobs: submit (202), status,
    and the result (404 until `Completed`, then a 302 to where it is)."""
    jobs = _matrix.MatrixJobs()

    async def submit(request: Request) -> Response:
        try:
            answer = jobs.submit(await _request_body(request))
        except OfflineBadRequest as exc:
            return _bad_request("routing", exc)
        return Response(orjson.dumps(answer), status_code=202, media_type=JSON)

    async def status(request: Request) -> Response:
        answer = jobs.status(request.path_params["job"])
        if answer is None:
            return _not_found("No matrix job with this id.")
        return Response(orjson.dumps(answer), media_type=JSON)

    async def result(request: Request) -> Response:
        job = request.path_params["job"]
        if jobs.state(job) != "Completed":
            return _not_found("The matrix job is not Completed, or has no such id.")
        where = str(request.url_for("matrix_download", job=job))
        return Response(status_code=302, headers={"location": where})

    async def download(request: Request) -> Response:
        answer = jobs.result(request.path_params["job"])
        if answer is None:
            return _not_found("No result for this matrix job.")
        return Response(orjson.dumps(answer), media_type=JSON)

    return [
        Route("/routing/matrix/2/async", submit, methods=["POST"]),
        Route("/routing/matrix/2/async/{job}", status, methods=["GET"]),
        Route("/routing/matrix/2/async/{job}/result", result, methods=["GET"]),
        Route("/_matrix/results/{job}", download, methods=["GET"], name="matrix_download"),
    ]


def _not_found(message: str) -> Response:
    body = {"detailedError": {"code": "NOT_FOUND", "message": message}}
    return Response(orjson.dumps(body), status_code=404, media_type=JSON)


def _endpoint(
    cache: ResponseCache[_Answer],
    inflight: dict[Hashable, asyncio.Task[_Answer]],
    service: Service,
    handler: Handler,
    heavy: bool,
    clock: Callable[[], datetime],
    clocked: bool,
    media_type: str = JSON,
) -> Callable[[Request], Any]:
    """Answer from the cache, or join the computation already running for the same request
    (a burst of identical long routes costs one), or start it (large answers off the event
    loop, in a task that outlives a client who leaves, so the answer still gets cached).
    A `clocked` answer depends on the minute it is asked in, which its cache key holds."""

    def answer(params: dict[str, Any], query: Query, body: bytes) -> _Answer:
        result = handler(params, query, body)
        raw = result if isinstance(result, bytes) else orjson.dumps(result)
        return _Answer.of(raw) if media_type == JSON else _Answer(raw, None)

    async def compute(params: dict[str, Any], query: Query, body: bytes) -> _Answer:
        if heavy:
            return await run_in_threadpool(answer, params, query, body)
        return answer(params, query, body)

    def settle(key: Hashable, task: asyncio.Task[_Answer]) -> None:
        inflight.pop(key, None)
        if not task.cancelled() and task.exception() is None:
            cache.put(key, task.result())

    async def endpoint(request: Request) -> Response:
        query = Query(request.query_params.multi_items(), clock())
        try:
            body = await _request_body(request) if request.method == "POST" else b""
        except OfflineBadRequest as exc:
            return _bad_request(service, exc)
        key = (
            request.method,
            request.scope["path"],
            query.canonical(),
            hashlib.blake2b(body, digest_size=16).digest() if body else b"",
            query.now if clocked else None,
        )
        cached = cache.get(key)
        if cached is None:
            task = inflight.get(key)
            if task is None:
                task = asyncio.ensure_future(compute(request.path_params, query, body))
                inflight[key] = task
                task.add_done_callback(functools.partial(settle, key))
            try:
                cached = await asyncio.shield(task)
            except OfflineBadRequest as exc:
                return _bad_request(service, exc)
        if cached.gzip is not None and "gzip" in request.headers.get("accept-encoding", ""):
            headers = {"content-encoding": "gzip", "vary": "accept-encoding"}
            return Response(cached.gzip, headers=headers, media_type=media_type)
        return Response(cached.raw, media_type=media_type)

    return endpoint


REQUEST_BODY_MAX_BYTES = 32 * 1024 * 1024
"""Decoded request bodies beyond this are refused (a 1,000,000-point route is ~40 MB)."""


async def _request_body(request: Request) -> bytes:
    """The POST body, decoded when sent with `Content-Encoding: gzip` (TomTom accepts that
    "for large data sets"), bounded so that a small gzip bomb stays small."""
    body = await request.body()
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding == "identity":
        return body
    if encoding != "gzip":
        raise OfflineBadRequest(f"Unsupported Content-Encoding {encoding!r}; use gzip or none.")
    inflate = zlib.decompressobj(wbits=31)
    try:
        decoded = inflate.decompress(body, REQUEST_BODY_MAX_BYTES + 1)
    except zlib.error:
        raise OfflineBadRequest("The request body is not valid gzip.") from None
    if len(decoded) > REQUEST_BODY_MAX_BYTES:
        raise OfflineBadRequest(
            f"The request body is over {REQUEST_BODY_MAX_BYTES // 2**20} MB once decoded."
        )
    if not inflate.eof:
        raise OfflineBadRequest("The request body is truncated gzip.")
    return decoded


class _Batches:
    """The asynchronous Batch Search endpoints over one `JobStore` (`_batch.py`)."""

    def __init__(self, jobs: _batch.JobStore) -> None:
        self.jobs = jobs
        self._working: set[asyncio.Task[None]] = set()

    async def submit(self, request: Request) -> Response:
        """`POST /search/2/batch.json`: 303 (`redirectMode=auto`, TomTom's default) or 202
        (`manual`), the download's `Location` either way; the batch is answered off the
        event loop meanwhile."""
        query = Query(request.query_params.multi_items())
        try:
            mode = query.choice("redirectMode", ("auto", "manual"), "auto")
            _wait_of(query)
            queries = _batch.items_of(await _request_body(request), _batch.ASYNC_MAX_ITEMS)
        except OfflineBadRequest as exc:
            return _bad_request("search", exc)
        batch_id, job = self.jobs.add(len(queries))
        task = asyncio.ensure_future(self._work(job, queries))
        self._working.add(task)
        task.add_done_callback(self._working.discard)
        headers = {"location": _download_url(request, batch_id)}
        return Response(b"", 303 if mode == "auto" else 202, headers=headers)

    async def _work(self, job: _batch.Job, queries: list[str]) -> None:
        answer = await run_in_threadpool(lambda: _Answer.of(orjson.dumps(_batch.answer(queries))))
        job.body = answer.raw
        job.gzip = answer.gzip
        job.done.set()

    async def download(self, request: Request) -> Response:
        """`GET /search/2/batch/{batchId}`: the long poll. 200 with the answer once the
        batch is done, else 202 with the `Location` after `waitTimeSeconds`; 404 for a
        batch this upstream does not hold (unknown, forgotten, or past 14 days)."""
        batch_id = request.path_params["batch_id"]
        try:
            wait = _wait_of(Query(request.query_params.multi_items()))
        except OfflineBadRequest as exc:
            return _bad_request("search", exc)
        job = self.jobs.get(batch_id)
        if job is None:
            body = error_body(
                "search", 404, f"Batch {batch_id[:60]!r} was not found.", code="NotFound"
            )
            return Response(body, 404, media_type=JSON)
        waited = 0.0
        while not (job.done.is_set() and self.jobs.left(job) == 0.0) and waited < wait:
            step = min(0.25, wait - waited)
            await asyncio.sleep(step)
            waited += step
            if await request.is_disconnected():
                return Response(b"", 499)
        if not (job.done.is_set() and self.jobs.left(job) == 0.0):
            return Response(b"", 202, headers={"location": _download_url(request, batch_id)})
        if job.gzip is not None and "gzip" in request.headers.get("accept-encoding", ""):
            headers = {"content-encoding": "gzip", "vary": "accept-encoding"}
            return Response(job.gzip, headers=headers, media_type=JSON)
        return Response(job.body, media_type=JSON)


def _wait_of(query: Query) -> int:
    """`waitTimeSeconds`: how long a download may be held, 120 s unless asked otherwise."""
    wait = query.integer("waitTimeSeconds", low=1, high=120, default=_batch.DEFAULT_WAIT_S)
    assert wait is not None
    return wait


def _download_url(request: Request, batch_id: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/search/2/batch/{batch_id}"


def _bad_request(service: Service, exc: OfflineBadRequest) -> Response:
    body = error_body(service, 400, exc.message, code=exc.code, target=exc.target)
    return Response(body, 400, media_type=JSON)


GZIP_MIN_BYTES = 1024
"""Answers this large are also kept gzipped, for clients that accept it (TomTom's
servers compress too); smaller ones gain nothing."""


@dataclass(frozen=True)
class _Answer:
    raw: bytes
    gzip: bytes | None

    @classmethod
    def of(cls, raw: bytes) -> _Answer:
        return cls(raw, igzip.compress(raw, 1) if len(raw) >= GZIP_MIN_BYTES else None)

    def __len__(self) -> int:
        return len(self.raw) + len(self.gzip or b"")


async def _health(request: Request) -> Response:
    return Response(b'{"status":"ok","upstream":"offline"}', media_type=JSON)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    path = request.scope["path"]
    if exc.status_code == 404:
        message = f"No such endpoint: {path}"
        code = "NotFound"
    else:
        message = f"{request.method} is not allowed on {path}"
        code = "MethodNotAllowed"
    body = error_body(service_of(path), exc.status_code, message, code=code)
    return Response(body, exc.status_code, headers=exc.headers, media_type=JSON)


class _FailureInjection:
    """Answers like a refusing, throttled, broken or stalled TomTom when the `key` asks to."""

    def __init__(self, app: ASGIApp, slow_answer_s: float) -> None:
        self.app = app
        self.slow_answer_s = slow_answer_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = _key_of(scope)
        if key not in FAILURE_KEYS:
            await self.app(scope, receive, send)
            return
        service = service_of(scope["path"])
        headers: list[tuple[bytes, bytes]] = [(b"content-type", JSON.encode())]
        if key == "offline-403":
            status, code = 403, "Forbidden"
            message = "Developer Inactive: this API key is not active or not allowed here."
        elif key == "offline-429":
            status, code = 429, "TooManyRequests"
            message = "Developer Over Qps: too many requests for this API key."
            headers.append((b"retry-after", b"1"))
        elif key == "offline-500":
            status, code, message = 500, "InternalServerError", "Internal Server Error"
        else:
            if await _client_left(receive, self.slow_answer_s):
                return
            status, code, message = 504, "GatewayTimeout", "Gateway Timeout"
        body = error_body(service, status, message, code=code)
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _client_left(receive: Receive, seconds: float) -> bool:
    """Wait up to `seconds`; True as soon as the client disconnects."""
    with anyio.move_on_after(seconds):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return True
    return False


def _key_of(scope: Scope) -> str | None:
    """The request's `key` query parameter: the test hooks' switch (keyless requests, the
    offline mode's own, have none, and are not parsed for it)."""
    query = scope.get("query_string", b"")
    if b"key=" not in query:
        return None
    return next((v for k, v in parse_qsl(query.decode("latin-1")) if k == "key"), None)


class _HostileAnswers:
    """Answers like a broken or hostile upstream when the `key` asks to (`HOSTILE_KEYS`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: set[tuple[str, bytes]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = _key_of(scope)
        if scope["type"] != "http" or key not in HOSTILE_KEYS:
            await self.app(scope, receive, send)
            return
        media = _media_of(scope["path"])
        if key == "offline-429-once":
            request = (scope["path"], scope.get("query_string", b""))
            if request in self.seen:
                await self.app(scope, receive, send)
                return
            self.seen.add(request)
            body = error_body(service_of(scope["path"]), 429, "Too Many Requests")
            await _answer(send, 429, body, [(b"retry-after", b"1")])
        elif key == "offline-over-qps":
            await _answer(send, 403, b"<h1>Developer Over Qps</h1>", [], media=b"text/html")
        elif key == "offline-slow-drip":
            await _drip(receive, send)
        elif key == "offline-gzip-bomb":
            await _answer(send, 200, _bomb(), [(b"content-encoding", b"gzip")], media)
        elif key == "offline-lying-gzip-bomb":
            lying = _bomb()[:-4] + (1024).to_bytes(4, "little")
            await _answer(send, 200, lying, [(b"content-encoding", b"gzip")], media)
        elif key in ("offline-stacked-gzip", "offline-stacked-500"):
            status = 200 if key == "offline-stacked-gzip" else 500
            body = await run_in_threadpool(_stacked_bomb)  # built once, off the loop
            await _answer(send, status, body, [(b"content-encoding", STACKED)], media)
        elif key == "offline-error-bomb":
            await _answer(send, 500, _bomb(), [(b"content-encoding", b"gzip")])
        elif key == "offline-unknown-encoding":
            status, headers, body = await _real_answer(self.app, scope, receive)
            await _answer(send, status, body, [(b"content-encoding", b"br")], media)
        else:
            status, headers, body = await _real_answer(self.app, scope, receive)
            packed = body if b"gzip" in dict(headers).get(b"content-encoding", b"") else None
            packed = packed or igzip.compress(body, 1)
            if key == "offline-truncated-gzip":
                packed = packed[: len(packed) // 2]
            else:
                middle = len(packed) // 2
                packed = packed[:middle] + bytes(64) + packed[middle + 64 :]
            await _answer(send, status, packed, [(b"content-encoding", b"gzip")])


async def _answer(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]], media: bytes = b""
) -> None:
    headers = [
        (b"content-type", media or JSON.encode()),
        (b"content-length", str(len(body)).encode()),
        *headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _drip(receive: Receive, send: Send) -> None:
    """A JSON answer one byte at a time, until the client leaves (at most a minute)."""
    body = b'{"results": [' + b" " * 300 + b"]}"
    headers = [(b"content-type", JSON.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for i in range(len(body)):
        await send({"type": "http.response.body", "body": body[i : i + 1], "more_body": True})
        if await _client_left(receive, DRIP_INTERVAL_S):
            return
    await send({"type": "http.response.body", "body": b""})


@functools.cache
def _bomb(size: int = BOMB_BYTES) -> bytes:
    """gzip of `size` zeros (whole mebibytes), built in milliseconds: one mebibyte of zeros
    deflated with a full flush (no reference to earlier data) is a block that may simply
    repeat."""
    zeros = bytes(1024 * 1024)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    count = size // len(zeros)
    crc = 0
    for _ in range(count):
        crc = isal_zlib.crc32(zeros, crc)  # ISA-L's: far quicker than zlib's
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # an empty final block
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = crc.to_bytes(4, "little") + (size % 2**32).to_bytes(4, "little")
    return header + block * count + end + trailer


@functools.cache
def _stacked_bomb() -> bytes:
    """`NESTED_BOMB_BYTES` of zeros under three gzip layers: the bomb's repeated blocks
    compress again a thousandfold, then once more, to a few hundred bytes."""
    inner = _bomb(NESTED_BOMB_BYTES)
    return gzip.compress(gzip.compress(inner, 9, mtime=0), 9, mtime=0)


def _media_of(path: str) -> bytes:
    """The content type TomTom gives what `path` serves: images for tiles and static maps."""
    if path.startswith(("/map/1/tile/", "/traffic/map/", "/map/1/staticimage")):
        return b"image/png"
    return JSON.encode()


async def _real_answer(
    app: ASGIApp, scope: Scope, receive: Receive
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """What `app` answers to the request, collected."""
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def collect(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, collect)
    return start["status"], list(start.get("headers", [])), b"".join(chunks)
