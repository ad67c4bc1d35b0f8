"""A PNG of what the map view would draw, for hosts that show images but no views.

Drawn from the features the view gets, before fitting, in the view's colours, on TomTom's
static map (cropped) or `_basemap.offline_background`; CPU work, so always in the fitting
pool. Lines are drawn at twice the size and scaled down, Pillow's way to antialias.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageColor, ImageDraw, ImageFont

from tomtom_mcp_apps.fitting.geo import mercator, mercator_array, mercator_inverse
from tomtom_mcp_apps.server.jobs._basemap import offline_background

IMAGE_MAX_BYTES = 1_000_000
"""No PNG above this is attached, whatever the budget (hosts refuse larger images)."""
SUPERSAMPLE = 2
BASEMAP_MARGIN = 0.3
"""The static map is fetched for the inputs' extent grown by this share on every side,
so that the drawn frame (the features' own extent) lies inside it."""

Frame = tuple[float, float, float, float]
"""west, south, east, north in degrees."""

_PALETTE = ("#1f6feb", "#8250df", "#0f9d8a", "#e8590c", "#c2255c", "#5c7cfa", "#2b8a3e")
_DELAY = ("#868e96", "#f5b301", "#f76707", "#e03131", "#862e9c")
_KIND = {
    "result": "#e5484d",
    "waypoint": "#1f6feb",
    "origin": "#1f6feb",
    "marker": "#d6336c",
    "range": "#1f6feb",
    "area": "#2f9e44",
    "charging_stop": "#0f9d8a",
    "station": "#495057",
}
ALTERNATIVE = "#868e96"
_CASING = (255, 255, 255, 255)
_INK = (33, 37, 41, 255)


@dataclass(frozen=True)
class ImageRequest:
    """What to render: the size, and TomTom's static map for `basemap_frame` if fetched."""

    width: int = 800
    height: int = 500
    basemap: bytes | None = None
    basemap_frame: Frame | None = None
    basemap_note: str = "offline basemap"
    """What the text says about the background when TomTom's is not used."""


@dataclass(frozen=True)
class Rendered:
    png: bytes
    width: int
    height: int
    basemap: str


def basemap_frame(positions: Iterable[Sequence[float]], width: int, height: int) -> Frame:
    """The frame to fetch TomTom's static map for: the extent of `positions` (the
    inputs known before the answer: stops, markers, area vertices) grown by
    `BASEMAP_MARGIN`, in the image's aspect ratio."""
    points = np.asarray(list(positions), dtype=np.float64).reshape(-1, 2)
    west, south = points.min(axis=0)
    east, north = points.max(axis=0)
    return _fitted_frame((west, south, east, north), width, height, BASEMAP_MARGIN)


def render_map(data: dict[str, Any], request: ImageRequest, *, scale: float = 1.0) -> Rendered:
    """The PNG of `data` (the FeatureCollection of docs/result.md, before its coordinates
    are encoded) at `scale` times the requested size."""
    width = max(64, round(request.width * scale))
    height = max(64, round(request.height * scale))
    bbox = data.get("bbox") or [-10.0, 35.0, 30.0, 60.0]
    frame = _framed(tuple(bbox), width, height)
    background, basemap = _background(request, frame, width, height)
    canvas = _Canvas(frame, width * SUPERSAMPLE, height * SUPERSAMPLE)
    overlay = canvas.draw_features(data.get("features") or []).reduce(SUPERSAMPLE)
    image = background if background.mode == "RGB" else background.convert("RGB")
    image.paste(overlay, (0, 0), overlay)  # blended by the overlay's own alpha
    _decorate(image, data, canvas.legend, basemap)
    out = io.BytesIO()
    image.quantize(colors=128, method=Image.Quantize.FASTOCTREE).save(
        out, format="PNG", compress_level=6
    )
    return Rendered(out.getvalue(), width, height, basemap)


def _fitted_frame(bbox: Frame, width: int, height: int, pad: float) -> Frame:
    """`bbox` grown by `pad` of its size on each side and widened to `width:height` in
    Web Mercator (a single point gets a street-level frame)."""
    west, south, east, north = bbox
    x0, y1 = mercator(west, south)
    x1, y0 = mercator(east, north)
    span_x = max(x1 - x0, 2e-6)
    span_y = max(y1 - y0, 2e-6)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    span_x *= 1 + 2 * pad
    span_y *= 1 + 2 * pad
    if span_x / span_y < width / height:
        span_x = span_y * width / height
    else:
        span_y = span_x * height / width
    west, south = mercator_inverse(cx - span_x / 2, cy + span_y / 2)
    east, north = mercator_inverse(cx + span_x / 2, cy - span_y / 2)
    return (west, south, east, north)


INSETS = (0.22, 0.09, 0.05, 0.06)
"""Left, top, right, bottom margins (shares of the image) the data keeps clear of: the
legend sits bottom left, the title top left."""


def _framed(bbox: Frame, width: int, height: int) -> Frame:
    """The frame that shows `bbox` as large as it fits inside the image less `INSETS`
    (Web Mercator; a single point gets a street-level frame)."""
    west, south, east, north = bbox
    x0, y1 = mercator(west, south)
    x1, y0 = mercator(east, north)
    sizes = (width, height, width, height)
    left, top, right, bottom = (share * size for share, size in zip(INSETS, sizes, strict=True))
    inner_w, inner_h = width - left - right, height - top - bottom
    scale = min(inner_w / max(x1 - x0, 2e-6), inner_h / max(y1 - y0, 2e-6))
    fx0 = (x0 + x1) / 2 - (left + inner_w / 2) / scale
    fy0 = (y0 + y1) / 2 - (top + inner_h / 2) / scale
    fx1, fy1 = fx0 + width / scale, fy0 + height / scale
    west, south = mercator_inverse(fx0, fy1)
    east, north = mercator_inverse(fx1, fy0)
    return (west, south, east, north)


def _background(
    request: ImageRequest, frame: Frame, width: int, height: int
) -> tuple[Image.Image, str]:
    """TomTom's static map cropped to `frame`, or the offline background and why."""
    if request.basemap is not None and request.basemap_frame is not None:
        try:
            tiles = Image.open(io.BytesIO(request.basemap))
            tiles.load()
        except (OSError, ValueError):
            return offline_background(
                width, height, frame
            ), "offline basemap (TomTom's was unreadable)"
        bw, bs, be, bn = request.basemap_frame
        bx0, by0 = mercator(bw, bn)
        bx1, by1 = mercator(be, bs)
        fx0, fy0 = mercator(frame[0], frame[3])
        fx1, fy1 = mercator(frame[2], frame[1])
        sx = tiles.width / (bx1 - bx0)
        sy = tiles.height / (by1 - by0)
        box = ((fx0 - bx0) * sx, (fy0 - by0) * sy, (fx1 - bx0) * sx, (fy1 - by0) * sy)
        inside = box[0] >= -1 and box[1] >= -1 and box[2] <= tiles.width + 1
        if inside and box[3] <= tiles.height + 1:
            crop = tiles.convert("RGB").resize((width, height), Image.Resampling.BILINEAR, box=box)
            return crop, "TomTom static map"
        return offline_background(width, height, frame), (
            "offline basemap (the answer reached beyond TomTom's static map)"
        )
    return offline_background(width, height, frame), request.basemap_note


class _Canvas:
    """Features drawn in pixel space on a transparent layer; collects the legend."""

    def __init__(self, frame: Frame, width: int, height: int) -> None:
        self.width = width
        self.height = height
        x0, y0 = mercator(frame[0], frame[3])
        x1, y1 = mercator(frame[2], frame[1])
        self._origin = np.array([x0, y0])
        self._scale = np.array([width / (x1 - x0), height / (y1 - y0)])
        self.image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)
        self.legend: dict[str, str] = {}
        self._font = ImageFont.load_default(size=11 * SUPERSAMPLE)

    def pixels(self, coords: Any) -> np.ndarray:
        """Vertices as pixel positions, consecutive duplicates (at pixel size) dropped."""
        return _distinct(self.project(coords))

    def project(self, coords: Any) -> np.ndarray:
        """Every vertex as a whole-pixel position, one per vertex (indices kept)."""
        px = mercator_array(np.asarray(coords, dtype=np.float64).reshape(-1, 2))
        px -= self._origin
        px *= self._scale
        return np.rint(px, out=px)

    def line(self, px: np.ndarray, color: Any, width: float) -> None:
        if len(px) >= 2:  # a flat [x, y, x, y...] list: Pillow reads it without tuples
            self.draw.line(px.ravel().tolist(), fill=color, width=round(width * SUPERSAMPLE))

    def dot(self, px: Sequence[float], color: str, radius: float, label: str = "") -> None:
        r = radius * SUPERSAMPLE
        x, y = px
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=color, outline="white",
                          width=2 * SUPERSAMPLE)  # fmt: skip
        if label:
            self.draw.text((x, y), label, fill="white", font=self._font, anchor="mm")

    def chip(self, px: Sequence[float], text: str) -> None:
        """A label in a white box just above `px` (markers' labels, as the view shows them)."""
        x, y = px[0], px[1] - 10 * SUPERSAMPLE
        box = self.draw.textbbox((x, y), text, font=self._font, anchor="mb")
        pad = 3 * SUPERSAMPLE
        self.draw.rounded_rectangle(
            (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad),
            3 * SUPERSAMPLE,
            fill=(255, 255, 255, 235),
        )
        self.draw.text((x, y), text, fill=_INK, font=self._font, anchor="mb")

    def draw_features(self, features: list[dict[str, Any]]) -> Image.Image:
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for feature in features:
            by_kind.setdefault(feature["properties"].get("kind", ""), []).append(feature)
        self._areas(by_kind.get("area", []) + by_kind.get("range", []))
        routes = by_kind.get("route", [])
        for route in routes:
            if route["properties"].get("alternative"):
                self.line(self.pixels(_line(route)), ALTERNATIVE, 4)
                self.legend.setdefault("Alternative route", ALTERNATIVE)
        for n, route in enumerate(r for r in routes if not r["properties"].get("alternative")):
            self._route(route, n)
        for kind in ("result", "marker", "origin", "station"):
            for feature in by_kind.get(kind, []):
                props = feature["properties"]
                color = props.get("color") or _KIND[kind]
                px = self.pixels(feature["geometry"]["coordinates"])[0]
                self.dot(px, color, 6)
                if kind == "marker" and props.get("label"):
                    self.chip(px, str(props["label"])[:40])
            if by_kind.get(kind):
                self.legend.setdefault(_LEGEND[kind](len(by_kind[kind])), _KIND[kind])
        for i, feature in enumerate(by_kind.get("charging_stop", [])):
            px = self.pixels(feature["geometry"]["coordinates"])[0]
            self.dot(px, _KIND["charging_stop"], 8, str(i + 1))
            self.legend.setdefault("Charging stops", _KIND["charging_stop"])
        for feature in by_kind.get("waypoint", []):
            index = int(feature["properties"].get("index", 0))
            px = self.pixels(feature["geometry"]["coordinates"])[0]
            self.dot(px, _KIND["waypoint"], 8, chr(65 + index) if index < 26 else "")
        if by_kind.get("waypoint"):
            self.legend.setdefault(f"Waypoints ({len(by_kind['waypoint'])})", _KIND["waypoint"])
        return self.image

    def _areas(self, areas: list[dict[str, Any]]) -> None:
        """Translucent fills on a layer of their own, then the outlines above them."""
        if not areas:
            return
        fill = Image.new("RGBA", self.image.size, (0, 0, 0, 0))
        shade = ImageDraw.Draw(fill)
        outlines: list[tuple[np.ndarray, str]] = []
        for i, feature in enumerate(areas):
            props = feature["properties"]
            color = props.get("color") or (
                _PALETTE[(i + 2) % len(_PALETTE)] if props["kind"] == "area" else _KIND["range"]
            )
            rgb = ImageColor.getrgb(color)[:3]
            for ring in _rings(feature["geometry"]):
                px = self.pixels(ring)
                if len(px) >= 3:
                    shade.polygon([tuple(p) for p in px.tolist()], fill=(*rgb, 46))
                    outlines.append((px, color))
            label = props.get("label") or (
                "Reachable range" if props["kind"] == "range" else "Area"
            )
            self.legend.setdefault(label, color)
        self.image.alpha_composite(fill)
        for px, color in outlines:
            self.line(np.concatenate([px, px[:1]]), color, 2)

    def _route(self, route: dict[str, Any], n: int) -> None:
        props = route["properties"]
        color = props.get("color") or _PALETTE[n % len(_PALETTE)]
        projected = self.project(_line(route))
        px = _distinct(projected)
        self.line(px, _CASING, 8)
        self.line(px, color, 5)
        self.legend.setdefault(props.get("label") or f"Route {n + 1}", color)
        for section in props.get("sections") or []:
            if section.get("sectionType") != "TRAFFIC":
                continue
            start, end = section.get("startPointIndex", 0), section.get("endPointIndex", 0)
            if 0 <= start < end < len(projected):
                magnitude = section.get("magnitudeOfDelay") or 0
                shade = _DELAY[magnitude if 0 <= magnitude < len(_DELAY) else 0]
                self.line(_distinct(projected[start : end + 1]), shade, 5)
                self.legend.setdefault(_DELAY_LABEL[magnitude % len(_DELAY)], shade)


_LEGEND = {
    "result": lambda n: f"Results ({n})",
    "marker": lambda n: f"Markers ({n})",
    "origin": lambda n: "Origin",
    "station": lambda n: f"Charging stations ({n})",
}
_DELAY_LABEL = ("Traffic: unknown", "Traffic: minor", "Traffic: moderate", "Traffic: major",
                "Traffic: closed")  # fmt: skip


def _distinct(px: np.ndarray) -> np.ndarray:
    """`px` without vertices that repeat the one before (the ends are always kept)."""
    if len(px) <= 2:
        return px
    keep = np.ones(len(px), dtype=bool)
    keep[1:-1] = np.any(px[1:-1] != px[:-2], axis=1)
    return px[keep]


def _line(route: dict[str, Any]) -> Any:
    return route["geometry"]["coordinates"]


def _rings(geometry: dict[str, Any]) -> list[Any]:
    if geometry["type"] == "Polygon":
        return list(geometry["coordinates"])
    if geometry["type"] == "MultiPolygon":
        return [ring for polygon in geometry["coordinates"] for ring in polygon]
    return []


def _decorate(image: Image.Image, data: dict[str, Any], legend: dict[str, str], basemap: str
              ) -> None:  # fmt: skip
    """Title (top left), legend (bottom left) and the basemap's credit (bottom right)."""
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=13)
    small = ImageFont.load_default(size=10)
    title = data.get("title")
    if title:
        box = draw.textbbox((10, 8), str(title)[:80], font=font)
        draw.rounded_rectangle((box[0] - 6, box[1] - 4, box[2] + 6, box[3] + 4), 4,
                               fill=(255, 255, 255))  # fmt: skip
        draw.text((10, 8), str(title)[:80], fill=_INK[:3], font=font)
    rows = list(legend.items())[:10]
    if rows:
        height = 16 * len(rows) + 8
        top = image.height - height - 10
        width = 24 + max(draw.textlength(label, font=small) for label, _ in rows)
        draw.rounded_rectangle((8, top, 8 + width + 8, top + height), 4,
                               fill=(255, 255, 255))  # fmt: skip
        for i, (label, color) in enumerate(rows):
            y = top + 6 + 16 * i
            draw.rectangle((14, y + 3, 26, y + 9), fill=color)
            draw.text((32, y), label, fill=_INK[:3], font=small)
    credit = "© TomTom" if basemap.startswith("TomTom") else "Offline basemap"
    w = draw.textlength(credit, font=small)
    draw.text((image.width - w - 6, image.height - 14), credit, fill=(73, 80, 87), font=small)
