"""Data-viz app data in pages of features, each made by any replica on its own (ADR 0087).

A dataset too large for the tool result reaches the view in pages of
consecutive features. `tomtom-data-viz` plans them once: it encodes the
features a page at a time and keeps each page under the room a page has
(`APP_DATA_PAGE_CHARS`), and the result's `_meta` gives the view the plan:
the page boundaries, the number of features and the data's digest. The view
then asks `tomtom-get-app-data` for pages, a few at a time, and any replica
makes any page from the caller's bytes alone: it reads them only as far as
the page's last feature, checks and encodes that page and nothing more, and
refuses a page of data whose digest is not the plan's (the file changed).

A page is an envelope v3 (`fitting.pack`): its features as the caller wrote
them, except that a geometry's coordinates travel as exact decimal varints
(`"dv"`, ADR 0088) wherever they can, which the view reads back bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from isal import isal_zlib

import fitting
from server.bodies import STAND_IN, GeoJsonArrays
from server.jobs._result import APP_DATA_KEY, call_tool_result, wire_size
from server.tool_names import DATA_VIZ

PAGES_KEY = "com.tomtom/app-data-pages"
"""`_meta` key of the page plan: {"features", "bounds", "digest", "layers", "title"}."""
PAGE_KEY = "com.tomtom/app-data-page"
"""`_meta` key of a page's place in the plan: {"from", "to", "digest"}."""
_FILL = 0.9
"""A planned page is grown while it fills less than this share of its room."""
_AIM = 0.97
"""Share of the room a page is aimed at, from the size per byte measured so far."""
_TRIES = 6
"""Encodes at most per planned page (each aimed better by the last's size)."""


def digest(raw: bytes) -> str:
    """What identifies the caller's bytes in a plan: their CRC-32 and length."""
    return f"{isal_zlib.crc32(raw):08x}-{len(raw)}"


def room(page_chars: int, features: int, data_digest: str) -> int:
    """Characters of app data a page's result holds within `page_chars`, whatever its range."""
    place = {"from": features, "to": features, "digest": data_digest}
    empty = call_tool_result(_page_text(place), _page_meta(place, ""))
    return page_chars - wire_size(empty)


@dataclass(frozen=True)
class Features:
    """A dataset's features as read for pages, from feature `first` of the dataset on."""

    items: list[Any]
    doc: GeoJsonArrays | None
    """The read whose stand-ins the items hold (their coordinates as arrays), or None for
    items read the ordinary way (their coordinates travel as JSON)."""
    spans: np.ndarray | None
    """Byte span of each item in `doc.raw` ((n, 2)); None for a root that is one feature."""
    first: int = 0

    def __len__(self) -> int:
        return len(self.items)

    def member(self, start: int, stop: int) -> fitting.Member:
        """Dataset features `start` to `stop` (excluded) as an envelope v3 member."""
        items = self.items[start - self.first : stop - self.first]
        section = np.empty(0, dtype=np.uint8)
        if self.doc is not None:
            if self.spans is None:
                low, high = 0, len(self.doc.raw)
            else:
                low = int(self.spans[start - self.first, 0])
                high = int(self.spans[stop - self.first - 1, 1])
            items, section = _with_decimals(items, self.doc, low, high)
        head = orjson.dumps(
            {
                "v": fitting.DECIMAL_VERSION,
                "tool": DATA_VIZ,
                "data": {"features": items, "from": start, "to": stop},
                "fitted": None,
            }
        )
        return fitting.pack(head, section)

    def sizes(self) -> np.ndarray:
        """Bytes of each item as the caller wrote it (or as orjson writes it)."""
        if self.spans is not None:
            return self.spans[:, 1] - self.spans[:, 0]
        if self.doc is not None:
            return np.array([len(self.doc.raw)], dtype=np.int64)
        return np.array([len(orjson.dumps(f)) for f in self.items], dtype=np.int64)


def plan(features: Features, space: int) -> list[int]:
    """Page boundaries over `features` (0, ..., len): each page's member at most `space`
    characters, unless it is a single feature larger than that."""
    before = np.concatenate(([0], np.cumsum(features.sizes())))
    bounds = [0]
    per_byte = 0.5  # characters per byte of the caller's JSON, until a page measures it
    count = len(features)
    while bounds[-1] < count:
        start = bounds[-1]
        end = _aim(before, start, space * _AIM / per_byte)
        fits = None
        for _ in range(_TRIES):
            chars = features.member(start, end).chars()
            per_byte = chars / max(1, before[end] - before[start])
            if chars <= space:
                fits = end
                grown = _aim(before, start, space * _AIM / per_byte)
                if end == count or chars >= _FILL * space or grown <= end:
                    break
                end = grown
            elif end - start == 1:
                fits = end  # one feature larger than a page travels alone
                break
            elif fits is not None:
                break  # grown too far: the last size that fitted
            else:
                end = max(start + 1, min(_aim(before, start, space * _AIM / per_byte), end - 1))
        bounds.append(fits if fits is not None else end)
    return bounds


def _aim(before: np.ndarray, start: int, size: float) -> int:
    """The end of the run from `start` whose bytes come nearest `size` (one feature at least)."""
    end = int(np.searchsorted(before, before[start] + size, side="right")) - 1
    return min(len(before) - 1, max(start + 1, end))


def page_result(text: str, first: int, stop: int, data_digest: str) -> tuple[dict, dict]:
    """(text, `_meta`) of the result carrying a page's app data."""
    place = {"from": first, "to": stop, "digest": data_digest}
    return _page_text(place), _page_meta(place, text)


def _page_text(place: dict[str, Any]) -> dict[str, Any]:
    return {"tool": DATA_VIZ, "page": place}


def _page_meta(place: dict[str, Any], text: str) -> dict[str, Any]:
    return {"tool": DATA_VIZ, PAGE_KEY: place, APP_DATA_KEY: text}


# --- coordinates as decimals ---------------------------------------------------------------------


def _with_decimals(
    features: list[Any], doc: GeoJsonArrays, low: int, high: int
) -> tuple[list[Any], np.ndarray]:
    """`features` (lying in `doc.raw[low:high]`) with every stand-in replaced: a geometry's
    coordinates by `"dv"` where its numbers go in the section, else (and anywhere else) by
    the caller's JSON text."""
    at: list[int] = []
    segments: list[int] = []
    depths: list[int] = []
    for i, feature in enumerate(features):
        geometry = feature.get("geometry") if type(feature) is dict else None
        if type(geometry) is not dict:
            continue
        shape = fitting.GEOJSON_SHAPES.get(geometry.get("type"))
        coordinates = geometry.get("coordinates")
        if shape is not None and type(coordinates) is str and coordinates[:1] == STAND_IN:
            at.append(i)
            segments.append(int(coordinates[1:]))
            depths.append(shape[0])
    section, decimals, dims = fitting.decimal_section(
        doc.scan, np.array(segments, dtype=np.int64), np.array(depths, dtype=np.int64)
    )
    out = list(features)
    for i, segment, d, n in zip(at, segments, decimals.tolist(), dims.tolist(), strict=True):
        geometry = features[i]["geometry"]
        if d == fitting.NOT_SENT:
            stand = orjson.Fragment(doc.segment_text(segment))
            geometry = {k: stand if k == "coordinates" else v for k, v in geometry.items()}
        else:
            geometry = {
                ("dv" if k == "coordinates" else k): ([d, n] if k == "coordinates" else v)
                for k, v in geometry.items()
            }
        out[i] = {k: geometry if k == "geometry" else v for k, v in features[i].items()}
    starts = doc.scan.segment_starts
    inside = int(np.searchsorted(starts, high)) - int(np.searchsorted(starts, low))
    if inside > len(segments):  # GeometryCollection members, a property called coordinates
        out = [_restored(feature, doc) for feature in out]
    return out, section


def _restored(value: Any, doc: GeoJsonArrays) -> Any:
    """`value` with every stand-in left in it replaced by the caller's JSON text."""
    if type(value) is str and value[:1] == STAND_IN:
        return orjson.Fragment(doc.segment_text(int(value[1:])))
    if type(value) is dict:
        return {k: _restored(v, doc) for k, v in value.items()}
    if type(value) is list:
        return [_restored(v, doc) for v in value]
    return value
