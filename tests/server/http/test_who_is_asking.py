"""One trust root for who is asking, and the browser pages let in: `TRUSTED_PROXIES` alone
names a client, for every limit per client (the view refetch cap included), and with Host
checking off (`ALLOWED_HOSTS=*`) the Origin check still holds. The whole app in process."""

from __future__ import annotations

import ipaddress

import orjson
import pytest

from loadtest.wire import call_tool, result_text
from tests.server.harness import app_client
from tomtom_mcp_apps.server.http import origin_allowed

REFETCH = {"tool": "tomtom-geocode", "arguments": {"query": "Amsterdam"}}
PROXY = (ipaddress.ip_network("203.0.113.0/24"),)  # app_client's peer is 203.0.113.7


async def refetched(client: object, forwarded_for: str) -> str:
    result = await call_tool(
        client,  # type: ignore[arg-type]
        "/mcp",
        "tomtom-refetch-app-data",
        REFETCH,
        {"x-forwarded-for": forwarded_for},
    )
    return "capped" if result.get("isError") and "capped" in result_text(result) else "ran"


async def test_the_refetch_cap_counts_clients_as_the_front_door_names_them() -> None:
    """Two clients behind a trusted proxy each have their own cap; the proxy is not one
    client for it."""
    settings = {"view_refetch": True, "view_refetch_per_min": 1, "trusted_proxies": PROXY}
    async with app_client(**settings) as client:
        one = [await refetched(client, "192.0.2.1") for _ in "12"]
        two = await refetched(client, "192.0.2.2")
    assert one == ["ran", "capped"]
    assert two == "ran", "another client behind the proxy"


async def test_an_untrusted_peers_forwarded_for_names_no_one_for_the_refetch_cap() -> None:
    async with app_client(view_refetch=True, view_refetch_per_min=1) as client:
        answers = [await refetched(client, f"192.0.2.{n}") for n in range(1, 4)]
    assert answers == ["ran", "capped", "capped"]


PING = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("http://rebound.attacker.example", 403),  # a DNS-rebinding page, its Host unchecked
        ("https://chat.example.com", 200),
        ("http://localhost:6274", 200),
        (None, 200),  # no browser page: a host's own server-side client
    ],
)
async def test_with_host_checking_off_the_origin_check_holds(
    origin: str | None, status: int
) -> None:
    settings = {"allowed_hosts": ("*",), "allowed_origins": ("https://chat.example.com",)}
    headers = {**HEADERS, "host": "rebound.attacker.example"}
    if origin is not None:
        headers["origin"] = origin
    async with app_client(**settings) as client:
        answer = await client.post("/mcp", content=PING, headers=headers)
    assert answer.status_code == status, answer.text


def test_origins_match_as_the_sdk_matches_them() -> None:
    allowed = ("https://chat.example.com", "http://intranet.example:*")
    assert origin_allowed("http://intranet.example:8443", allowed)
    assert not origin_allowed("http://intranet.example", allowed)
    assert not origin_allowed("http://intranet.example:80.attacker.example", allowed)
    assert not origin_allowed("https://chat.example.com.attacker.example", allowed)
