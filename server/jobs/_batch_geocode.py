"""Batch geocoding results from TomTom's Batch Search answer, as received.

Every input row comes back, in input order, as one of:

- `M` matched: a result TomTom is confident of;
- `L` low confidence: one result, of a confidence below `LOW_CONFIDENCE`;
- `A` ambiguous: several results about as likely as the best (within `AMBIGUITY_GAP`
  of its confidence): the top candidates are kept;
- `U` unmatched: no result, or an item TomTom refused (its reason kept);
- `E` empty: a row with no text, never sent (nothing to bill).

The model reads counts and the rows that need a person (bounded); the view gets every
located row's position as one run of varints (`fitting.point_run`), each row's quality
and confidence, inline while they fit the budget, and the rest, with each row's address
and candidates, in pages the view asks for (`tomtom-resume-job`), each made again from
TomTom's answer, which TomTom keeps 14 days (docs/result.md). Pure; no I/O.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.bodies import RawBody, loads, number, obj, text
from tomtom_mcp_apps.server.errors import BadAnswer
from tomtom_mcp_apps.server.jobs._pages import page_bounds
from tomtom_mcp_apps.server.jobs._result import (
    APP_DATA_KEY,
    OMITTED_KEY,
    Prepared,
    base_meta,
    call_tool_result,
    wire_size,
)
from tomtom_mcp_apps.server.tool_names import BATCH_GEOCODE

LOW_CONFIDENCE = 0.7
"""A single result below this confidence needs a person to look at it."""
AMBIGUITY_GAP = 0.15
"""Results within this much confidence of the best make a row ambiguous."""
SCORE_RATIO = 0.9
"""Without confidences: results scoring within this share of the best are ambiguous."""
CANDIDATES = 3
"""Candidates kept for an ambiguous row (and results asked of TomTom per row)."""
ATTENTION_ROWS = 25
"""Rows needing a person that the model reads by name; the count says how many more."""
INPUT_CHARS = 80
"""An input text quoted to the model is cut at this many characters."""
JOB_KEY = "com.tomtom/job"
"""`_meta` key of a long job's state for the view: {"handle", "state", "kind", ...}."""
BATCH_PAGE_KEY = "com.tomtom/batch-page"
"""`_meta` key of a page of rows: {"from", "to", "rows"}."""
QUALITIES = "MLAUE"


@dataclass(frozen=True)
class RowsPlan:
    """Which input row each batch item is: `rows` rows in all, of which `empty` (row
    numbers, 1-based) were not sent; items follow the other rows in order."""

    rows: int
    empty: tuple[int, ...] = ()

    def rows_of_items(self) -> np.ndarray:
        """The row number (1-based) of each batch item."""
        mask = np.ones(self.rows + 1, dtype=bool)
        mask[0] = False
        mask[list(self.empty)] = False
        return np.flatnonzero(mask)

    @property
    def items(self) -> int:
        return self.rows - len(self.empty)


@dataclass
class Rows:
    """Every row, columnar: quality code, position (NaN when none), confidence (NaN when
    TomTom gave none), and each row's details as the view lists them."""

    quality: list[str]
    lonlat: np.ndarray
    confidence: np.ndarray
    details: list[dict[str, Any]]
    malformed: int = 0

    def counts(self) -> dict[str, int]:
        names = {"M": "matched", "L": "low_confidence", "A": "ambiguous", "U": "unmatched"}
        found = {name: 0 for name in names.values()}
        for q in self.quality:
            if q in names:
                found[names[q]] += 1
            else:
                found["empty"] = found.get("empty", 0) + 1
        return found


def read_rows(raw: RawBody, plan: RowsPlan, inputs: list[str] | None) -> Rows:
    """The rows of TomTom's batch answer (`batchItems` in the queries' order) placed at
    their input rows; `inputs` are the rows' texts when known (the call that sent them),
    else TomTom's reading of each query (`summary.query`) stands in."""
    body = loads(raw)
    items = body.get("batchItems")
    if not isinstance(items, list):
        raise BadAnswer("batchItems", "expected a list")
    if len(items) != plan.items:
        raise BadAnswer(
            "batchItems", f"expected {plan.items} items, one per query sent, got {len(items)}"
        )
    n = plan.rows
    quality = ["E"] * n
    lonlat = np.full((n, 2), np.nan)
    confidence = np.full(n, np.nan)
    details: list[dict[str, Any]] = [{} for _ in range(n)]
    malformed = 0
    for row in plan.empty:
        details[row - 1] = {"row": row, "q": "E", "why": "the row is empty"}
        if inputs is not None:
            details[row - 1]["input"] = inputs[row - 1]
    for item, row in zip(items, plan.rows_of_items().tolist(), strict=True):
        i = row - 1
        given = inputs[i] if inputs is not None else None
        detail, code, at, conf, bad = _row(item, row, given)
        malformed += bad
        quality[i], details[i] = code, detail
        if at is not None:
            lonlat[i] = at
        if conf is not None:
            confidence[i] = conf
    return Rows(quality, lonlat, confidence, details, malformed)


def _row(
    item: Any, row: int, given: str | None
) -> tuple[dict[str, Any], str, tuple[float, float] | None, float | None, int]:
    """(details, quality, position, confidence, malformed: 0 or 1) of one batch item."""
    item = obj(item)
    response = obj(item.get("response"))
    status = item.get("statusCode")
    summary = obj(response.get("summary"))
    said = given if given is not None else text(summary.get("query"))
    detail: dict[str, Any] = {"row": row}
    if said is not None:
        detail["input"] = said
    if not isinstance(status, int) or isinstance(status, bool):
        detail.update(q="U", why="TomTom's answer for this row is malformed")
        return detail, "U", None, None, 1
    if status != 200:
        why = text(response.get("errorText")) or text(response.get("message")) or "no reason"
        detail.update(q="U", why=f"TomTom refused it (HTTP {status}): {why}")
        return detail, "U", None, None, 0
    results = response.get("results")
    if not isinstance(results, list):
        detail.update(q="U", why="TomTom's answer for this row is malformed")
        return detail, "U", None, None, 1
    found = [r for r in (_result(r) for r in results) if r is not None]
    bad = int(len(found) < len(results))
    if not found:
        detail.update(q="U", why="no match")
        return detail, "U", None, None, bad
    best = found[0]
    code = _quality(found)
    detail.update(
        q=code,
        address=best["address"],
        match=best["match"],
        position=best["position"],
    )
    if best["confidence"] is not None:
        detail["confidence"] = best["confidence"]
    if code == "A":
        detail["candidates"] = [
            {k: c[k] for k in ("address", "position", "confidence") if c[k] is not None}
            for c in found[:CANDIDATES]
        ]
    return detail, code, best["position"], best["confidence"], bad


def _result(result: Any) -> dict[str, Any] | None:
    """A search result's address, match type, position, confidence and score, or None
    when it has no usable position (a malformed entry, dropped and counted)."""
    result = obj(result)
    position = obj(result.get("position"))
    lon, lat = number(position.get("lon")), number(position.get("lat"))
    if lon is None or lat is None or not (-180 <= lon <= 180 and -90 <= lat <= 90):
        return None
    address = obj(result.get("address"))
    said = text(address.get("freeformAddress"))
    confidence = number(obj(result.get("matchConfidence")).get("score"))
    if confidence is not None:
        confidence = round(min(1.0, max(0.0, confidence)), 3)
    return {
        "address": said or text(obj(result.get("poi")).get("name")) or "",
        "match": text(result.get("type")) or "",
        "position": [round(lon, 5), round(lat, 5)],
        "confidence": confidence,
        "score": number(result.get("score")),
    }


def _quality(found: list[dict[str, Any]]) -> str:
    best = found[0]
    second = found[1] if len(found) > 1 else None
    if best["confidence"] is not None:
        close = second is not None and second["confidence"] is not None
        if close and second["confidence"] >= best["confidence"] - AMBIGUITY_GAP:
            return "A"
        return "L" if best["confidence"] < LOW_CONFIDENCE else "M"
    scored = second is not None and best["score"] and second["score"] is not None
    return "A" if scored and second["score"] >= SCORE_RATIO * best["score"] else "M"


def attention(rows: Rows, limit: int = ATTENTION_ROWS) -> list[dict[str, Any]]:
    """The first `limit` rows a person should look at, in input order, in words."""
    said = []
    for q, detail in zip(rows.quality, rows.details, strict=True):
        if q == "M":
            continue
        entry: dict[str, Any] = {"row": detail["row"]}
        if "input" in detail:
            entry["input"] = _cut(detail["input"])
        if q == "A":
            entry["status"] = "ambiguous"
            entry["candidates"] = [c["address"] for c in detail.get("candidates", ())]
        elif q == "L":
            entry["status"] = "low confidence"
            entry["found"] = detail.get("address", "")
            entry["confidence"] = detail.get("confidence")
        else:
            entry["status"] = "unmatched"
            entry["why"] = detail.get("why", "no match")
        said.append(entry)
        if len(said) == limit:
            break
    return said


def _cut(value: str) -> str:
    return value if len(value) <= INPUT_CHARS else value[: INPUT_CHARS - 1] + "…"


def batch_answer(rows: Rows) -> dict[str, Any]:
    """What the model reads: counts, and the rows that need a person (bounded)."""
    counts = rows.counts()
    need = sum(1 for q in rows.quality if q != "M")
    listed = attention(rows)
    answer: dict[str, Any] = {"rows": len(rows.quality), **counts}
    if listed:
        answer["need_attention"] = listed
    if need > len(listed):
        answer["need_attention_more"] = need - len(listed)
    if rows.malformed:
        answer["tomtom_entries_dropped"] = {"batchItems": rows.malformed}
    return answer


def _rows_member(
    rows: Rows, start: int, stop: int, details: bool, extra: dict[str, Any]
) -> fitting.Member:
    """The envelope of rows `start + 1` to `stop`: their qualities and confidences, the
    positions of those located (a point run), their details when `details`, and `extra`."""
    quality = "".join(rows.quality[start:stop])
    conf = [-1 if math.isnan(c) else round(c * 100) for c in rows.confidence[start:stop]]
    batch: dict[str, Any] = {
        "rows": len(rows.quality),
        "from": start,
        "to": stop,
        "q": quality,
        "conf": conf,
        **extra,
    }
    if details:
        batch["details"] = [_for_view(d) for d in rows.details[start:stop]]
    located = start + np.flatnonzero(~np.isnan(rows.lonlat[start:stop, 0]))
    features: list[dict[str, Any]] = []
    section = np.empty(0, dtype=np.uint8)
    if located.size >= 2:
        geometry, section = fitting.point_run(rows.lonlat[located])
    elif located.size == 1:
        lon, lat = rows.lonlat[located[0]].tolist()
        geometry = {"type": "Point", "coordinates": [round(lon, 5), round(lat, 5)]}
    if located.size:
        properties = {"kind": "batch_points"}
        features.append({"type": "Feature", "geometry": geometry, "properties": properties})
    data: dict[str, Any] = {"type": "FeatureCollection", "features": features, "batch": batch}
    if located.size and start == 0:
        box = rows.lonlat[~np.isnan(rows.lonlat[:, 0])]
        data["bbox"] = [
            round(float(box[:, 0].min()), 5),
            round(float(box[:, 1].min()), 5),
            round(float(box[:, 0].max()), 5),
            round(float(box[:, 1].max()), 5),
        ]
    envelope = fitting.envelope(BATCH_GEOCODE, data)
    return fitting.pack(orjson.dumps(envelope), section)


def _for_view(detail: dict[str, Any]) -> dict[str, Any]:
    """A row's details as the view lists them and writes them to CSV."""
    return {k: v for k, v in detail.items() if k != "row"}


def batch_result(
    raw: RawBody,
    plan: RowsPlan,
    inputs: list[str] | None,
    show_ui: bool,
    budget: int,
    page_chars: int,
    job: dict[str, Any] | None,
) -> Prepared:
    """`tomtom-batch-geocode`'s finished result (and `tomtom-job-result`'s once done): the
    model's counts and rows to look at; the view's rows, as many as fit inline (details
    too, when all fit), and the page plan for the rest (`job` names the batch to page
    through: {"handle", ...}; None for a synchronous batch, which always fits)."""
    rows = read_rows(raw, plan, inputs)
    answer = batch_answer(rows)
    text = {**answer, "show_ui": show_ui}
    meta = base_meta(BATCH_GEOCODE, show_ui)
    if job is not None:
        text["job"] = job["handle"]
        meta[JOB_KEY] = {**job, "state": "done"}
    if not show_ui:
        return Prepared(text, meta, "omitted_show_ui_false")
    text["tool"] = BATCH_GEOCODE
    n = len(rows.quality)
    pages = plan_pages(rows, page_chars) if job is not None else None
    started = time.perf_counter()
    for stop, details in _inline_tries(n, job is None):
        paged = stop < n or not details
        extra: dict[str, Any] = {"pages": pages} if pages is not None and paged else {}
        app_data = _rows_member(rows, 0, stop, details, extra).text()
        said = {**text, "map": _paged(stop, n)} if paged else text
        result_meta = {**meta, APP_DATA_KEY: app_data}
        if wire_size(call_tool_result(said, result_meta)) <= budget:
            return Prepared(
                said,
                result_meta,
                "paged" if paged else "as_is",
                budget=budget,
                fit_ms=(time.perf_counter() - started) * 1000,
            )
    said = {**text, "map": "not shown: the rows do not fit the result"}
    return Prepared(said, {**meta, OMITTED_KEY: "too_large: the rows"}, "omitted_too_large")


def _inline_tries(rows: int, must_fit: bool) -> list[tuple[int, bool]]:
    """(rows inline, with details) to try, most first: every row with details, every row
    without, then halving the rows (the rest come in pages)."""
    tries = [(rows, True), (rows, False)]
    stop = rows // 2
    while stop >= 1 and not must_fit:
        tries.append((stop, False))
        stop //= 2
    return tries


def _paged(stop: int, rows: int) -> str:
    if stop == rows:
        return "every row's position inline; the view fetches the rows' addresses in pages"
    return f"rows 1 to {stop:,} inline; the view fetches the other rows in pages"


def plan_pages(rows: Rows, page_chars: int) -> list[int]:
    """Row boundaries (0, ..., rows) of pages of rows with details, each page's app data
    within `page_chars` (a page of one row travels even if larger)."""
    room = page_chars - 2_000  # the page's text and `_meta` keys beside its app data
    return page_bounds(
        np.ones(len(rows.quality), dtype=np.int64),
        lambda start, stop: _rows_member(rows, start, stop, True, {}).chars(),
        room,
        120.0,  # characters a row takes, until a page measures it
    )


def batch_page(raw: RawBody, plan: RowsPlan, start: int, stop: int) -> Prepared:
    """Rows `start + 1` to `stop` of a finished batch, with details, for the view (never
    the model): made again from TomTom's answer, the same bytes on any replica."""
    rows = read_rows(raw, plan, None)
    if not 0 <= start < stop <= len(rows.quality):
        raise BadAnswer("page", f"rows {start}-{stop} lie outside the batch's {plan.rows} rows")
    place = {"from": start, "to": stop, "rows": len(rows.quality)}
    app_data = _rows_member(rows, start, stop, True, {}).text()
    text = {"tool": BATCH_GEOCODE, "page": place}
    meta = {"tool": BATCH_GEOCODE, BATCH_PAGE_KEY: place, APP_DATA_KEY: app_data}
    return Prepared(text, meta, "page", detail=f"rows {start}-{stop}")
