"""Batch Search in TomTom's shapes: the synchronous batch, and the asynchronous one with
its redirect and long poll.

A batch is `{"batchItems": [{"query": "/geocode/...json?..."}, ...]}`; each query is a
Search API request under `/search/2`, answered by this upstream's own search endpoints,
and the answer is `{"formatVersion", "batchItems": [{"statusCode", "response"}],
"summary": {"successfulRequests", "totalRequests"}}` in the queries' order: a query
this upstream refuses is an item of its own with TomTom's error body, never a failed
batch. The synchronous batch takes 100 queries; the asynchronous one 10,000, answered
202 (`redirectMode=manual`) or 303 with the download's `Location`, whose long poll
answers 200 once the batch is done and 202 (again with the `Location`) until then.
Asynchronous batches are kept in this process, 14 days at most as TomTom keeps them,
and only as many as `JobStore` holds.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import orjson

from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _search
from tomtom_mcp_apps.server.offline._query import Query

FORMAT_VERSION = "0.0.1"
SYNC_MAX_ITEMS = 100
ASYNC_MAX_ITEMS = 10_000
RETENTION_S = 14 * 24 * 3600
"""How long TomTom keeps an asynchronous batch's results (then 404)."""
WAIT_SECONDS = (5, 10, 15, 20, 60, 120)
"""`waitTimeSeconds` values TomTom accepts; 120 is its default."""
DEFAULT_WAIT_S = 120

_ENDPOINTS: dict[str, Callable[[str, Query], dict[str, Any]]] = {
    "geocode": _search.geocode,
    "search": _search.fuzzy_search,
    "poiSearch": _search.poi_search,
}


def items_of(body: bytes, limit: int) -> list[str]:
    """The queries of a batch body, in order; a 400 saying what is wrong otherwise."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise OfflineBadRequest("The request body is not valid JSON.") from None
    items = parsed.get("batchItems") if isinstance(parsed, dict) else None
    if not isinstance(items, list) or not items:
        raise OfflineBadRequest(
            "The request body must be an object with a non-empty 'batchItems' list.",
            target="batchItems",
        )
    if len(items) > limit:
        raise OfflineBadRequest(
            f"Too many batch items: {len(items)}; this endpoint takes at most {limit}.",
            target="batchItems",
        )
    queries = []
    for i, item in enumerate(items):
        query = item.get("query") if isinstance(item, dict) else None
        if not isinstance(query, str) or not query.startswith("/"):
            raise OfflineBadRequest(
                f"batchItems[{i}] must be an object with a 'query' such as "
                "'/geocode/Amsterdam.json'.",
                target=f"batchItems[{i}].query",
            )
        queries.append(query)
    return queries


def answer(queries: list[str]) -> dict[str, Any]:
    """The batch's answer: each query answered, or refused as an item of its own."""
    items = [_item(query) for query in queries]
    ok = sum(1 for item in items if item["statusCode"] == 200)
    return {
        "formatVersion": FORMAT_VERSION,
        "batchItems": items,
        "summary": {"successfulRequests": ok, "totalRequests": len(items)},
    }


def _item(query: str) -> dict[str, Any]:
    parts = urlsplit(query)
    endpoint, _, rest = parts.path.lstrip("/").partition("/")
    handler = _ENDPOINTS.get(endpoint)
    try:
        if handler is None or not rest.endswith(".json"):
            raise OfflineBadRequest(
                f"Unsupported batch query path {parts.path[:80]!r}: this upstream answers "
                "/geocode/, /search/ and /poiSearch/ queries ending in .json."
            )
        text = unquote(rest.removesuffix(".json"))
        response = handler(text, Query(parse_qsl(parts.query, keep_blank_values=True)))
    except OfflineBadRequest as exc:
        return {
            "statusCode": 400,
            "response": {"errorText": exc.message, "message": exc.message, "httpStatusCode": 400},
        }
    return {"statusCode": 200, "response": response}


@dataclass
class Job:
    """An asynchronous batch: its answer once computed, and when it may be handed out."""

    created: float
    ready_at: float
    items: int
    body: bytes | None = None
    gzip: bytes | None = None
    """The answer gzipped, for clients that ask for it (large answers only)."""
    done: asyncio.Event = field(default_factory=asyncio.Event)


class JobStore:
    """This process's asynchronous batches, newest kept: at most `max_items` queries' worth
    (their answers held in memory), none past `RETENTION_S`."""

    def __init__(
        self,
        seconds_for: Callable[[int], float],
        *,
        max_items: int = 200_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._seconds_for = seconds_for
        self._max_items = max_items
        self._clock = clock
        self._jobs: OrderedDict[str, Job] = OrderedDict()

    def add(self, items: int) -> tuple[str, Job]:
        """A new job of `items` queries, due after the processing time this upstream plays."""
        now = self._clock()
        job = Job(now, now + self._seconds_for(items), items)
        batch_id = str(uuid.uuid4())
        self._jobs[batch_id] = job
        while sum(j.items for j in self._jobs.values()) > self._max_items and len(self._jobs) > 1:
            self._jobs.popitem(last=False)
        return batch_id, job

    def get(self, batch_id: str) -> Job | None:
        """The job, unless unknown, forgotten or past its retention."""
        job = self._jobs.get(batch_id)
        if job is not None and self._clock() - job.created > RETENTION_S:
            del self._jobs[batch_id]
            return None
        return job

    def left(self, job: Job) -> float:
        """Seconds until `job` may be handed out."""
        return max(0.0, job.ready_at - self._clock())
