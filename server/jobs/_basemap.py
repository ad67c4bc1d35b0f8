"""The background of a rendered map image when TomTom's static map is not used.

`offline_background` is the one place an offline basemap comes from. Today it is a
plain land colour with a graticule, like the views draw without tiles; when the
views' vendored Natural Earth data lands (issue 15), this function reads that same
file, and nothing else changes.
"""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

LAND = (238, 241, 244)
GRID = (213, 219, 226)


def offline_background(
    width: int, height: int, frame: tuple[float, float, float, float]
) -> Image.Image:
    """A `width` x `height` RGB background for `frame` (west, south, east, north in
    degrees, Web Mercator): land colour and latitude/longitude lines at a round step."""
    image = Image.new("RGB", (width, height), LAND)
    draw = ImageDraw.Draw(image)
    west, south, east, north = frame
    span = max(east - west, north - south, 1e-5) / 6
    magnitude = 10 ** math.floor(math.log10(span))
    step = next(f * magnitude for f in (1, 2, 5, 10) if f * magnitude >= span)
    x0, y0, x1, y1 = mercator(west, north) + mercator(east, south)
    lon = math.floor(west / step) * step
    while lon <= east:
        x = (mercator(lon, 0)[0] - x0) / (x1 - x0) * width
        draw.line([(x, 0), (x, height)], fill=GRID, width=1)
        lon += step
    lat = math.floor(south / step) * step
    while lat <= north:
        y = (mercator(0, lat)[1] - y0) / (y1 - y0) * height
        draw.line([(0, y), (width, y)], fill=GRID, width=1)
        lat += step
    return image


MAX_LAT = 85.05112878


def mercator(lon: float, lat: float) -> tuple[float, float]:
    """Web Mercator in units of the world's width, y growing southwards (as pixels do)."""
    lat = max(-MAX_LAT, min(MAX_LAT, lat))
    y = 0.5 - math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / (2 * math.pi)
    return lon / 360 + 0.5, y
