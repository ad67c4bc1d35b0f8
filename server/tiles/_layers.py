"""The tile layers the views may load through `/tiles`, and where TomTom serves each.

A layer name is what a token grants and what the route's URL names; the upstream
path is TomTom's raster endpoint for it (Map Display API raster tiles, Traffic API
raster flow and incident tiles), all on the 256-pixel Web Mercator grid with
zoom levels 0 to 22.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_ZOOM = 22
"""TomTom's raster map and traffic tiles come in zoom levels 0 to 22."""


@dataclass(frozen=True)
class Layer:
    name: str
    upstream: str
    """TomTom path with `{z}`, `{x}`, `{y}` and `{ext}` slots."""
    formats: tuple[str, ...] = ("png",)

    def upstream_path(self, z: int, x: int, y: int, ext: str) -> str:
        return self.upstream.format(z=z, x=x, y=y, ext=ext)


LAYERS: dict[str, Layer] = {
    layer.name: layer
    for layer in (
        Layer("basemap", "/map/1/tile/basic/main/{z}/{x}/{y}.{ext}", ("png", "jpg")),
        Layer("basemap_night", "/map/1/tile/basic/night/{z}/{x}/{y}.{ext}"),
        Layer("traffic_flow", "/traffic/map/4/tile/flow/relative0/{z}/{x}/{y}.{ext}"),
        Layer("traffic_incidents", "/traffic/map/4/tile/incidents/s3/{z}/{x}/{y}.{ext}"),
    )
}
LAYER_NAMES: tuple[str, ...] = tuple(LAYERS)
"""In a fixed order: a token carries its layers as a bit mask over this tuple."""


def tile_problem(z: int, x: int, y: int) -> str | None:
    """Why `z/x/y` is no tile of the grid, or None when it is one."""
    if not 0 <= z <= MAX_ZOOM:
        return f"zoom {z} is outside 0-{MAX_ZOOM}"
    side = 1 << z
    if not (0 <= x < side and 0 <= y < side):
        return f"tile {x}/{y} is outside the {side}x{side} grid of zoom {z}"
    return None
