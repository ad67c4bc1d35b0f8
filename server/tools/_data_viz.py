"""The data-viz jobs, run by `tomtom-data-viz` and by the view's `tomtom-get-app-data`.

Both take the same input (`_inputs.DataVizArgs`) over the caller's GeoJSON,
downloaded or inline: `tomtom-data-viz` makes the result (inline, or the page
plan), the view's call makes the plan again or one page of features. Reading, validation
and encoding are `server.jobs`' (`_data_viz.py`, `_pages.py`).
"""

from __future__ import annotations

from typing import Any

import orjson
from mcp_types import CallToolResult

from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.downloads import Part, download, download_span
from tomtom_mcp_apps.server.runtime import Runtime
from tomtom_mcp_apps.server.tool_names import DATA_VIZ
from tomtom_mcp_apps.server.tools._delivery import Job, deliver_job
from tomtom_mcp_apps.server.tools._inputs import ByteSpan, DataVizArgs


async def _geojson_text(runtime: Runtime, args: DataVizArgs) -> tuple[str, bytes]:
    """("data_url" or "inline", the GeoJSON as JSON text): downloaded, or the inline value
    written back to text, so that it crosses to a fitting worker as bytes."""
    if args.data_url is not None:
        body = await download(runtime.downloads, args.data_url, runtime.settings, runtime.placement)
        return "data_url", body
    return "inline", orjson.dumps(args.geojson)


async def deliver_data_viz(runtime: Runtime, args: DataVizArgs, show_ui: bool) -> CallToolResult:
    """`tomtom-data-viz`'s result for `args`: `jobs.data_viz`, in a fitting worker when the
    GeoJSON is large."""
    settings = runtime.settings
    source, text, layers = await _input(runtime, args)
    job = Job(
        tool=DATA_VIZ,
        func=jobs.data_viz,
        args=(source, text, layers, args.title, show_ui, settings.budget, settings.page_chars),
        size=runtime.placement.for_bytes(len(text)),
        offline=False,  # the caller's own data: never TomTom's, never offline demo data
    )
    return await deliver_job(runtime, job)


async def deliver_data_viz_plan(runtime: Runtime, args: DataVizArgs) -> CallToolResult:
    """The page plan of the data-viz for `args` (the view's `tomtom-get-app-data` with
    `plan`): `jobs.data_viz_plan`, placed like the whole."""
    source, text, layers = await _input(runtime, args)
    job = Job(
        tool=DATA_VIZ,
        func=jobs.data_viz_plan,
        args=(source, text, layers, args.title, runtime.settings.page_chars),
        size=runtime.placement.for_bytes(len(text)),
        offline=False,
    )
    return await deliver_job(runtime, job)


async def deliver_data_viz_features(
    runtime: Runtime,
    args: DataVizArgs,
    start: int,
    stop: int,
    digest: str,
    span: ByteSpan | None = None,
) -> CallToolResult:
    """Features `start` to `stop` of the data-viz for `args`, as planned for data of `digest`
    (the view's `tomtom-get-app-data` with `page`): `jobs.data_viz_part_features` from the
    page's bytes alone when `span` names them and the host answers `Range`, else
    `jobs.data_viz_features` from the whole file."""
    page_chars = runtime.settings.page_chars
    total = jobs.file_length(digest)
    if args.data_url is not None and span is not None and total is not None:
        got = await download_span(
            runtime.downloads,
            args.data_url,
            runtime.settings,
            runtime.placement,
            (span.start, span.stop),
            total,
        )
        if isinstance(got, Part):
            job = Job(
                tool=DATA_VIZ,
                func=jobs.data_viz_part_features,
                args=(got.body, got.start, span.crc32, start, stop, digest, page_chars),
                size=runtime.placement.for_bytes(len(got.body)),
                offline=False,
            )
            return await deliver_job(runtime, job)
        source, text = "data_url", got
    else:
        source, text = await _geojson_text(runtime, args)
    job = Job(
        tool=DATA_VIZ,
        func=jobs.data_viz_features,
        args=(source, text, start, stop, digest, page_chars),
        size=runtime.placement.for_bytes(len(text)),
        offline=False,
    )
    return await deliver_job(runtime, job)


async def _input(
    runtime: Runtime, args: DataVizArgs
) -> tuple[str, bytes, list[dict[str, Any]] | None]:
    """The job's input: where the GeoJSON came from, its text, and the layers as dicts."""
    source, text = await _geojson_text(runtime, args)
    layers = [layer.model_dump(exclude_none=True) for layer in args.layers or ()] or None
    return source, text, layers
