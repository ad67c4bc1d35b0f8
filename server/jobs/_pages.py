"""Data-viz app data in pages of features, each made by any replica on its own.

`tomtom-data-viz` plans the pages once; the view asks `tomtom-get-app-data` for them, and
any replica makes a page from the caller's bytes alone, read only as far as its last
feature, refusing data whose digest is not the plan's. A page is an envelope v3
(docs/result.md, Data-viz pages).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from isal import isal_zlib

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.bodies import GeoJsonArrays
from tomtom_mcp_apps.server.jobs._result import APP_DATA_KEY, call_tool_result, wire_size
from tomtom_mcp_apps.server.tool_names import DATA_VIZ

PAGES_KEY = "com.tomtom/app-data-pages"
"""`_meta` key of the page plan: {"features", "bounds", "digest", "layers", "title", "bbox"},
and for a `data_url` whose features the scan placed, "spans" (`byte_spans`)."""
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


def checksum(part: bytes) -> str:
    """What identifies a page's bytes in a plan's span: their CRC-32."""
    return f"{isal_zlib.crc32(part):08x}"


def file_length(data_digest: str) -> int | None:
    """The byte length a plan's `digest` names, or None when it names none."""
    _, _, length = data_digest.partition("-")
    return int(length) if length.isdigit() else None


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
    geometries: np.ndarray | None
    """(segment, depth) of the items' own geometries held as arrays (`Checked.geometries`)."""
    first: int = 0

    def __len__(self) -> int:
        return len(self.items)

    def member(self, start: int, stop: int) -> fitting.Member:
        """Dataset features `start` to `stop` (excluded) as an envelope v3 member."""
        head = orjson.dumps(
            {
                "v": fitting.DECIMAL_VERSION,
                "tool": DATA_VIZ,
                "data": {
                    "features": self.items[start - self.first : stop - self.first],
                    "from": start,
                    "to": stop,
                },
                "fitted": None,
            }
        )
        if self.doc is None:
            return fitting.pack(head, np.empty(0, dtype=np.uint8))
        return self._with_decimals(head, *self.byte_span(start, stop))

    def byte_span(self, start: int, stop: int) -> tuple[int, int]:
        """The bytes of dataset features `start` to `stop` in `doc.raw`."""
        if self.spans is None:
            return 0, len(self.doc.raw)
        return int(self.spans[start - self.first, 0]), int(self.spans[stop - self.first - 1, 1])

    def _with_decimals(self, head: bytes, low: int, high: int) -> fitting.Member:
        """`head` (JSON holding the stand-ins of `doc.raw[low:high]`) with each replaced: a
        feature's own geometry's by `"dv"` where its numbers go in the section, every other
        (a GeometryCollection's members, a property called coordinates) by the caller's text.

        Every stand-in is the value of a `"coordinates"` key (the scan made it so), which
        orjson writes as `"coordinates":"\\u0000<n>"`: replaced in the bytes, with no walk
        over the features."""
        inside = np.searchsorted(self.doc.scan.segment_starts, (low, high))
        rows = slice(*np.searchsorted(self.geometries[:, 0], inside))
        segments = self.geometries[rows, 0]
        section, decimals, dims = fitting.decimal_section(
            self.doc.scan, segments, self.geometries[rows, 1]
        )
        sent = {
            s: b'"dv":[%d,%d]' % (d, n)
            for s, d, n in zip(segments.tolist(), decimals.tolist(), dims.tolist(), strict=True)
            if d != fitting.NOT_SENT
        }

        def replaced(match: re.Match[bytes]) -> bytes:
            segment = int(match.group(1))
            return sent.get(segment) or b'"coordinates":' + self.doc.segment_text(segment)

        return fitting.pack(_STAND_IN.sub(replaced, head), section)

    def sizes(self) -> np.ndarray:
        """Bytes of each item as the caller wrote it (or as orjson writes it)."""
        if self.spans is not None:
            return self.spans[:, 1] - self.spans[:, 0]
        if self.doc is not None:
            return np.array([len(self.doc.raw)], dtype=np.int64)
        return np.array([len(orjson.dumps(f)) for f in self.items], dtype=np.int64)


_STAND_IN = re.compile(rb'"coordinates":"\\u0000(\d+)"')


def plan(features: Features, space: int) -> list[int]:
    """Page boundaries over `features` (0, ..., len): each page's member at most `space`
    characters, unless it is a single feature larger than that."""
    return page_bounds(
        features.sizes(), lambda start, end: features.member(start, end).chars(), space, 0.5
    )


def page_bounds(
    sizes: np.ndarray, chars: Callable[[int, int], int], space: int, per_unit: float
) -> list[int]:
    """Boundaries (0, ..., len(sizes)) of runs of items whose page, as `chars(start, end)`
    measures it, holds at most `space` characters, unless it is one item larger than that.
    Each run is aimed by the characters per unit of `sizes` measured so far (`per_unit`
    until the first page is measured), so a few encodes per page find it."""
    before = np.concatenate(([0], np.cumsum(sizes)))
    bounds = [0]
    count = len(sizes)
    while bounds[-1] < count:
        start = bounds[-1]
        end = _aim(before, start, space * _AIM / per_unit)
        fits = None
        for _ in range(_TRIES):
            measured = chars(start, end)
            per_unit = measured / max(1, before[end] - before[start])
            if measured <= space:
                fits = end
                grown = _aim(before, start, space * _AIM / per_unit)
                if end == count or measured >= _FILL * space or grown <= end:
                    break
                end = grown
            elif end - start == 1:
                fits = end  # one item larger than a page travels alone
                break
            elif fits is not None:
                break  # grown too far: the last size that fitted
            else:
                end = max(start + 1, min(_aim(before, start, space * _AIM / per_unit), end - 1))
        bounds.append(fits if fits is not None else end)
    return bounds


def byte_spans(features: Features, bounds: list[int]) -> list[dict[str, Any]] | None:
    """Where each page's features lie in the caller's bytes, `[from, to)` with the bytes'
    checksum, so that a page can ask for those bytes alone (docs/result.md, Data-viz
    pages); None when the features were not read with their places."""
    if features.spans is None or features.doc is None or features.first != 0:
        return None
    raw = features.doc.raw
    spans = []
    for start, stop in itertools.pairwise(bounds):
        low, high = features.byte_span(start, stop)
        spans.append({"from": low, "to": high, "crc32": checksum(raw[low:high])})
    return spans


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
