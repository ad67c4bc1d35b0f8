"""The data-viz job, run by `tomtom-data-viz` and by the view's `tomtom-get-app-data`.

Both take the same input (`_inputs.DataVizArgs`) and run the same job over the
caller's GeoJSON, downloaded or inline; the view's call pages the result.
Parsing, validation and encoding are `server.jobs`' (`_data_viz.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from mcp_types import CallToolResult

from server.downloads import download
from server.jobs import Prepared
from server.runtime import Runtime
from server.tools._delivery import deliver_job
from server.tools._inputs import DataVizArgs


async def geojson_text(runtime: Runtime, args: DataVizArgs) -> tuple[str, bytes]:
    """("data_url" or "inline", the GeoJSON as JSON text): downloaded, or the inline value
    written back to text, so that it crosses to a fitting worker as bytes."""
    if args.data_url is not None:
        return "data_url", await download(runtime.downloads, args.data_url, runtime.settings)
    return "inline", orjson.dumps(args.geojson)


async def deliver_data_viz(
    runtime: Runtime, tool: str, args: DataVizArgs, job: Callable[..., Prepared], *extra: Any
) -> CallToolResult:
    """`job` (`jobs.data_viz` or `jobs.data_viz_page`) over the data of `args`, in a fitting
    worker when the GeoJSON is large."""
    source, text = await geojson_text(runtime, args)
    layers = [layer.model_dump(exclude_none=True) for layer in args.layers or ()] or None
    return await deliver_job(
        runtime,
        tool,
        runtime.placement.for_bytes(len(text)),
        job,
        source,
        text,
        layers,
        args.title,
        *extra,
        runtime.settings.budget,
        offline=False,  # the caller's own data: never TomTom's, never offline demo data
    )
