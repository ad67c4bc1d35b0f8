"""CORS for `POST /mcp` (`server.app`): the browser origins the Origin check accepts,
loopback on any port and `ALLOWED_ORIGINS`, pass the preflight; no other does."""

from __future__ import annotations

import httpx
import pytest

from tomtom_mcp_apps.server.app import build_app
from tomtom_mcp_apps.server.config import Settings

ALLOWED = ("https://chat.example.com", "http://intranet.example:*")


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://localhost:6274", True),  # the MCP Inspector's page
        ("http://127.0.0.1:8080", True),  # the ext-apps reference host
        ("https://chat.example.com", True),
        ("http://intranet.example:8443", True),
        ("https://chat.example.com:8443", False),  # exact origins match exactly
        ("http://intranet.example", False),  # a port pattern needs a port
        ("https://chat.example.com.attacker.example", False),
        ("http://localhost.attacker.example:80", False),
        ("null", False),
    ],
)
async def test_the_preflight_passes_exactly_for_the_origins_the_origin_check_accepts(
    origin: str, allowed: bool
) -> None:
    app = build_app(Settings(allowed_origins=ALLOWED, fit_inline=True))
    headers = {
        "origin": origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,mcp-protocol-version",
    }
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"
    ) as client:
        response = await client.options("/mcp", headers=headers)
    assert (response.status_code == 200) is allowed
    assert (response.headers.get("access-control-allow-origin") == origin) is allowed


async def test_a_browser_host_reads_the_sign_in_challenge_of_a_401() -> None:
    settings = Settings(
        oauth_issuer="https://as.example.test",
        public_url="https://maps.example.test/mcp",
        allowed_hosts=("127.0.0.1:*",),
        fit_inline=True,
    )
    origin = "http://localhost:6274"
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(settings)), base_url="http://127.0.0.1:8000"
    ) as client:
        response = await client.post(
            "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"origin": origin}
        )
    assert response.status_code == 401
    assert "resource_metadata=" in response.headers["www-authenticate"]
    assert response.headers["access-control-allow-origin"] == origin
    exposed = response.headers["access-control-expose-headers"].lower()
    assert "www-authenticate" in exposed
