"""The front door: a rate per client, a ceiling on calls in flight, the body's time and size."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest
from starlette.types import Message, Receive, Scope, Send

from tests.server.auth.support import Issuer, SigningKey, claims
from tests.server.harness import app_client
from tomtom_mcp_apps.server.auth import build_sign_in, user_id_in
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.http import DoorLimits, FrontDoor, RateLimiter, SignedInShares
from tomtom_mcp_apps.server.ops import metrics

HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}
LIST = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})


def refusals(reason: str) -> float:
    return metrics.REGISTRY.get_sample_value("tomtom_mcp_refusals_total", {"reason": reason}) or 0


def assert_plain_refusal(answer: httpx.Response, status: int, text: str) -> None:
    """A refusal before the request was read: the status and a line of text, never a
    JSON-RPC error with `"id": null`, which the MCP schema rejects (no id was read)."""
    assert answer.status_code == status
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    assert answer.text == text + "\n"


async def test_a_client_past_its_rate_gets_429_with_retry_after_in_plain_text() -> None:
    before = refusals("client_rate")
    async with app_client(client_rate_per_s=0.5, client_burst=3) as client:
        answers = [await client.post("/mcp", content=LIST, headers=HEADERS) for _ in range(4)]
        health = await client.get("/health")
        metrics_page = await client.get("/metrics")
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[3].headers["retry-after"] == "2"
    assert_plain_refusal(answers[3], 429, "too many requests from this client; retry in 2 s")
    assert health.status_code != 429 and metrics_page.status_code == 200, "probes never"
    assert refusals("client_rate") == before + 1


CONFORMANCE_REQUESTS = 234
"""What the pinned conformance suite sends for both revisions, one run after the other
(205 `POST /mcp`, 29 `GET /mcp`; docs/front-door.md), all from one address."""


def test_the_default_burst_holds_a_strict_clients_conformance_run_of_both_revisions() -> None:
    limits = DoorLimits.of(Settings())
    bucket = RateLimiter(limits.client_rate_per_s, limits.client_burst, clock=lambda: 0.0)
    refused = [bucket.take("127.0.0.1") for _ in range(CONFORMANCE_REQUESTS)]
    assert refused.count(None) == CONFORMANCE_REQUESTS, "all at once: not one refused"


async def test_clients_behind_a_trusted_proxy_each_have_their_own_rate() -> None:
    proxy = (ipaddress.ip_network("203.0.113.0/24"),)  # app_client's peer is 203.0.113.7
    async with app_client(client_rate_per_s=0.5, client_burst=1, trusted_proxies=proxy) as c:
        one = [
            await c.post("/mcp", content=LIST, headers={**HEADERS, "x-forwarded-for": "192.0.2.1"})
            for _ in range(2)
        ]
        two = await c.post(
            "/mcp", content=LIST, headers={**HEADERS, "x-forwarded-for": "192.0.2.2"}
        )
    assert [a.status_code for a in one] == [200, 429]
    assert two.status_code == 200


async def test_a_tile_past_the_rate_is_refused_in_text_any_view_can_read() -> None:
    async with app_client(client_rate_per_s=0.5, client_burst=1) as client:
        await client.get("/tiles/basemap/1/0/0.png?t=x")
        refused = await client.get("/tiles/basemap/1/0/0.png?t=x")
    assert refused.status_code == 429
    assert refused.headers["access-control-allow-origin"] == "*"
    assert refused.text == "too many requests from this client; retry in 2 s\n"


class Held:
    """An app whose calls (`POST /mcp`) wait until released: calls in flight, on demand;
    anything else it answers at once."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered = 0
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] == "/mcp":
            self.entered += 1
            message = await receive()
            self.bodies.append(message["body"])
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"done"})


def door(app: Held, **limits: object) -> httpx.AsyncClient:
    guarded = FrontDoor(app, DoorLimits(client_rate_per_s=0, **limits))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=httpx.ASGITransport(guarded), base_url="http://r")


async def entered(held: Held, calls: int) -> None:
    """Until `calls` calls are in the app, for 5 s at most."""
    async with asyncio.timeout(5):
        while held.entered < calls:
            await asyncio.sleep(0)


async def test_past_the_ceiling_of_calls_in_flight_a_call_gets_503_at_once() -> None:
    held = Held()
    async with door(held, max_calls_in_flight=2) as client:
        calls = [asyncio.create_task(client.post("/mcp", content=b"{}")) for _ in range(2)]
        await entered(held, 2)
        busy = await asyncio.wait_for(client.post("/mcp", content=b"{}"), 5)
        tiles = await asyncio.wait_for(client.get("/tiles/x"), 5)  # only calls count
        held.release.set()
        done = await asyncio.gather(*calls)
        after = await client.post("/mcp", content=b"{}")
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
    assert busy.headers["connection"] == "close", "its unread body cannot follow"
    assert_plain_refusal(busy, 503, "this server is busy (too many calls in flight); retry in 1 s")
    assert tiles.status_code == 200
    assert [d.status_code for d in done] == [200, 200] and after.status_code == 200


async def test_one_client_past_its_share_of_calls_in_flight_gets_429_and_others_are_served() -> (
    None
):
    held = Held()
    before = refusals("client_in_flight")
    proxy = (ipaddress.ip_network("127.0.0.0/8"),)  # ASGITransport's peer is 127.0.0.1
    one = {"x-forwarded-for": "192.0.2.1"}
    limits = {"max_calls_in_flight": 4, "client_max_in_flight": 2, "trusted_proxies": proxy}
    async with door(held, **limits) as client:
        calls = [
            asyncio.create_task(client.post("/mcp", content=b"{}", headers=one)) for _ in range(2)
        ]
        await entered(held, 2)
        third = await asyncio.wait_for(client.post("/mcp", content=b"{}", headers=one), 5)
        other = asyncio.create_task(
            client.post("/mcp", content=b"{}", headers={"x-forwarded-for": "192.0.2.2"})
        )
        await entered(held, 3)
        held.release.set()
        done = await asyncio.gather(*calls, other)
        after = await client.post("/mcp", content=b"{}", headers=one)
    assert third.status_code == 429 and third.headers["retry-after"] == "1"
    assert third.headers["connection"] == "close"
    assert_plain_refusal(third, 429, "too many calls in flight from this client; retry in 1 s")
    assert [d.status_code for d in done] == [200, 200, 200], "another client is served"
    assert after.status_code == 200, "a client's share comes back with its calls"
    assert refusals("client_in_flight") == before + 1


async def test_the_body_reaches_the_app_whole_and_unchanged() -> None:
    held = Held()
    held.release.set()

    async def chunked() -> AsyncIterator[bytes]:
        yield b"ab"
        yield b"cd"

    async with door(held) as client:
        await client.post("/mcp", content=chunked())
    assert held.bodies == [b"abcd"]


async def test_a_body_over_its_size_is_refused_at_its_length_or_as_it_passes_it() -> None:
    held = Held()
    held.release.set()

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(5):
            yield b"x" * 300

    async with door(held, max_body_bytes=1000) as client:
        declared = await client.post("/mcp", content=b"x" * 1001)
        streamed = await client.post("/mcp", content=chunks())
    for refused in (declared, streamed):
        assert refused.status_code == 413 and refused.headers["connection"] == "close"
        assert_plain_refusal(refused, 413, "the request body is over 1,000 bytes")
    assert held.entered == 0


async def test_a_body_that_does_not_arrive_in_time_is_a_408() -> None:
    sent: list[Message] = []
    stalled = asyncio.Event()

    async def receive() -> Message:
        if not stalled.is_set():
            stalled.set()
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.Event().wait()  # the rest never comes; the door's deadline ends it
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        sent.append(message)

    held = Held()
    guarded = FrontDoor(held, DoorLimits(client_rate_per_s=0, body_timeout_s=0.05))
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [], "client": None}
    await asyncio.wait_for(guarded(scope, receive, send), 5)
    assert sent[0]["status"] == 408 and held.entered == 0
    assert b"did not arrive within 0.05 s" in sent[1]["body"]


@pytest.mark.parametrize("path", ["/health", "/metrics"])
async def test_probes_pass_the_door_even_past_every_limit(path: str) -> None:
    async with app_client(client_rate_per_s=0.001, client_burst=1) as client:
        statuses = [(await client.get(path)).status_code for _ in range(3)]
    assert 429 not in statuses


async def test_with_sign_in_each_user_behind_one_address_has_their_own_rate() -> None:
    """A hosted host (claude.ai, ChatGPT) sends every user's calls from its own few
    addresses: with sign-in on, a call's rate is its user's, not the address's."""
    limits = DoorLimits(client_rate_per_s=0.5, client_burst=1)
    issuer_url, mcp_url = "https://as.example.test", "https://maps.example.test/mcp"
    key = SigningKey.new("k1")
    sign_in = build_sign_in(
        Settings(oauth_issuer=issuer_url, public_url=mcp_url),
        transport=Issuer(issuer_url, [key]).transport(),
    )
    assert sign_in is not None

    async def answered(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    inner = sign_in.protect(SignedInShares(answered, limits, user_id_in))
    app = FrontDoor(inner, limits, signed_in=True)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))

    def as_user(sub: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key.sign(claims(issuer_url, mcp_url, sub=sub))}"}

    async with httpx.AsyncClient(
        transport=transport, base_url="https://maps.example.test"
    ) as client:
        alice = [await client.post("/mcp", content=b"{}", headers=as_user("alice")) for _ in "12"]
        bob = await client.post("/mcp", content=b"{}", headers=as_user("bob"))
        nobody = await client.post("/mcp", content=b"{}")
    assert [a.status_code for a in alice] == [200, 429], "a user past their rate"
    assert_plain_refusal(alice[1], 429, "too many requests from this client; retry in 2 s")
    assert bob.status_code == 200, "another user from the same address is served"
    assert nobody.status_code == 401, "no token: the gate's challenge, not a rate"
