"""The background of a rendered map image when TomTom's static map is not used.

`offline_background` draws the views' own Natural Earth basemap in their light theme, from
`basemap.json` beside this module (written by the widgets build and committed, so the
server never needs Node). Each worker reads it once and keeps its vertices in Web Mercator.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson
from PIL import Image, ImageColor, ImageDraw

from tomtom_mcp_apps.fitting.geo import mercator, mercator_array

DATA = Path(__file__).with_name("basemap.json")

Frame = tuple[float, float, float, float]


@dataclass(frozen=True)
class _Parts:
    """Rings or lines, all vertices in one Web Mercator array (world widths, y down)."""

    xy: np.ndarray
    """(n, 2) float64, every part's vertices one after the other."""
    starts: np.ndarray
    """Index of each part's first vertex in `xy`, and `len(xy)` at the end."""
    boxes: np.ndarray
    """(parts, 4): each part's x0, y0, x1, y1."""

    @classmethod
    def decoded(cls, parts: list[list[int]], scale: np.ndarray, translate: np.ndarray) -> _Parts:
        """Parts as the file has them (`[x0, y0, dx1, dy1, ...]` on the grid), all decoded
        at once: one cumulative sum, less each part's start, then one projection."""
        counts = np.array([len(p) // 2 for p in parts], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)])
        if not len(parts):
            return cls(np.empty((0, 2)), starts, np.empty((0, 4)))
        flat = np.fromiter(itertools.chain.from_iterable(parts), dtype=np.int64)
        grid = np.cumsum(flat.reshape(-1, 2), axis=0)
        before = np.concatenate([[[0, 0]], grid[starts[1:-1] - 1]])  # sums of earlier parts
        grid -= np.repeat(before, counts, axis=0)
        xy = mercator_array(grid * scale + translate)
        # A ring across the antimeridian (Chukotka, Fiji) steps from 180 to -180 degrees:
        # unwrap it past 180 so that no edge spans the world, and draw a copy of it one
        # world to the west (or east), so that each side of the line shows its land.
        step = np.zeros(len(xy))
        step[1:] = -np.sign(np.diff(xy[:, 0])) * (np.abs(np.diff(xy[:, 0])) > 0.5)
        step[starts[:-1]] = 0
        shift = np.cumsum(step)
        shift -= np.repeat(shift[starts[:-1]], counts)
        xy[:, 0] += shift
        extra = []
        for i in np.flatnonzero(np.add.reduceat(np.abs(step), starts[:-1])).tolist():
            part = xy[starts[i] : starts[i + 1]]
            extra.append(part - [np.sign(part[:, 0].mean() - 0.5), 0])
        if extra:
            xy = np.concatenate([xy, *extra])
            starts = np.concatenate([starts, starts[-1] + np.cumsum([len(e) for e in extra])])
        boxes = np.column_stack(
            [
                np.minimum.reduceat(xy[:, 0], starts[:-1]),
                np.minimum.reduceat(xy[:, 1], starts[:-1]),
                np.maximum.reduceat(xy[:, 0], starts[:-1]),
                np.maximum.reduceat(xy[:, 1], starts[:-1]),
            ]
        )
        return cls(xy, starts, boxes)

    def visible(self, frame: np.ndarray) -> np.ndarray:
        """Indices of the parts whose box meets `frame` (x0, y0, x1, y1)."""
        b = self.boxes
        meets = (b[:, 0] <= frame[2]) & (b[:, 2] >= frame[0])
        return np.flatnonzero(meets & (b[:, 1] <= frame[3]) & (b[:, 3] >= frame[1]))


@dataclass(frozen=True)
class Basemap:
    water: tuple[int, int, int]
    land: tuple[int, int, int]
    coast: tuple[int, int, int]
    border: tuple[int, int, int]
    outer: _Parts
    """Land: the outer ring of every polygon."""
    holes: _Parts
    """Lakes and inland seas: the polygons' inner rings, drawn in water over the land."""
    borders: _Parts


@functools.cache
def natural_earth() -> Basemap:
    """`basemap.json`, read once per process."""
    doc = orjson.loads(DATA.read_bytes())
    grid = (np.array(doc["scale"], dtype=np.float64), np.array(doc["translate"], dtype=np.float64))
    colour = {k: ImageColor.getrgb(v)[:3] for k, v in doc["colors"].items()}
    return Basemap(
        water=colour["water"],
        land=colour["land"],
        coast=colour["coast"],
        border=colour["border"],
        outer=_Parts.decoded([polygon[0] for polygon in doc["land"]], *grid),
        holes=_Parts.decoded([ring for polygon in doc["land"] for ring in polygon[1:]], *grid),
        borders=_Parts.decoded(doc["borders"], *grid),
    )


def offline_background(width: int, height: int, frame: Frame) -> Image.Image:
    """A `width` x `height` RGB background for `frame` (west, south, east, north in
    degrees, Web Mercator): sea, Natural Earth land with its coast, country borders."""
    basemap = natural_earth()
    image = Image.new("RGB", (width, height), basemap.water)
    draw = ImageDraw.Draw(image)
    west, south, east, north = frame
    x0, y0 = mercator(west, north)
    x1, y1 = mercator(east, south)
    scale = np.array([width / (x1 - x0), height / (y1 - y0)])
    origin = np.array([x0, y0])
    pad = _PAD / scale  # the window, in world units, a few pixels beyond the image
    window = np.array([x0 - pad[0], y0 - pad[1], x1 + pad[0], y1 + pad[1]])
    bounds = (-_PAD, -_PAD, width + _PAD, height + _PAD)
    view = _View(window, origin, scale, bounds)
    land = [ring for ring in view.rings(basemap.outer) if len(ring) >= 6]
    lakes = [ring for ring in view.rings(basemap.holes) if len(ring) >= 6]
    for ring in land:
        draw.polygon(ring, fill=basemap.land)
    for ring in lakes:
        draw.polygon(ring, fill=basemap.water)
    for ring in (*land, *lakes):  # a clipped ring's edges along the window are off the image
        draw.line([*ring, ring[0], ring[1]], fill=basemap.coast, width=1)
    for line in view.lines(basemap.borders):
        draw.line(line, fill=basemap.border, width=1)
    return image


_PAD = 4.0
"""Pixels the drawing window reaches beyond the image on every side."""


@dataclass(frozen=True)
class _View:
    """The parts of a basemap inside one image, as Pillow's flat pixel lists."""

    window: np.ndarray
    """x0, y0, x1, y1 in world units: the image and `_PAD` pixels around it."""
    origin: np.ndarray
    scale: np.ndarray
    bounds: tuple[float, float, float, float]
    """The window in pixels."""

    def _each(self, parts: _Parts) -> Iterator[tuple[np.ndarray, bool]]:
        """(pixel positions, whether the part lies wholly inside the window) per part that
        meets the window; vertices falling on the pixel of the one before are left out.
        All parts are projected at once: a zoomed-out frame meets a thousand islands."""
        found = parts.visible(self.window)
        if not len(found):
            return
        starts, counts = parts.starts[found], np.diff(parts.starts)[found]
        first = np.cumsum(counts) - counts  # each part's first vertex in the gathered array
        gather = np.arange(int(counts.sum())) + np.repeat(starts - first, counts)
        px = np.rint((parts.xy[gather] - self.origin) * self.scale)
        keep = np.ones(len(px), dtype=bool)
        keep[1:] = np.any(px[1:] != px[:-1], axis=1)
        keep[first] = True
        kept = np.add.reduceat(keep, first)
        pieces = np.split(px[keep], np.cumsum(kept)[:-1])
        boxes = parts.boxes[found]
        inside = np.all(boxes[:, :2] >= self.window[:2], axis=1) & np.all(
            boxes[:, 2:] <= self.window[2:], axis=1
        )
        yield from zip(pieces, inside.tolist(), strict=True)

    def rings(self, parts: _Parts) -> list[list[float]]:
        """Rings clipped to the window, so that Pillow's fill, whose cost grows with every
        edge of a polygon on every row, sees only the edges near the image."""
        out = []
        for px, inside in self._each(parts):
            ring = px if inside else _clipped(px, self.bounds)
            if len(ring) >= 3:
                out.append(ring.ravel().tolist())
        return out

    def lines(self, parts: _Parts) -> list[list[float]]:
        """Lines clipped to the window: Pillow steps along every pixel of a line, on the
        image or not, and a border 100 km away is a million pixels long at street zoom."""
        out = []
        for px, inside in self._each(parts):
            runs = [px] if inside else _clipped_line(px, self.bounds)
            out += [run.ravel().tolist() for run in runs if len(run) >= 2]
        return out


def _clipped(ring: np.ndarray, bounds: tuple[float, float, float, float]) -> np.ndarray:
    """`ring` (closed implicitly) clipped to the rectangle `bounds` (x0, y0, x1, y1):
    Sutherland-Hodgman, one vectorised pass per side."""
    with np.errstate(divide="ignore", invalid="ignore"):  # edges that cross nothing
        for axis, limit, keep_above in (
            (0, bounds[0], True),
            (0, bounds[2], False),
            (1, bounds[1], True),
            (1, bounds[3], False),
        ):
            if not len(ring):
                break
            side = ring[:, axis] - limit
            inside = side >= 0 if keep_above else side <= 0
            if inside.all():
                continue
            nxt = np.concatenate((ring[1:], ring[:1]))
            nxt_side = np.concatenate((side[1:], side[:1]))
            nxt_inside = np.concatenate((inside[1:], inside[:1]))
            cut = ring + (nxt - ring) * (side / (side - nxt_side))[:, None]
            cut[:, axis] = limit
            # per edge: the crossing point (if it crosses), then its end (if that is inside)
            both = np.stack([cut, nxt], axis=1)
            ring = both[np.stack([inside != nxt_inside, nxt_inside], axis=1)]
    return ring


def _clipped_line(line: np.ndarray, bounds: tuple[float, float, float, float]) -> list[np.ndarray]:
    """The runs of `line` inside the rectangle `bounds`: Liang-Barsky on every segment at
    once, consecutive segments that stay whole joined into one run."""
    a, b = line[:-1], line[1:]
    d = b - a
    low = np.zeros(len(a))
    high = np.ones(len(a))
    with np.errstate(divide="ignore", invalid="ignore"):
        for axis, limit, sign in ((0, bounds[0], -1), (0, bounds[2], 1), (1, bounds[1], -1),
                                  (1, bounds[3], 1)):  # fmt: skip
            p = sign * d[:, axis]
            q = sign * (limit - a[:, axis])
            t = q / p
            parallel_out = (p == 0) & (q < 0)
            low = np.where(p < 0, np.maximum(low, t), low)
            high = np.where(p > 0, np.minimum(high, t), high)
            high = np.where(parallel_out, -1.0, high)
    seen = np.flatnonzero(low <= high)
    runs: list[np.ndarray] = []
    run: list[np.ndarray] = []
    last = -2
    for i in seen.tolist():
        start, end = a[i] + d[i] * low[i], a[i] + d[i] * high[i]
        if run and i == last + 1 and low[i] == 0 and high[last] == 1:
            run.append(end)  # carries on from the segment before, uncut
        else:
            if len(run) >= 2:
                runs.append(np.array(run))
            run = [start, end]
        last = i
    if len(run) >= 2:
        runs.append(np.array(run))
    return runs
