"""The long-lived objects a request needs, built once per process by `build_app`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from server.config import Settings
from server.pool import FitPool

if TYPE_CHECKING:
    from server.tomtom import TomTomClient


@dataclass
class Runtime:
    settings: Settings
    tomtom: TomTomClient
    """The one shared TomTom client, over `http`."""
    http: httpx.AsyncClient
    """The pooled keep-alive HTTP client under `tomtom` (closed by the app's lifespan)."""
    downloads: httpx.AsyncClient
    """A separate client for data-viz `data_url` downloads (no TomTom base URL, no redirects)."""
    pool: FitPool
