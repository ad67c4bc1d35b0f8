"""TomTom's raster tile endpoints, emulated: plain 256-pixel PNG tiles with cache headers.

Map Display `/map/1/tile/...` and Traffic `/traffic/map/4/tile/...`, zoom 0 to 22, a
refused tile answered with TomTom's 400. Flat images written with `zlib` (no imaging
library): enough for the tile route, the views and the benchmarks to move real tile bytes.
"""

from __future__ import annotations

import functools
import struct
import zlib

from starlette.requests import Request
from starlette.responses import Response

from tomtom_mcp_apps.server.offline._errors import error_body, service_of

TILE = 256
MAX_ZOOM = 22
CACHE_CONTROL = "public, max-age=86400"
_MAP_LAYERS = {"basic", "hybrid", "labels"}
_MAP_STYLES = {"main", "night"}
_TRAFFIC = {
    "flow": {"absolute", "relative", "relative0", "relative0-dark", "relative-delay",
             "reduced-sensitivity"},
    "incidents": {"s0", "s0-dark", "s1", "s2", "s3", "night"},
}  # fmt: skip
_TINT = {"main": (238, 241, 244), "night": (32, 37, 43)}
_EDGE = {"main": (213, 219, 226), "night": (46, 53, 61)}


async def map_tile(request: Request) -> Response:
    p = request.path_params
    if p["layer"] not in _MAP_LAYERS or p["style"] not in _MAP_STYLES:
        return _bad(request, f"Unknown layer/style {p['layer']}/{p['style']}.")
    image = _basemap(p["style"]) if p["layer"] == "basic" else _overlay()
    return _tile(request, image, f"map-{p['layer']}-{p['style']}")


async def traffic_tile(request: Request) -> Response:
    p = request.path_params
    if p["style"] not in _TRAFFIC.get(p["kind"], ()):
        return _bad(request, f"Unknown traffic tile {p['kind']}/{p['style']}.")
    return _tile(request, _overlay(), f"traffic-{p['kind']}-{p['style']}")


def _tile(request: Request, image: bytes, tag: str) -> Response:
    p = request.path_params
    z, x, y = p["z"], p["x"], p["y"]
    if p["ext"] != "png":
        return _bad(request, f"Unsupported format {p['ext']!r}: the offline upstream serves png.")
    if not 0 <= z <= MAX_ZOOM:
        return _bad(request, f"Zoom level {z} is out of range [0, {MAX_ZOOM}].")
    if not (0 <= x < 1 << z and 0 <= y < 1 << z):
        return _bad(request, f"Tile {x}/{y} does not exist at zoom {z}.")
    etag = f'"{tag}"'
    headers = {"cache-control": CACHE_CONTROL, "etag": etag, "access-control-allow-origin": "*"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(image, media_type="image/png", headers=headers)


def _bad(request: Request, message: str) -> Response:
    body = error_body(service_of(request.url.path), 400, message, code="BadRequest")
    return Response(body, 400, media_type="application/json")


@functools.cache
def _basemap(style: str) -> bytes:
    tint, edge = _TINT[style], _EDGE[style]
    edge_row = bytes(edge) * TILE
    row = bytes(edge) + bytes(tint) * (TILE - 1)
    return _png(TILE, TILE, 2, [edge_row] + [row] * (TILE - 1))


@functools.cache
def _overlay() -> bytes:
    return _png(TILE, TILE, 6, [bytes(4 * TILE)] * TILE)


def _png(width: int, height: int, color_type: int, rows: list[bytes]) -> bytes:
    """A PNG of 8-bit RGB (color type 2) or RGBA (6) rows, each filtered with "none"."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + row for row in rows), 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )
