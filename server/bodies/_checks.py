"""TomTom answers checked where they are parsed: what the features and summaries may rely on.

An entry that can be left out without making the rest wrong is dropped and counted
(`Dropped`); a value the rest depends on raises `BadAnswer`, naming the field
(docs/upstream.md, Reading answers). `plain_json` judges a body's text once, so the
objects parsed from plain text pass uncopied. Pure; no I/O.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tomtom_mcp_apps.fitting import plain_text
from tomtom_mcp_apps.server.errors import BadAnswer

MAX_DEPTH = 8
"""Nesting kept in objects copied to the widget; TomTom's own go four levels deep."""
MAX_SAFE_INT = 2**53
"""Integers beyond this lose precision in the views' JavaScript."""
DROPPED_KEY = "tomtom_entries_dropped"
"""Where an answer tells the model how many malformed entries were left out, by field."""


class Dropped:
    """Malformed entries left out of an answer, counted by the field they were in."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, where: str, count: int = 1) -> None:
        if count:
            self.counts[where] = self.counts.get(where, 0) + count

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def report(self, answer: dict[str, Any]) -> dict[str, Any]:
        """`answer`, with the counts under `DROPPED_KEY` when anything was dropped."""
        if self.counts:
            answer[DROPPED_KEY] = dict(self.counts)
        return answer


def number(value: Any) -> float | None:
    """`value` as a float when it is a finite number within ±2**53 (no TomTom quantity is
    larger), or None for anything else, booleans included."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not (math.isfinite(value) and abs(value) <= MAX_SAFE_INT):
        return None
    return float(value)


def integer(value: Any) -> int | None:
    """`value` when it is a plain integer of safe size, else None."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        return None
    return int(value) if abs(value) <= MAX_SAFE_INT else None


def count(value: Any) -> int | None:
    """`value` when it is a count: a whole number of 0 or more (an integral float, as a
    JSON encoder may write one, included), else None."""
    whole = integer(value)
    if whole is None and (found := number(value)) is not None and found.is_integer():
        whole = int(found)
    return whole if whole is not None and whole >= 0 else None


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def obj(value: Any) -> dict[str, Any]:
    """`value` if it is an object, else an empty one (a missing or mistyped member)."""
    return value if isinstance(value, dict) else {}


def entries(value: Any, where: str, dropped: Dropped) -> list[dict[str, Any]]:
    """The objects of list `value`; other entries are dropped and counted. A missing or
    null member is an empty list; any other non-list is counted once as dropped."""
    if value is None:
        return []
    if not isinstance(value, list):
        dropped.add(where)
        return []
    kept = [item for item in value if isinstance(item, dict)]
    dropped.add(where, len(value) - len(kept))
    return kept


def required_list(body: dict[str, Any], key: str) -> list[Any]:
    """`body[key]`, which must be a list when present (absent or null: empty)."""
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadAnswer(key, f"expected a list, got {_kind(value)}")
    return value


def plain(value: Any, depth: int = 0) -> Any:
    """A JSON-safe copy of `value`: string keys, finite numbers, nesting cut at `MAX_DEPTH`;
    anything else becomes None."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        return value if number(value) is not None else None
    if depth >= MAX_DEPTH:
        return None
    if isinstance(value, dict):
        return {k: plain(v, depth + 1) for k, v in value.items() if isinstance(k, str)}
    if isinstance(value, list):
        return [plain(v, depth + 1) for v in value]
    return None


def plain_json(text: bytes, level: int) -> bool:
    """Whether `plain` returns an equal copy of every value the JSON `text` holds `level` or
    more containers deep (the document itself is 1): `text` holds no number beyond ±2**53
    and nothing nested `MAX_DEPTH` levels below `level`. Judged on the bytes in one pass
    (`fitting.plain_text`), erring on the side of False: a run of 16 digits or a digit
    before an "e" anywhere, even in a string, counts as a number beyond."""
    return plain_text(np.frombuffer(text, dtype=np.uint8), level + MAX_DEPTH)


def position(lon: Any, lat: Any) -> tuple[float, float] | None:
    """`(lon, lat)` when both are finite numbers inside WGS84's ranges, else None."""
    x, y = number(lon), number(lat)
    if x is None or y is None or not (-180 <= x <= 180 and -90 <= y <= 90):
        return None
    return x, y


def line_points(points: Any, where: str) -> np.ndarray:
    """TomTom `[{latitude, longitude}, ...]` (or the route fast path's array) as a float64
    `(n, 2)` `[lon, lat]` array; any malformed point raises `BadAnswer` naming it."""
    if isinstance(points, np.ndarray):
        array = points
    elif isinstance(points, list):
        array = _object_points(points, where)
    elif points is None:
        return np.empty((0, 2), dtype=np.float64)
    else:
        raise BadAnswer(where, f"expected a list of points, got {_kind(points)}")
    if array.ndim != 2 or array.shape[1] != 2:
        raise BadAnswer(where, "expected [longitude, latitude] pairs")
    lon, lat = array[:, 0], array[:, 1]
    bad = ~(np.isfinite(lon) & np.isfinite(lat) & (np.abs(lon) <= 180) & (np.abs(lat) <= 90))
    if bad.any():
        i = int(np.argmax(bad))
        raise BadAnswer(f"{where}[{i}]", f"({lat[i]}, {lon[i]}) is not a WGS84 latitude, longitude")
    return array


def _object_points(points: list[Any], where: str) -> np.ndarray:
    out = np.empty((len(points), 2), dtype=np.float64)
    for i, point in enumerate(points):
        p = point if isinstance(point, dict) else {}
        lon, lat = number(p.get("longitude")), number(p.get("latitude"))
        if lon is None or lat is None:
            raise BadAnswer(f"{where}[{i}]", "expected {latitude, longitude} numbers")
        out[i, 0], out[i, 1] = lon, lat
    return out


def indexed_entries(
    value: Any,
    where: str,
    dropped: Dropped,
    keys: tuple[str, ...],
    count: int,
    *,
    required: bool = True,
    as_parsed: bool = False,
) -> list[dict[str, Any]]:
    """The objects of list `value` whose `keys` are integers in `[0, count)`, a start no
    later than its end, read in one pass: other entries (not objects, or with unusable
    indices) are dropped and counted under `where`, as `entries` counts a missing or
    mistyped list. With `required=False` an object may lack the keys (a guidance
    instruction without a point), but not hold bad ones. The kept objects are `plain`
    copies, or the objects themselves when `as_parsed` (parsed from JSON that
    `plain_json` found plain: a copy would be equal)."""
    if value is None:
        return []
    if not isinstance(value, list):
        dropped.add(where)
        return []
    kept: list[dict[str, Any]] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        lowest = 0  # of the next index: an end comes no earlier than its start
        for key in keys:
            index = item.get(key, _ABSENT)
            if index is _ABSENT and not required:
                continue
            if type(index) is not int:  # the common case first: one type check
                index = integer(index)
            if index is None or not lowest <= index < count:
                break
            lowest = index
        else:
            kept.append(item if as_parsed else plain(item))
    dropped.add(where, len(value) - len(kept))
    return kept


_ABSENT = object()


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
