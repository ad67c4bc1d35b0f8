"""An in-process offline upstream per test, reached through `httpx.ASGITransport`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import numpy as np
import pytest

from server.offline import build_upstream_app

BASE = "http://offline.test"
NOW = datetime(2026, 12, 1, 14, 37, 12, tzinfo=UTC)
"""The tests' "now": answers depend on the minute, so a test must not cross one."""


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = build_upstream_app(slow_answer_s=0.2, clock=lambda: NOW)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE) as c:
        yield c


def route_points(route: dict) -> np.ndarray:
    """All legs' points concatenated, `[lon, lat]`, indexed the way TomTom indexes them."""
    return np.array(
        [[p["longitude"], p["latitude"]] for leg in route["legs"] for p in leg["points"]]
    )
