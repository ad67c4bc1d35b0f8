"""Matrix Routing v2 answers read into a table, and `tomtom-matrix`'s result.

TomTom answers a matrix (synchronous, or an asynchronous job's result) with
`{"data": [cell, ...], "statistics": {...}}`; a cell names its `originIndex` and
`destinationIndex` and holds a `routeSummary` (`travelTimeInSeconds`, `lengthInMeters`)
or a `detailedError` (`code`, `message`, and for a cell TomTom gave up on,
`CELL_PROCESSING_ERROR` with the reason in `innerError`). `read_matrix` turns that into
origin-by-destination arrays: a cell TomTom could not route is `None` with its code
as status, never a zero; a cell the answer lacks is `MISSING`; a malformed cell is
dropped and counted (`tomtom_entries_dropped`), its status `MALFORMED`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tomtom_mcp_apps.server.bodies import DROPPED_KEY
from tomtom_mcp_apps.server.errors import BadAnswer
from tomtom_mcp_apps.server.jobs._result import Prepared, prepare
from tomtom_mcp_apps.server.tool_names import MATRIX

OK = "OK"
MISSING = "MISSING"
MALFORMED = "MALFORMED"
TABLE_CELLS = 100
"""Up to this many cells the model reads the whole table; past it, each origin's nearest
destination and how many it cannot reach: a 50 x 50 table would be 2,500 numbers the
model rarely needs, and the whole matrix is in `structuredContent` and on the map."""


@dataclass(frozen=True)
class Matrix:
    travel_times: list[list[int | None]]
    """Seconds, origin by destination; None where there is no route."""
    lengths: list[list[int | None]]
    """Metres, origin by destination; None where there is no route."""
    statuses: list[list[str]]
    """`OK`, TomTom's error code for the cell (`NO_ROUTE_FOUND`, `OUT_OF_REGION`...),
    `MISSING` or `MALFORMED`."""
    dropped: int = 0


def read_matrix(answer: dict[str, Any], origins: int, destinations: int) -> Matrix:
    """The `origins` x `destinations` table in TomTom's matrix answer."""
    cells = answer.get("data")
    if not isinstance(cells, list):
        raise BadAnswer("data", "expected a list of cells")
    times: list[list[int | None]] = [[None] * destinations for _ in range(origins)]
    lengths: list[list[int | None]] = [[None] * destinations for _ in range(origins)]
    statuses = [[MISSING] * destinations for _ in range(origins)]
    dropped = 0
    for cell in cells:
        where = _indices(cell, origins, destinations)
        if where is None:
            dropped += 1
            continue
        i, j = where
        summary = cell.get("routeSummary")
        error = cell.get("detailedError")
        if isinstance(summary, dict):
            seconds = _count(summary.get("travelTimeInSeconds"))
            metres = _count(summary.get("lengthInMeters"))
            if seconds is None or metres is None:
                statuses[i][j] = MALFORMED
                dropped += 1
                continue
            times[i][j], lengths[i][j], statuses[i][j] = seconds, metres, OK
        elif isinstance(error, dict):
            statuses[i][j] = _error_code(error)
        else:
            statuses[i][j] = MALFORMED
            dropped += 1
    return Matrix(times, lengths, statuses, dropped)


def _indices(cell: Any, origins: int, destinations: int) -> tuple[int, int] | None:
    if not isinstance(cell, dict):
        return None
    i, j = cell.get("originIndex"), cell.get("destinationIndex")
    if type(i) is not int or type(j) is not int:
        return None
    if not (0 <= i < origins and 0 <= j < destinations):
        return None
    return i, j


def _count(value: Any) -> int | None:
    """A whole, non-negative number of seconds or metres, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0 or value != int(value):
        return None
    return int(value)


def _error_code(error: dict[str, Any]) -> str:
    """The cell's reason: `CELL_PROCESSING_ERROR`'s inner code when it has one."""
    inner = error.get("innerError")
    if isinstance(inner, dict) and isinstance(inner.get("code"), str):
        return str(inner["code"])[:40]
    code = error.get("code")
    return str(code)[:40] if isinstance(code, str) and code else "UNKNOWN_ERROR"


def _minutes(seconds: int | None) -> float | None:
    return None if seconds is None else round(seconds / 60, 1)


def _km(metres: int | None) -> float | None:
    return None if metres is None else round(metres / 1000, 1)


def nearest(matrix: Matrix) -> list[int | None]:
    """Each origin's destination of least travel time (None: it reaches none)."""
    found: list[int | None] = []
    for row in matrix.travel_times:
        reachable = [(t, j) for j, t in enumerate(row) if t is not None]
        found.append(min(reachable)[1] if reachable else None)
    return found


def matrix_answer(
    matrix: Matrix, origins: Sequence[Sequence[float]], destinations: Sequence[Sequence[float]]
) -> dict[str, Any]:
    """What the model reads: the table in minutes and km when small, else each origin's
    nearest destination; cells without a route counted by reason."""
    rows, cols = len(origins), len(destinations)
    closest = nearest(matrix)
    answer: dict[str, Any] = {"origins": rows, "destinations": cols}
    routed = sum(s == OK for row in matrix.statuses for s in row)
    answer["cells"] = {"total": rows * cols, "routed": routed}
    reasons: dict[str, int] = {}
    for row in matrix.statuses:
        for status in row:
            if status != OK:
                reasons[status] = reasons.get(status, 0) + 1
    if reasons:
        answer["cells"]["not_routed"] = reasons
    if rows * cols <= TABLE_CELLS:
        answer["table"] = {
            "minutes": [[_minutes(t) for t in row] for row in matrix.travel_times],
            "km": [[_km(m) for m in row] for row in matrix.lengths],
        }
    else:
        answer["table"] = (
            f"{rows * cols} cells: the model gets each origin's nearest destination; the whole "
            "matrix is in structuredContent and on the map"
        )
    answer["nearest"] = [
        {
            "origin": i,
            "destination": j,
            "minutes": _minutes(matrix.travel_times[i][j]),
            "km": _km(matrix.lengths[i][j]),
        }
        if j is not None
        else {"origin": i, "destination": None, "reason": "no destination reachable"}
        for i, j in enumerate(closest)
    ]
    if matrix.dropped:
        answer[DROPPED_KEY] = {"matrix_cells": matrix.dropped}
    return answer


def matrix_structured(
    matrix: Matrix,
    origins: Sequence[Sequence[float]],
    destinations: Sequence[Sequence[float]],
    billed: int,
) -> dict[str, Any]:
    """`structuredContent` (the tool's `outputSchema`): the whole matrix."""
    return {
        "origins": [list(p) for p in origins],
        "destinations": [list(p) for p in destinations],
        "travelTimes": matrix.travel_times,
        "lengths": matrix.lengths,
        "statuses": matrix.statuses,
        "billedCells": billed,
    }


def matrix_data(
    matrix: Matrix,
    origins: Sequence[Sequence[float]],
    destinations: Sequence[Sequence[float]],
    same: bool,
) -> dict[str, Any]:
    """The fleet view's data: origins and destinations as points, and the table."""
    features: list[dict[str, Any]] = []
    for i, (lon, lat) in enumerate(origins):
        kind = "place" if same else "origin"
        features.append(_point(lon, lat, {"kind": kind, "index": i}))
    if not same:
        for j, (lon, lat) in enumerate(destinations):
            features.append(_point(lon, lat, {"kind": "destination", "index": j}))
    return {
        "type": "FeatureCollection",
        "features": features,
        "title": f"Travel times, {len(origins)} x {len(destinations)}",
        "matrix": {
            "same": same,
            "travelTimes": matrix.travel_times,
            "lengths": matrix.lengths,
            "statuses": matrix.statuses,
        },
    }


def _point(lon: float, lat: float, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [round(lon, 5), round(lat, 5)]},
        "properties": properties,
    }


def matrix_result(
    answer: dict[str, Any],
    origins: list[list[float]],
    destinations: list[list[float]],
    same: bool,
    billed: int,
    show_ui: bool,
    budget: int,
) -> Prepared:
    """`tomtom-matrix`'s whole result: the compact table for the model, the matrix as
    `structuredContent`, and the points and table for the view."""
    matrix = read_matrix(answer, len(origins), len(destinations))
    text = matrix_answer(matrix, origins, destinations)
    text["billed_cells"] = billed
    structured = matrix_structured(matrix, origins, destinations, billed)
    data = matrix_data(matrix, origins, destinations, same)
    return prepare(MATRIX, text, data, show_ui, budget, structured=structured)
