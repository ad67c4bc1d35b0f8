"""Batch geocoding over TomTom's Batch Search: the batch sent, waited for, resumed, paged.

Up to 100 rows go as one synchronous batch and are answered in the call. More go as an
asynchronous batch (up to 10,000), kept by TomTom 14 days: the call long-polls its
download while it has time (keeping `BUILD_MARGIN_S` to build the answer) and answers
with the rows, or with a job handle (`_long_jobs.py`) and `state: running`. The handle
resumes the batch on any replica (`tomtom-job-result`, `tomtom-resume-job`), and names
it for the pages of rows a view asks for, each made again from TomTom's answer. Every
row is one query: one `/geocode` per non-empty row, `limit` 3 for the candidates of an
ambiguous row; TomTom bills each, and so do the key's quota and the user's budget.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import quote, urlencode

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.errors import BadRequestError
from tomtom_mcp_apps.server.ops import call_scope
from tomtom_mcp_apps.server.tomtom import (
    ASYNC_MAX_ITEMS,
    SYNC_MAX_ITEMS,
    WAIT_SECONDS,
    wait_seconds,
)
from tomtom_mcp_apps.server.tool_names import BATCH_GEOCODE, JOB_RESULT
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._long_jobs import Handle, issue

KIND = "batch-geocode"
RETENTION_S = 14 * 24 * 3600
"""TomTom keeps an asynchronous batch's results this long; its handle lasts as long."""
BUILD_MARGIN_S = 12.0
"""Seconds of a call kept for building a finished batch's answer (10,000 rows, in a
worker) after the last long poll."""
MAX_EMPTY_ROWS = 60
"""Empty rows an asynchronous batch may have: each is named in its handle."""
MIN_POLL_S = 1.0
"""A download answered "not yet" sooner than this is not asked again sooner."""


def batch_queries(
    rows: list[str], country_set: str | None, language: str | None
) -> tuple[jobs.RowsPlan, list[str]]:
    """The plan (which row each query is) and one `/geocode` query per non-empty row."""
    empty = tuple(i + 1 for i, row in enumerate(rows) if not row.strip())
    params: list[tuple[str, str]] = [("limit", str(3))]
    if country_set:
        params.append(("countrySet", country_set))
    if language:
        params.append(("language", language))
    tail = urlencode(params)
    queries = [f"/geocode/{quote(row.strip(), safe='')}.json?{tail}" for row in rows if row.strip()]
    return jobs.RowsPlan(len(rows), empty), queries


def plan_bytes(plan: jobs.RowsPlan) -> bytes:
    """A plan as a handle keeps it: the rows, then each empty row as a varint gap."""
    out = bytearray(plan.rows.to_bytes(4, "big"))
    last = 0
    for row in plan.empty:
        gap = row - last
        last = row
        while gap >= 0x80:
            out.append(gap & 0x7F | 0x80)
            gap >>= 7
        out.append(gap)
    return bytes(out)


def plan_of(data: bytes) -> jobs.RowsPlan:
    rows = int.from_bytes(data[:4], "big")
    empty, value, shift, last = [], 0, 0, 0
    for byte in data[4:]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            last += value
            empty.append(last)
            value, shift = 0, 0
    return jobs.RowsPlan(rows, tuple(empty))


async def geocode(
    caller: Caller, rows: list[str], params: dict[str, Any], show_ui: bool
) -> CallToolResult:
    """`tomtom-batch-geocode`: the rows sent, and the answer (or a running job's handle)."""
    plan, queries = batch_queries(rows, params.get("countrySet"), params.get("language"))
    tomtom = caller.tomtom
    if len(queries) <= SYNC_MAX_ITEMS:
        raw = await tomtom.batch_search_raw(queries, key=caller.key)
        return await _deliver(caller, raw, plan, rows, show_ui, None)
    if len(queries) > ASYNC_MAX_ITEMS:
        raise ToolError(f"{len(queries):,} addresses; one batch takes at most {ASYNC_MAX_ITEMS:,}.")
    if len(plan.empty) > MAX_EMPTY_ROWS:
        shown = ", ".join(str(r) for r in plan.empty[:8])
        raise ToolError(
            f"{len(plan.empty)} rows are empty (rows {shown}, ...); a batch of more than "
            f"{SYNC_MAX_ITEMS} rows may have at most {MAX_EMPTY_ROWS}: remove them or fill "
            "them in."
        )
    submitted = await tomtom.batch_submit(queries, key=caller.key)
    if submitted.result is not None or submitted.batch_id is None:  # answered at once
        assert submitted.result is not None
        return await _deliver(caller, submitted.result, plan, rows, show_ui, None)
    text, handle = issue(caller, KIND, submitted.batch_id, RETENTION_S, plan_bytes(plan))
    return await resume(caller, text, handle, show_ui, hold_s=float("inf"), inputs=rows)


async def resume(
    caller: Caller,
    text: str,
    handle: Handle,
    show_ui: bool,
    *,
    hold_s: float,
    inputs: list[str] | None = None,
) -> CallToolResult:
    """The batch's answer once TomTom is done, waiting for it at most `hold_s` seconds
    of this call (and never into the time its answer takes to build); else its state."""
    plan = plan_of(handle.plan)
    raw = await _download(caller, handle, time.monotonic() + hold_s)
    if raw is None:
        return _running(caller, text, handle, plan, show_ui)
    job = {"handle": text, "kind": KIND, "rows": plan.rows, "submitted": handle.issued}
    return await _deliver(caller, raw, plan, inputs, show_ui, job)


async def page(caller: Caller, handle: Handle, start: int, stop: int) -> CallToolResult:
    """Rows `start + 1` to `stop` of a finished batch, for the view."""
    plan = plan_of(handle.plan)
    if not 0 <= start < stop <= plan.rows:
        raise ToolError(f"page: rows {start}-{stop} lie outside the batch's {plan.rows:,} rows.")
    raw = await _download(caller, handle, time.monotonic() + 10.0)
    if raw is None:
        raise ToolError("page: TomTom has not finished this batch yet; ask for its state first.")
    runtime = caller.runtime
    job = Job(
        tool=BATCH_GEOCODE,
        func=jobs.batch_page,
        args=(raw, plan, start, stop),
        size=runtime.placement.for_bodies([raw]),
        offline=caller.offline,
    )
    return await deliver_job(runtime, job)


async def _download(caller: Caller, handle: Handle, until: float) -> RawBody | None:
    """TomTom's answer to the batch, long-polled while it is not done and time is left
    (asked once at least, with the shortest wait, when the call has that long)."""
    settings = caller.runtime.settings
    scope = call_scope.current(settings.call_deadline_s)
    asked_once = False
    while True:
        left = min(until - time.monotonic(), scope.remaining - BUILD_MARGIN_S)
        wait = wait_seconds(settings.upstream_timeout_s, left)
        if wait is None and not asked_once:
            wait = wait_seconds(settings.upstream_timeout_s, scope.remaining)
            wait = min(wait, WAIT_SECONDS[0]) if wait is not None else None
        if wait is None:
            return None
        asked_once = True
        asked = time.monotonic()
        try:
            raw = await caller.tomtom.batch_download(handle.ref, key=caller.key, wait_s=wait)
        except BadRequestError as exc:
            if exc.status == 404:
                raise ToolError(
                    "job: TomTom no longer holds this batch (it keeps a batch's results 14 "
                    "days; a demo upstream keeps them in one process): run "
                    f"{BATCH_GEOCODE} again."
                ) from None
            raise
        if raw is not None:
            return raw
        await asyncio.sleep(max(0.0, MIN_POLL_S - (time.monotonic() - asked)))


def _running(
    caller: Caller, text: str, handle: Handle, plan: jobs.RowsPlan, show_ui: bool
) -> CallToolResult:
    working = max(0, round(time.time() - handle.issued))
    answer: dict[str, Any] = {
        "job": text,
        "state": "running",
        "rows": plan.rows,
        "tomtom_working_s": working,
        "next": (
            f"TomTom is still geocoding: call {JOB_RESULT} with this job in about 30 s "
            "(the map shows the rows as soon as TomTom is done)"
        ),
        "show_ui": show_ui,
    }
    meta = jobs.base_meta(BATCH_GEOCODE, show_ui)
    if show_ui:
        answer["tool"] = BATCH_GEOCODE
    meta[jobs.JOB_KEY] = {
        "handle": text,
        "kind": KIND,
        "state": "running",
        "rows": plan.rows,
        "submitted": handle.issued,
    }
    return jobs.Prepared(answer, meta, "none").result(offline=caller.offline)


async def _deliver(
    caller: Caller,
    raw: RawBody,
    plan: jobs.RowsPlan,
    inputs: list[str] | None,
    show_ui: bool,
    job: dict[str, Any] | None,
) -> CallToolResult:
    runtime = caller.runtime
    settings = runtime.settings
    work = Job(
        tool=BATCH_GEOCODE,
        func=jobs.batch_result,
        args=(raw, plan, inputs, show_ui, settings.budget, settings.page_chars, job),
        size=runtime.placement.for_bodies([raw]),
        offline=caller.offline,
    )
    return await deliver_job(runtime, work)
