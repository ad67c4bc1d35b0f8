"""Long TomTom jobs resumed on any replica: `tomtom-job-result` (the model) and
`tomtom-resume-job` (a view).

Both take the job handle a tool answered with (`_long_jobs.py`: sealed, bound to the
key and user that started the job), open it, and hand it to its kind: the result once
TomTom is done, else the job's state. The model's call waits longer for TomTom
(`MODEL_HOLD_S`) than a view's (`VIEW_HOLD_S`), which polls again at once and draws the
moment the job is done; a view also asks for pages of a finished result. A kind plugs
in with a row in `RESUMERS` (and in `PAGES` when its view pages through results).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from tomtom_mcp_apps.server.tools import _batch_geocode
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._inputs import JobHandle, RowsPage, ShowUi
from tomtom_mcp_apps.server.tools._long_jobs import Handle, resumable

MODEL_HOLD_S = 40.0
"""Seconds `tomtom-job-result` waits for TomTom before answering that the job runs on."""
VIEW_HOLD_S = 20.0
"""Seconds `tomtom-resume-job` waits: a view asks again at once, so it draws soon after
TomTom is done without any call running long."""

Resume = Callable[[Caller, str, Handle, bool, float], Awaitable[CallToolResult]]
Page = Callable[[Caller, Handle, int, int], Awaitable[CallToolResult]]


async def _resume_batch(
    caller: Caller, text: str, handle: Handle, show_ui: bool, hold_s: float
) -> CallToolResult:
    return await _batch_geocode.resume(caller, text, handle, show_ui, hold_s=hold_s)


RESUMERS: dict[str, Resume] = {_batch_geocode.KIND: _resume_batch}
"""Each kind of job, and what resumes it: its result once done, else its state."""
PAGES: dict[str, Page] = {_batch_geocode.KIND: _batch_geocode.page}
"""Kinds whose views fetch a finished result in pages, and what makes a page."""


async def job_result(ctx: Context, job: JobHandle, show_ui: ShowUi = True) -> CallToolResult:
    caller = Caller.of(ctx)
    handle = resumable(caller, job, tuple(RESUMERS))
    return await RESUMERS[handle.kind](caller, job, handle, show_ui, MODEL_HOLD_S)


async def resume_job(
    ctx: Context,
    job: JobHandle,
    page: Annotated[
        RowsPage | None,
        Field(description="The rows to answer with, from the result's page plan"),
    ] = None,
) -> CallToolResult:
    caller = Caller.of(ctx)
    handle = resumable(caller, job, tuple(RESUMERS))
    if page is None:
        return await RESUMERS[handle.kind](caller, job, handle, True, VIEW_HOLD_S)
    pages = PAGES.get(handle.kind)
    if pages is None:
        raise ToolError(f"page: a {handle.kind} job's result has no pages.")
    return await pages(caller, handle, page.start, page.stop)
