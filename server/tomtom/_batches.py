"""What TomTom's asynchronous Batch Search answers mean, read from the answer alone.

A submission is answered 202 (`redirectMode=manual`) or 303 (TomTom's default) with a
`Location` naming the download, `/search/2/batch/{batchId}`; the download is answered
200 with the results once the batch is done, and 202 with the same `Location` while it
is not (a long poll of `waitTimeSeconds`). Only the batch id is taken from a
`Location`, never its host or query: the client builds the download's URL itself, to its
own upstream, with the caller's key, bounded like every request (docs/upstream.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.errors import UpstreamUnavailableError

SYNC_MAX_ITEMS = 100
"""Queries one synchronous batch takes (TomTom's Synchronous Batch limit)."""
ASYNC_MAX_ITEMS = 10_000
"""Queries one asynchronous batch takes (TomTom's limit)."""
WAIT_SECONDS = (5, 10, 15, 20, 60, 120)
"""`waitTimeSeconds` values a download may ask for, shortest first."""
_BATCH_ID = re.compile(r"[A-Za-z0-9-]{1,100}")
_IN_LOCATION = re.compile(r"/search/2/batch/([A-Za-z0-9-]{1,100})(?:[?#]|$)")


@dataclass(frozen=True)
class Submitted:
    """A submitted asynchronous batch: its id, and its results when TomTom sent them at
    once (an answer of 200 to the submission)."""

    batch_id: str | None
    result: RawBody | None = None


def batch_body(queries: list[str]) -> RawBody:
    """The body of a batch: `{"batchItems": [{"query": ...}, ...]}` in the queries' order."""
    return RawBody(orjson.dumps({"batchItems": [{"query": q} for q in queries]}))


def submitted(raw: RawBody) -> Submitted:
    """What TomTom's answer to a submission says: where the batch's result will be, or the
    result itself; an answer with neither is TomTom's fault, said in words."""
    if raw.status == 200:
        return Submitted(None, raw)
    batch_id = batch_id_in(raw.location)
    if batch_id is None:
        raise UpstreamUnavailableError(
            f"TomTom accepted the batch (HTTP {raw.status}) but did not say where its result "
            "will be (no usable Location). Try again later."
        )
    return Submitted(batch_id)


def batch_id_in(location: str) -> str | None:
    """The batch id in a download `Location` (absolute or a path), or None."""
    match = _IN_LOCATION.search(location)
    return match.group(1) if match else None


def checked_batch_id(batch_id: str) -> str:
    """`batch_id` when it can be one (letters, digits and dashes, as TomTom's ids are):
    it becomes a path segment."""
    if not _BATCH_ID.fullmatch(batch_id):
        raise ValueError("a batch id is 1-100 letters, digits and dashes")
    return batch_id


def wait_seconds(deadline_s: float, left_s: float) -> int | None:
    """The longest `waitTimeSeconds` a download may ask for and still be answered within
    the request's deadline (`deadline_s`, with a second to spare) and what the call has
    left; None when even the shortest does not fit."""
    fits = [w for w in WAIT_SECONDS if w + 1 <= min(deadline_s, left_s)]
    return fits[-1] if fits else None
