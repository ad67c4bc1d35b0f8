"""The Map Display API's static image: a PNG of the requested bounding box.

A tinted background with a grid every tenth of the frame, so tests can tell
TomTom's static map (this) from the server's own offline basemap (plain grey).
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline._query import Query, parse_bbox

TINT = (226, 239, 218)
LINES = (190, 214, 178)


def static_image(q: Query) -> bytes:
    """`GET /map/1/staticimage?bbox&width&height&format=png` (layer basic, style main)."""
    if q.text("center") is None and q.text("bbox") is None:
        raise OfflineBadRequest("Give bbox, or center and zoom.", target="bbox")
    if q.text("bbox") is not None:
        parse_bbox(q.text("bbox"))
    width = q.integer("width", low=1, high=8192, default=512)
    height = q.integer("height", low=1, high=8192, default=512)
    assert width is not None and height is not None
    q.choice("layer", ("basic", "hybrid", "labels"), "basic")
    q.choice("style", ("main", "night"), "main")
    if q.choice("format", ("png", "jpg", "jpeg"), "png") != "png":
        raise OfflineBadRequest("The offline upstream draws png only.", target="format")
    image = Image.new("RGB", (width, height), TINT)
    draw = ImageDraw.Draw(image)
    for k in range(1, 10):
        draw.line([(width * k / 10, 0), (width * k / 10, height)], fill=LINES, width=2)
        draw.line([(0, height * k / 10), (width, height * k / 10)], fill=LINES, width=2)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
