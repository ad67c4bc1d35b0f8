"""The tile route: views load TomTom tiles from this server, and never hold the key
(docs/front-door.md, Tiles through the server).

- `_layers.py`: the layers, where TomTom serves each, and the tile grid's bounds;
- `_tokens.py`: `TileTokens`, sealed short-lived tokens any replica opens, each a `Grant`;
- `_service.py`: `Tiles`, the URL templates for a view and `GET /tiles/...` itself.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.http import RateLimiter
from tomtom_mcp_apps.server.pool import Placement
from tomtom_mcp_apps.server.product import user_agent
from tomtom_mcp_apps.server.quotas import Budgets
from tomtom_mcp_apps.server.tiles._layers import LAYER_NAMES, LAYERS, MAX_ZOOM, Layer, tile_problem
from tomtom_mcp_apps.server.tiles._service import MapTiles, Tiles
from tomtom_mcp_apps.server.tiles._tokens import Grant, TileTokens
from tomtom_mcp_apps.server.tomtom import Pacer

__all__ = [
    "LAYERS",
    "LAYER_NAMES",
    "MAX_ZOOM",
    "Grant",
    "Layer",
    "MapTiles",
    "TileTokens",
    "Tiles",
    "build_tiles",
    "tile_problem",
]


def build_tiles(
    settings: Settings, placement: Placement, pacer: Pacer, budgets: Budgets | None = None
) -> Tiles | None:
    """The tile route's state, or None when this server serves no tiles (offline only,
    or no `TILE_TOKEN_SECRET`: then `/tiles` answers 404); `placement` says where a long
    gzip tile is inflated, `pacer` is the TomTom client's (tiles share its pacing and
    quota per key), and tiles of signed-in users spend their `budgets`."""
    if not settings.tiles_enabled or settings.tiles_base_url is None:
        return None
    return Tiles(
        tokens=TileTokens(settings.tile_token_secrets, settings.tile_token_ttl_s),
        limiter=RateLimiter(settings.tile_rate_per_s, settings.tile_burst),
        api_base_url=settings.api_base_url,
        public_base_url=settings.tiles_base_url,
        max_bytes=settings.tile_max_bytes,
        placement=placement,
        pacer=pacer,
        user_agent=user_agent(settings.public_url),
        timeout_s=settings.upstream_timeout_s,
        connections=settings.upstream_connections,
        budgets=budgets,
    )
