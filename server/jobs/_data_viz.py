"""Data-viz results from the caller's GeoJSON bytes: parse, validate, summarise, encode.

Parsing and validating a large dataset costs tens of milliseconds, and
`tomtom-data-viz` and each page a widget fetches with `tomtom-get-app-data` do it
again (docs/architecture.md: data-viz is fetched by running it again). Here it
runs where `server.pool.Placement` puts it, in a fitting worker for large data,
so the event loop only downloads the bytes and sends the finished result. Pure
and picklable; no MCP server code.
"""

from __future__ import annotations

from typing import Any

import orjson

import fitting
from server.errors import GeoJsonError, JobError
from server.jobs._geojson import Summary, validate_geojson
from server.jobs._result import APP_DATA_KEY, Prepared, call_tool_result, prepare, wire_size
from server.ops import tracing
from server.tool_names import DATA_VIZ

_DEFAULT_LAYER = {
    "Point": "circle",
    "MultiPoint": "circle",
    "LineString": "line",
    "MultiLineString": "line",
    "Polygon": "fill",
    "MultiPolygon": "fill",
}


def answer_and_data(
    source: str, geojson: bytes, layers: list[dict[str, Any]] | None, title: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(answer for the model, `data` for the widget) from the GeoJSON text, unaltered.

    `source` is "data_url" or "inline"; `layers` are the caller's, already validated,
    or None for one default layer per kind of geometry."""
    try:
        with tracing.span("decode", attributes={"job.decoded_bytes": len(geojson)}):
            parsed = orjson.loads(geojson)
    except orjson.JSONDecodeError as exc:
        said = "data_url did not return" if source == "data_url" else "geojson is not"
        raise JobError(f"{said} JSON: {exc}") from None
    try:
        summary = validate_geojson(parsed)
    except GeoJsonError as exc:
        raise JobError(f"The GeoJSON is malformed at {exc}") from None
    layers = layers or _default_layers(summary)
    answer: dict[str, Any] = {"source": source, **summary.as_answer(), "layers": len(layers)}
    if title:
        answer["title"] = title
    return answer, {"geojson": parsed, "layers": layers, "title": title or ""}


def data_viz(
    source: str,
    geojson: bytes,
    layers: list[dict[str, Any]] | None,
    title: str | None,
    show_ui: bool,
    budget: int,
) -> Prepared:
    """The `tomtom-data-viz` result: the data inline when it fits, else omitted (too large)
    and fetched by the widget page by page."""
    answer, data = answer_and_data(source, geojson, layers, title)
    return prepare(DATA_VIZ, answer, data, show_ui, budget)


def data_viz_page(
    source: str,
    geojson: bytes,
    layers: list[dict[str, Any]] | None,
    title: str | None,
    offset: int,
    budget: int,
) -> Prepared:
    """The `tomtom-get-app-data` result: the encoded envelope from `offset`, as much as
    the budget holds, with `total` and `has_more` for the widget to page."""
    _, data = answer_and_data(source, geojson, layers, title)
    try:  # unbounded: data-viz data is never altered, the widget pages through it
        full = fitting.fit(fitting.envelope(DATA_VIZ, data), 1 << 62).app_data
    except fitting.FittingError as exc:
        raise JobError(f"the data cannot be encoded: {exc}") from None
    if not 0 <= offset < max(len(full), 1):
        raise JobError(f"offset {offset} is outside the app data (0 to {len(full) - 1})")
    text = {"tool": DATA_VIZ, "offset": offset, "total": len(full)}
    # "has_more": false is the longer spelling, so the chunk's room is measured with it.
    meta: dict[str, Any] = {**text, "has_more": False}
    room = budget - wire_size(call_tool_result(text, {**meta, APP_DATA_KEY: ""}))
    chunk = full[offset : offset + room]
    meta.update({APP_DATA_KEY: chunk, "has_more": offset + len(chunk) < len(full)})
    return Prepared(text, meta, "page", budget=room)


def _default_layers(summary: Summary) -> list[dict[str, Any]]:
    kinds = dict.fromkeys(_DEFAULT_LAYER[t] for t in summary.geometry_types if t in _DEFAULT_LAYER)
    return [{"type": kind} for kind in kinds or ("circle",)]
