"""An in-process offline upstream per test, reached through `httpx.ASGITransport`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.server.offline.support import BASE, NOW
from tomtom_mcp_apps.server.offline import build_upstream_app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = build_upstream_app(slow_answer_s=0.2, clock=lambda: NOW)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE) as c:
        yield c
