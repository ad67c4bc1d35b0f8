"""Data-viz results from the caller's GeoJSON bytes: read, validate, summarise, send.

The data is never altered. A small dataset goes inline in the tool result
(envelope v2, the GeoJSON as parsed); a larger one is read with its
coordinates straight into arrays (`server.bodies.read_geojson`), checked
(`check_arrays`, or `validate_geojson` to name a fault) and planned in
pages of features that the view fetches with `tomtom-get-app-data`
(`_pages.py`, docs/result.md): `data_viz_plan` gives a view the plan it lacks,
`data_viz_features` one page. Each runs where `server.pool.Placement` puts it,
in a fitting worker for large data, so the event loop only downloads the
bytes and sends the finished result. Pure and picklable; no MCP server code.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.server.bodies import read_features, read_geojson
from tomtom_mcp_apps.server.errors import GeoJsonError, JobError
from tomtom_mcp_apps.server.jobs._geojson import (
    Summary,
    check_arrays,
    check_features,
    validate_geojson,
)
from tomtom_mcp_apps.server.jobs._pages import (
    PAGES_KEY,
    Features,
    byte_spans,
    checksum,
    digest,
    page_result,
    plan,
    room,
)
from tomtom_mcp_apps.server.jobs._result import (
    OMITTED_KEY,
    Prepared,
    base_meta,
    prepare,
)
from tomtom_mcp_apps.server.ops import tracing
from tomtom_mcp_apps.server.ops.heap import collector_paused
from tomtom_mcp_apps.server.tool_names import DATA_VIZ

_DEFAULT_LAYER = {
    "Point": "circle",
    "MultiPoint": "circle",
    "LineString": "line",
    "MultiLineString": "line",
    "Polygon": "fill",
    "MultiPolygon": "fill",
}
INLINE_BYTES_PER_CHAR = 8
"""Data up to this many bytes per character of the budget is tried inline (as before):
larger GeoJSON would have to deflate better than 10:1 to fit, and goes straight to pages."""


def answer_and_data(
    source: str, geojson: bytes, layers: list[dict[str, Any]] | None, title: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(answer for the model, `data` for the widget) from the GeoJSON text, unaltered.

    `source` is "data_url" or "inline"; `layers` are the caller's, already validated,
    or None for one default layer per kind of geometry."""
    with collector_paused():
        parsed = _loads(source, geojson)
        summary = _validated(parsed)
    layers = layers or _default_layers(summary)
    return _answer(source, summary, layers, title), {
        "geojson": parsed,
        "layers": layers,
        "title": title or "",
    }


def data_viz(
    source: str,
    geojson: bytes,
    layers: list[dict[str, Any]] | None,
    title: str | None,
    show_ui: bool,
    budget: int,
    page_chars: int,
) -> Prepared:
    """The `tomtom-data-viz` result: the data inline when it fits, else the page plan the
    view fetches it by (in `_meta`, `PAGES_KEY`)."""
    if show_ui and len(geojson) <= INLINE_BYTES_PER_CHAR * budget:
        answer, data = answer_and_data(source, geojson, layers, title)
        inline = prepare(DATA_VIZ, answer, data, show_ui, budget)
        if inline.outcome != "omitted_too_large":
            return inline
        with collector_paused():
            features = Features(_as_features(data["geojson"]), None, None, None)
            return _paged(source, answer, features, data["layers"], title, page_chars, geojson)
    with collector_paused():  # the read and the plan make an object per feature, or more
        summary, features = _read(source, geojson)
        layers = layers or _default_layers(summary)
        answer = _answer(source, summary, layers, title)
        if not show_ui:
            return prepare(DATA_VIZ, answer, None, show_ui, budget)
        return _paged(source, answer, features, layers, title, page_chars, geojson)


def data_viz_plan(
    source: str,
    geojson: bytes,
    layers: list[dict[str, Any]] | None,
    title: str | None,
    page_chars: int,
) -> Prepared:
    """The page plan alone, for a view whose tool result lost it (`tomtom-get-app-data`
    with `plan`): what `data_viz` gives in `_meta`, whatever the data's size."""
    with collector_paused():
        summary, features = _read(source, geojson)
        layers = layers or _default_layers(summary)
        pages = _plan(source, features, layers, title, summary.bbox, page_chars, geojson)
    count = len(pages["bounds"]) - 1
    text = {"tool": DATA_VIZ, "features": len(features), "pages": count}
    meta = {"tool": DATA_VIZ, PAGES_KEY: pages}
    return Prepared(text, meta, "plan", detail=f"{len(features):,} features in {count} pages")


def data_viz_features(
    source: str, geojson: bytes, start: int, stop: int, expected: str, page_chars: int
) -> Prepared:
    """The page of features `start` to `stop` (excluded) of a plan whose data had digest
    `expected` (`tomtom-get-app-data` with `page`); read no further than the page's end."""
    found = digest(geojson)
    if found != expected:
        said = "the file at data_url" if source == "data_url" else "the geojson"
        raise JobError(
            f"{said} changed since the map's pages were planned (digest {found}, not "
            f"{expected}): run tomtom-data-viz again for the map of the new data."
        )
    _check_range(start, stop)
    with collector_paused():
        features = _page(source, geojson, start, stop)
    return _page_prepared(features, start, stop, found, page_chars)


def data_viz_part_features(
    part: bytes, low: int, crc32: str, start: int, stop: int, expected: str, page_chars: int
) -> Prepared:
    """The page of features `start` to `stop` from `part`, bytes `low` onwards of the file at
    `data_url` (its span in the plan of data with digest `expected`, checksum `crc32`):
    refused when they do not checksum, or do not hold exactly the page's features."""
    high = low + len(part)
    found = checksum(part)
    if found != crc32:
        raise JobError(
            f"the file at data_url changed since the map's pages were planned (bytes {low:,} "
            f"to {high:,} have checksum {found}, not {crc32}): run tomtom-data-viz again for "
            "the map of the new data."
        )
    _check_range(start, stop)
    with collector_paused():
        features = _part(part, low, start, stop)
    return _page_prepared(features, start, stop, expected, page_chars)


def _check_range(start: int, stop: int) -> None:
    if not 0 <= start < stop:
        raise JobError(f"a page runs from a feature to a later one, not {start} to {stop}")


def _page_prepared(
    features: Features, start: int, stop: int, data_digest: str, page_chars: int
) -> Prepared:
    """The result carrying features `start` to `stop`, encoded as a v3 member."""
    with collector_paused(), tracing.span("encode", attributes={"page.features": stop - start}):
        text = features.member(start, stop).text()
    said, meta = page_result(text, start, stop, data_digest)
    return Prepared(
        said,
        meta,
        "page",
        budget=room(page_chars, stop, data_digest),
        detail=f"features {start:,} to {stop:,}",
    )


# --- reading ---------------------------------------------------------------------------------


def _read(source: str, geojson: bytes) -> tuple[Summary, Features]:
    """The whole document checked and summarised, its features ready for pages: read with
    its coordinates as arrays when it can be, the ordinary way otherwise (which also names
    any fault). Call it with the collector paused."""
    with tracing.span("decode", attributes={"job.decoded_bytes": len(geojson)}):
        doc = read_geojson(geojson)
    checked = check_arrays(doc) if doc is not None else None
    if doc is None or checked is None:
        parsed = _loads(source, geojson)
        return _validated(parsed), Features(_as_features(parsed), None, None, None)
    root = doc.document
    scan = doc.scan
    summary = checked.summary
    if root.get("type") == "FeatureCollection" and len(scan.feature_starts) == summary.features:
        spans = np.column_stack((scan.feature_starts, scan.feature_ends))
        return summary, Features(root["features"], doc, spans, checked.geometries)
    return summary, Features(_as_features(root), doc, None, checked.geometries)


def _page(source: str, geojson: bytes, start: int, stop: int) -> Features:
    """Features `start` to `stop` read only that far when they can be; else the whole
    document, checked (a fault is named as `tomtom-data-viz` names it)."""
    doc = read_features(geojson, start, stop)
    checked = check_features(doc) if doc is not None else None
    if doc is not None and checked is not None:
        scan = doc.scan
        spans = np.column_stack((scan.feature_starts[start:stop], scan.feature_ends[start:stop]))
        return Features(doc.document, doc, spans, checked.geometries, start)
    _, whole = _read(source, geojson)
    if stop > len(whole):
        raise JobError(
            f"the data holds {len(whole):,} features: features {start:,} to {stop:,} are not "
            "all in it. Run tomtom-data-viz again."
        )
    return whole


_PART_HEAD = b'{"type":"FeatureCollection","features":['
_PART_TAIL = b"]}"


def _part(part: bytes, low: int, start: int, stop: int) -> Features:
    """Features `start` to `stop` from `part`, the bytes of exactly those features (with the
    commas between them) as the file holds them: read as a collection of its own."""
    wanted = stop - start
    whole = _PART_HEAD + part + _PART_TAIL
    doc = read_features(whole, 0, wanted)
    checked = check_features(doc) if doc is not None else None
    if doc is not None and checked is not None:
        scan = doc.scan
        starts, ends = scan.feature_starts[:wanted], scan.feature_ends[:wanted]
        if starts[0] == len(_PART_HEAD) and ends[-1] == len(_PART_HEAD) + len(part):
            spans = np.column_stack((starts, ends))
            return Features(doc.document, doc, spans, checked.geometries, start)
    try:
        _, read = _read("data_url", whole)
    except JobError as exc:
        raise JobError(
            f"bytes {low:,} to {low + len(part):,} of data_url are not features {start:,} to "
            f"{stop:,} of the plan ({exc}): run tomtom-data-viz again."
        ) from None
    if len(read) != wanted:
        raise JobError(
            f"bytes {low:,} to {low + len(part):,} of data_url hold {len(read):,} features, "
            f"not the page's {wanted:,} ({start:,} to {stop:,}): run tomtom-data-viz again."
        )
    return dataclasses.replace(read, first=start)


def _loads(source: str, geojson: bytes) -> Any:
    try:
        with tracing.span("decode", attributes={"job.decoded_bytes": len(geojson)}):
            return orjson.loads(geojson)
    except orjson.JSONDecodeError as exc:
        said = "data_url did not return" if source == "data_url" else "geojson is not"
        raise JobError(f"{said} JSON: {exc}") from None


def _validated(parsed: Any) -> Summary:
    try:
        return validate_geojson(parsed)
    except GeoJsonError as exc:
        raise JobError(f"The GeoJSON is malformed at {exc}") from None


def _as_features(root: dict[str, Any]) -> list[Any]:
    """The features a view draws of a valid root: a FeatureCollection's, or the root as one
    (a bare geometry in a Feature without properties, as the view wraps it)."""
    kind = root.get("type")
    if kind == "FeatureCollection":
        return list(root["features"])
    if kind == "Feature":
        return [root]
    return [{"type": "Feature", "properties": {}, "geometry": root}]


# --- the result ------------------------------------------------------------------------------


def _answer(
    source: str, summary: Summary, layers: list[dict[str, Any]], title: str | None
) -> dict[str, Any]:
    answer: dict[str, Any] = {"source": source, **summary.as_answer(), "layers": len(layers)}
    if title:
        answer["title"] = title
    return answer


def _plan(
    source: str,
    features: Features,
    layers: list[dict[str, Any]],
    title: str | None,
    bbox: list[float] | None,
    page_chars: int,
    geojson: bytes,
) -> dict[str, Any]:
    """The page plan the view fetches by (`PAGES_KEY`), with the data's extent (its camera
    before the pages are in) and, for a `data_url`, each page's bytes in the file."""
    found = digest(geojson)
    with tracing.span("plan", attributes={"plan.features": len(features)}):
        bounds = plan(features, room(page_chars, len(features), found))
    pages: dict[str, Any] = {
        "features": len(features),
        "bounds": bounds,
        "digest": found,
        "layers": layers,
        "title": title or "",
        "bbox": bbox,
    }
    spans = byte_spans(features, bounds) if source == "data_url" else None
    if spans is not None:
        pages["spans"] = spans
    return pages


def _paged(
    source: str,
    answer: dict[str, Any],
    features: Features,
    layers: list[dict[str, Any]],
    title: str | None,
    page_chars: int,
    geojson: bytes,
) -> Prepared:
    """The result of data too large for it: the answer, and the plan the view pages by."""
    pages = _plan(source, features, layers, title, answer["bbox"], page_chars, geojson)
    count = len(pages["bounds"]) - 1
    detail = f"{len(features):,} features in {count} pages of at most {page_chars:,} characters"
    text = {
        **answer,
        "show_ui": True,
        "tool": DATA_VIZ,
        "map": f"sent to the view in {count} pages (too large for one result)",
    }
    meta = {
        **base_meta(DATA_VIZ, True),
        OMITTED_KEY: f"too_large: {detail}",  # the previous release's views page on this
        PAGES_KEY: pages,
    }
    return Prepared(text, meta, "paged", detail=detail)


def _default_layers(summary: Summary) -> list[dict[str, Any]]:
    kinds = dict.fromkeys(_DEFAULT_LAYER[t] for t in summary.geometry_types if t in _DEFAULT_LAYER)
    return [{"type": kind} for kind in kinds or ("circle",)]
