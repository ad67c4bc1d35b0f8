"""The tile route's parts: sealed tokens, the per-token rate, and how TomTom's answers become
the view's, checked against the response codes TomTom documents for its tiles, served
over real HTTP by a stand-in on a free local port.

TomTom's Map Display API documents for tiles: 200 with the image, 304 for a matching
`If-None-Match`, 400 bad request, 403 for a key not valid for the request, 429 too
many requests, 500, and 596 service not found (developer.tomtom.com, Map Display API
"HTTP response codes"; "HTTP response headers": Content-Type, ETag, Cache-Control).
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import re
import ssl
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from starlette.applications import Starlette
from starlette.routing import Route

from loadtest.topology import free_port
from tests.tls import trusting
from tomtom_mcp_apps.server.errors import QuotaError, TokenError
from tomtom_mcp_apps.server.http import RateLimiter
from tomtom_mcp_apps.server.offline._app import _stacked_bomb
from tomtom_mcp_apps.server.pool import INLINE
from tomtom_mcp_apps.server.quotas import Budgets, Window
from tomtom_mcp_apps.server.tiles import Tiles, TileTokens
from tomtom_mcp_apps.server.tiles._tokens import _V1_AAD, _V1_HEADER, _derive
from tomtom_mcp_apps.server.tomtom import FAMILIES, Pacer, TomTomClient
from tomtom_mcp_apps.server.tomtom._errors import key_forms

SECRET = "tile-secret-of-this-deployment-0123456789"
KEY = "K3yOfTheCaller0123456789abcdefGH"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200
TOMTOM = "https://api.tomtom.test"
USER_AGENT = "tomtom-mcp-apps/0.0 (+https://maps.example.test/mcp)"


def unpaced(quota_per_minute: int = 0) -> Pacer:
    """Pacing as the tests of other things need it, out of the way; a fresh one each
    time (a 429 from TomTom holds the key in the pacer that saw it)."""
    rates = {f.name: 10_000.0 for f in FAMILIES}
    return Pacer(rates, max_wait_s=1.0, quota_per_minute=quota_per_minute)


def test_a_token_sealed_by_one_replica_opens_on_another_with_the_same_secret() -> None:
    token, expires = TileTokens([SECRET], 3600).seal(KEY, ["basemap", "traffic_flow"])
    grant = TileTokens([SECRET], 3600).open(token)
    assert grant.key == KEY and grant.layers == {"basemap", "traffic_flow"}
    assert grant.expires == expires and expires > time.time() + 3590


def test_a_token_shows_the_key_in_no_form_and_is_short_enough_for_a_url() -> None:
    tokens = TileTokens([SECRET], 3600)
    sealed = [tokens.seal(KEY, ["basemap"])[0] for _ in range(20)]
    assert len(set(sealed)) == 20, "a fresh nonce each time"
    for token in sealed:
        assert len(token) < 120 and all(form not in token for form in key_forms(KEY))
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert KEY.encode() not in raw


@pytest.mark.parametrize("position", [0, 13, 30, -1])
def test_any_altered_byte_makes_a_token_fail_to_open(position: int) -> None:
    tokens = TileTokens([SECRET], 3600)
    raw = bytearray(base64.urlsafe_b64decode(tokens.seal(KEY, ["basemap"])[0] + "=="))
    raw[position] ^= 0x01
    altered = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    with pytest.raises(TokenError, match="invalid tile token"):
        tokens.open(altered)


def test_an_expired_token_says_so_and_the_view_is_told_how_to_renew() -> None:
    now = time.time()
    token, _ = TileTokens([SECRET], 60, clock=lambda: now).seal(KEY, ["basemap"])
    later = TileTokens([SECRET], 60, clock=lambda: now + 61)
    with pytest.raises(TokenError, match="expired: the view asks tomtom-get-map-config again"):
        later.open(token)


def test_rotating_the_secret_keeps_tokens_sealed_under_the_previous_one_valid() -> None:
    old = TileTokens([SECRET], 3600).seal(KEY, ["basemap"])[0]
    rotated = TileTokens(["the-new-secret-of-this-deployment-012345", SECRET], 3600)
    assert rotated.open(old).key == KEY
    with pytest.raises(TokenError, match="another secret"):
        TileTokens(["the-new-secret-of-this-deployment-012345"], 3600).open(old)


def spelled_otherwise(token: str) -> list[str]:
    """`token`'s bytes in every other spelling a lenient base64 decoder accepts."""
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    padded = base64.urlsafe_b64encode(raw).decode()
    standard = base64.b64encode(raw).decode()
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    spare = last[last.index(token[-1]) ^ 1]  # the last character's unused bits set otherwise
    return [
        padded,
        standard,
        standard.rstrip("="),
        token + "=",
        token[:10] + "\n" + token[10:],
        token[:10] + " " + token[10:],
        token + ".",
        token[:-1] + spare,
    ]


def respellable(tokens: TileTokens) -> str:
    """A token with a `_` (its standard spelling differs) whose last character has spare
    bits (its length is no multiple of 4: `KEY + "x"` makes the payload so)."""
    token = next(t for t in (tokens.seal(KEY + "x", ["basemap"])[0] for _ in range(50)) if "_" in t)
    assert len(token) % 4 != 0, "the test needs a token whose last character has spare bits"
    return token


def test_a_token_opens_only_in_the_spelling_it_was_issued_in() -> None:
    tokens = TileTokens([SECRET], 3600)
    token = respellable(tokens)
    grant = tokens.open(token)
    for other in spelled_otherwise(token):
        assert other != token
        with pytest.raises(TokenError, match="spelling it was issued in"):
            tokens.open(other)
    assert tokens.open(token) == grant


def test_each_grant_has_its_own_identity_the_nonce_it_was_sealed_with() -> None:
    tokens = TileTokens([SECRET], 3600)
    first, second = (tokens.seal(KEY, ["basemap"])[0] for _ in range(2))
    assert tokens.open(first).id != tokens.open(second).id
    assert tokens.open(first).id == base64.urlsafe_b64decode(first + "==")[:12]


def test_a_token_minted_by_the_previous_release_still_opens() -> None:
    # The previous release's sealing, written out: AES-GCM under HKDF(secret), AAD
    # "tile-token-v1", of expiry (u32) | layer mask (u8) | key, nonce first, base64url.
    cipher = AESGCM(
        HKDF(hashes.SHA256(), 32, None, b"tomtom-mcp-apps/tile-token/v1").derive(SECRET.encode())
    )
    nonce = bytes(range(12))
    expires = int(time.time()) + 600
    sealed = cipher.encrypt(
        nonce, struct.pack(">IB", expires, 0b0101) + KEY.encode(), b"tile-token-v1"
    )
    token = base64.urlsafe_b64encode(nonce + sealed).rstrip(b"=").decode()
    grant = TileTokens([SECRET], 3600).open(token)
    assert (grant.key, grant.layers, grant.expires) == (KEY, {"basemap", "traffic_flow"}, expires)


@pytest.mark.parametrize("token", ["", "%%%", "A" * 20, "A" * 513, "é" * 40])
def test_malformed_tokens_are_refused_without_decrypting(token: str) -> None:
    with pytest.raises(TokenError):
        TileTokens([SECRET], 3600).open(token)


USER = "0123456789abcdef0123456789abcdef"


def test_a_token_carries_the_signed_in_user_it_was_minted_for() -> None:
    tokens = TileTokens([SECRET], 3600)
    assert tokens.open(tokens.seal(KEY, ["basemap"], USER)[0]).user == USER
    assert tokens.open(tokens.seal(KEY, ["basemap"])[0]).user is None


def test_a_token_of_the_layout_before_the_user_still_opens_for_its_lifetime() -> None:
    expires = int(time.time()) + 600
    plain = _V1_HEADER.pack(expires, 0b1) + KEY.encode()
    nonce = b"\x01" * 12
    sealed = AESGCM(_derive(SECRET)).encrypt(nonce, plain, _V1_AAD)
    token = base64.urlsafe_b64encode(nonce + sealed).rstrip(b"=").decode()
    grant = TileTokens([SECRET], 3600).open(token)
    assert (grant.key, grant.layers, grant.expires, grant.user) == (
        KEY,
        frozenset({"basemap"}),
        expires,
        None,
    )


def test_the_rate_limiter_allows_a_burst_then_the_rate_and_says_how_long_to_wait() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=2.0, burst=3, clock=lambda: now[0])
    assert [limiter.take("t") for _ in range(3)] == [None, None, None]
    assert limiter.take("t") == 1
    assert limiter.take("other") is None, "each token has a bucket of its own"
    now[0] += 0.5  # one more request's worth at 2 a second
    assert limiter.take("t") is None
    assert limiter.take("t") == 1


def test_the_rate_limiter_forgets_the_oldest_tokens_beyond_its_bound() -> None:
    limiter = RateLimiter(rate=0.001, burst=1, max_ids=2, clock=lambda: 0.0)
    for ident in ("a", "b", "c"):
        assert limiter.take(ident) is None
    assert limiter.take("c") == 1000, "c is still remembered, and empty"
    assert limiter.take("a") is None, "a was forgotten: a full bucket again"


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def tile_route(
    handler: Handler,
    *,
    burst: int = 100,
    max_bytes: int = 4096,
    timeout_s: float = 5.0,
    pacer: Pacer | None = None,
    budgets: Budgets | None = None,
    tls: ssl.SSLContext | None = None,
) -> AsyncIterator[tuple[httpx.AsyncClient, TileTokens, list[web.Request]]]:
    """The tile route in process, with TomTom played over real HTTP (HTTPS with `tls`) on a
    free local port by `handler` (an aiohttp handler); every request it receives is kept."""
    seen: list[web.Request] = []

    async def record(request: web.Request) -> web.StreamResponse:
        seen.append(request)
        return await handler(request)

    standin = web.Application()
    standin.router.add_get("/{path:.*}", record)
    server = TestServer(standin, host="127.0.0.1")
    await server.start_server(ssl=tls)
    async with server:
        tokens = TileTokens([SECRET], 3600)
        tiles = Tiles(
            tokens=tokens,
            limiter=RateLimiter(rate=1.0, burst=burst),
            api_base_url=str(server.make_url("")).rstrip("/"),
            public_base_url="https://maps.example.test/tiles",
            max_bytes=max_bytes,
            placement=INLINE,
            pacer=pacer or unpaced(),
            user_agent=USER_AGENT,
            timeout_s=timeout_s,
            budgets=budgets,
        )
        route = Route("/tiles/{layer}/{z:int}/{x:int}/{y:int}.{ext}", tiles.serve)
        app = Starlette(routes=[route])
        try:
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app), base_url="https://maps.example.test"
            ) as client:
                yield client, tokens, seen
        finally:
            await tiles.aclose()


def image(status: int = 200, **headers: str) -> Handler:
    base = {"content-type": "image/png", "cache-control": "max-age=604800", "etag": '"v1"'}

    async def answer(_: web.Request) -> web.StreamResponse:
        body = PNG if status == 200 else b""
        return web.Response(status=status, body=body, headers={**base, **headers})

    return answer


async def test_a_tile_is_fetched_with_the_key_and_keeps_tomtoms_cache_headers() -> None:
    handler = image(expires="Wed, 21 Oct 2026 07:28:00 GMT")
    async with tile_route(handler) as (client, tokens, seen):
        token = tokens.seal(KEY, ["basemap"])[0]
        tile = await client.get(f"/tiles/basemap/5/16/10.png?t={token}")
    assert tile.status_code == 200 and tile.content == PNG
    assert tile.headers["cache-control"] == "max-age=604800"
    assert tile.headers["etag"] == '"v1"'
    assert tile.headers["expires"] == "Wed, 21 Oct 2026 07:28:00 GMT"
    assert tile.headers["access-control-allow-origin"] == "*"
    (request,) = seen
    assert request.path == "/map/1/tile/basic/main/5/16/10.png"
    assert request.query["key"] == KEY and request.query["tileSize"] == "256"
    assert request.headers["user-agent"] == USER_AGENT
    assert request.headers["accept-encoding"] == "gzip"


async def test_a_conditional_request_is_passed_on_and_tomtoms_304_back() -> None:
    async with tile_route(image(304)) as (client, tokens, seen):
        token = tokens.seal(KEY, ["traffic_incidents"])[0]
        tile = await client.get(
            f"/tiles/traffic_incidents/5/16/10.png?t={token}", headers={"if-none-match": '"v1"'}
        )
    assert tile.status_code == 304 and tile.headers["etag"] == '"v1"'
    assert seen[0].headers["if-none-match"] == '"v1"'
    assert seen[0].path == "/traffic/map/4/tile/incidents/s3/5/16/10.png"


@pytest.mark.parametrize(
    ("tomtom", "status", "reason"),
    [
        (403, 502, "TomTom refused the key for basemap tiles (HTTP 403)"),
        (429, 429, "TomTom's rate limit for this key"),
        (400, 404, "TomTom has no such tile (HTTP 400)"),
        (500, 502, "TomTom answered HTTP 500"),
        (596, 502, "TomTom answered HTTP 596"),
    ],
)
async def test_tomtoms_documented_refusals_become_a_status_and_a_short_reason(
    tomtom: int, status: int, reason: str
) -> None:
    handler = image(tomtom, **({"retry-after": "7"} if tomtom == 429 else {}))
    async with tile_route(handler) as (client, tokens, _):
        tile = await client.get(f"/tiles/basemap/1/0/1.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    assert (tile.status_code, tile.text.strip()) == (status, reason)
    assert tile.headers["cache-control"] == "no-store"
    if tomtom == 429:
        assert tile.headers["retry-after"] == "7"


async def declared_too_large(_: web.Request) -> web.StreamResponse:
    return web.Response(body=b"x" * 5000, content_type="image/png")


async def streamed_too_large(request: web.Request) -> web.StreamResponse:
    """Chunked, no Content-Length: the size shows only while reading."""
    response = web.StreamResponse(headers={"content-type": "image/png"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    for _ in range(3):
        await response.write(b"x" * 3000)
    await response.write_eof()
    return response


@pytest.mark.parametrize("handler", [declared_too_large, streamed_too_large])
async def test_a_tile_over_the_size_cap_is_refused_not_passed_on(handler: Handler) -> None:
    async with tile_route(handler, max_bytes=4096) as (client, tokens, _):
        tile = await client.get(f"/tiles/basemap/1/0/1.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    assert tile.status_code == 502 and "over 4096 bytes" in tile.text


def coded(body: bytes, coding: str) -> Handler:
    async def answer(_: web.Request) -> web.StreamResponse:
        headers = {"content-type": "image/png", "content-encoding": coding}
        return web.Response(body=body, headers=headers)

    return answer


async def test_a_gzipped_tile_is_decoded_within_its_cap_and_passed_on_plain() -> None:
    async with tile_route(coded(gzip.compress(PNG), "gzip")) as (client, tokens, _):
        tile = await client.get(f"/tiles/basemap/1/0/1.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    assert tile.status_code == 200 and tile.content == PNG
    assert "content-encoding" not in tile.headers


@pytest.mark.parametrize(
    ("body", "coding", "says"),
    [
        (lambda: _stacked_bomb(), "gzip, gzip, gzip", "3 content codings stacked"),
        (lambda: gzip.compress(bytes(100_000)), "gzip", "larger than this server accepts"),
        (lambda: PNG, "br", r"unrequested encoding \(br\)"),
    ],
    ids=["stacked", "bomb", "unknown"],
)
async def test_a_tile_in_a_coding_past_its_bounds_is_a_502_never_passed_to_the_view(
    body: Callable[[], bytes], coding: str, says: str
) -> None:
    async with tile_route(coded(body(), coding)) as (client, tokens, _):
        tile = await client.get(f"/tiles/basemap/1/0/1.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    assert tile.status_code == 502 and re.search(says, tile.text)
    assert "content-encoding" not in tile.headers


async def test_an_answer_that_is_no_image_is_refused() -> None:
    async def login_page(_: web.Request) -> web.StreamResponse:
        return web.Response(text="<html>login</html>", content_type="text/html")

    async with tile_route(login_page) as (client, tokens, _):
        tile = await client.get(f"/tiles/basemap/1/0/1.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    assert tile.status_code == 502 and "no image" in tile.text


async def test_a_tomtom_that_does_not_answer_in_time_is_a_504() -> None:
    never = asyncio.Event()

    async def stalled(_: web.Request) -> web.StreamResponse:
        await never.wait()  # released when the stand-in shuts down
        return web.Response()

    async with tile_route(stalled, timeout_s=0.3) as (client, tokens, _):
        tile = await client.get(f"/tiles/basemap/1/0/1.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    assert tile.status_code == 504 and "no tile in time" in tile.text


@pytest.mark.parametrize("trusted", [True, False])
async def test_tiles_trust_the_certificate_authorities_api_calls_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    tls = trusting(tmp_path, monkeypatch, trusted)
    async with tile_route(image(), tls=tls) as (client, tokens, seen):
        tile = await client.get(f"/tiles/basemap/5/16/10.png?t={tokens.seal(KEY, ['basemap'])[0]}")
    if trusted:  # SSL_CERT_FILE vouches for TomTom's certificate, as for API calls
        assert tile.status_code == 200 and tile.content == PNG and len(seen) == 1
    else:
        assert tile.status_code == 502 and "could not be reached" in tile.text and not seen


async def test_an_unreachable_tomtom_is_a_502_that_never_repeats_the_url() -> None:
    tiles = Tiles(
        tokens=TileTokens([SECRET], 3600),
        limiter=RateLimiter(rate=1.0, burst=5),
        api_base_url=f"http://127.0.0.1:{free_port()}",  # nothing listens there
        public_base_url="https://maps.example.test/tiles",
        max_bytes=4096,
        placement=INLINE,
        pacer=unpaced(),
        user_agent=USER_AGENT,
    )
    app = Starlette(routes=[Route("/tiles/{layer}/{z:int}/{x:int}/{y:int}.{ext}", tiles.serve)])
    token = tiles.tokens.seal(KEY, ["basemap"])[0]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t") as c:
        tile = await c.get(f"/tiles/basemap/1/0/1.png?t={token}")
    await tiles.aclose()
    assert tile.status_code == 502 and "could not be reached" in tile.text
    assert KEY not in tile.text


async def test_a_grant_spent_down_to_429_gets_no_fresh_rate_by_another_spelling() -> None:
    async with tile_route(image(), burst=2) as (client, tokens, seen):
        token = respellable(tokens)
        spent = [
            await client.get("/tiles/basemap/2/1/1.png", params={"t": token}) for _ in range(3)
        ]
        again = [
            await client.get("/tiles/basemap/2/1/1.png", params={"t": other})
            for other in spelled_otherwise(token)
        ]
    assert [a.status_code for a in spent] == [200, 200, 429]
    assert {a.status_code for a in again} == {403}
    assert "spelling it was issued in" in again[0].text
    assert len(seen) == 2


async def test_tiles_count_in_their_keys_quota_and_past_it_get_429_with_retry_after() -> None:
    async with tile_route(image(), pacer=unpaced(quota_per_minute=3)) as (client, tokens, seen):
        grants = [tokens.seal(KEY, ["basemap"])[0] for _ in range(5)]  # each within its rate
        answers = [await client.get(f"/tiles/basemap/2/1/1.png?t={t}") for t in grants]
        other = await client.get(f"/tiles/basemap/2/1/1.png?t={tokens.seal('K2', ['basemap'])[0]}")
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    assert "requests per minute on this server are used up" in answers[3].text
    assert 55 <= int(answers[3].headers["retry-after"]) <= 60
    assert other.status_code == 200, "the quota is the key's"
    assert len(seen) == 4


async def test_a_keys_api_calls_and_its_tiles_share_one_quota() -> None:
    pacer = unpaced(quota_per_minute=3)
    api = httpx.MockTransport(lambda _: httpx.Response(200, json={}))
    tomtom = TomTomClient(api, TOMTOM, default_key=None, pacer=pacer)
    await tomtom.geocode("Amsterdam", key=KEY)
    await tomtom.geocode("Utrecht", key=KEY)
    async with tile_route(image(), pacer=pacer) as (client, tokens, _):
        token = tokens.seal(KEY, ["basemap"])[0]
        tiles = [await client.get(f"/tiles/basemap/2/1/1.png?t={token}") for _ in range(2)]
    assert [t.status_code for t in tiles] == [200, 429]
    with pytest.raises(QuotaError):
        await tomtom.geocode("Berlin", key=KEY)


async def test_tomtoms_429_for_a_tile_holds_the_keys_tiles_until_its_retry_after() -> None:
    async with tile_route(image(429, **{"retry-after": "30"})) as (client, tokens, seen):
        token = tokens.seal(KEY, ["basemap"])[0]
        first = await client.get(f"/tiles/basemap/2/1/1.png?t={token}")
        second = await client.get(f"/tiles/basemap/2/1/2.png?t={token}")
    assert (first.status_code, second.status_code) == (429, 429)
    assert "tile rate is reached" in second.text and int(second.headers["retry-after"]) >= 29
    assert len(seen) == 1, "the second never reached TomTom"


async def test_a_token_over_its_rate_gets_429_with_retry_after_and_costs_tomtom_nothing() -> None:
    async with tile_route(image(), burst=2) as (client, tokens, seen):
        token = tokens.seal(KEY, ["basemap"])[0]
        answers = [await client.get(f"/tiles/basemap/2/1/1.png?t={token}") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 429, 429]
    assert answers[2].headers["retry-after"] == "1"
    assert "too many tile requests for this token" in answers[2].text
    assert len(seen) == 2


async def test_a_signed_in_users_tiles_spend_their_budget_then_get_429_with_retry_after() -> None:
    budgets = Budgets([Window("minute", 60, 3)], clock=lambda: 1_000_040.0)
    async with tile_route(image(), budgets=budgets) as (client, tokens, seen):
        mine = tokens.seal(KEY, ["basemap"], USER)[0]
        theirs = tokens.seal(KEY, ["basemap"], "f" * 32)[0]
        answers = [await client.get(f"/tiles/basemap/2/1/1.png?t={mine}") for _ in range(4)]
        other = await client.get(f"/tiles/basemap/2/1/1.png?t={theirs}")
        signed_out = await client.get(
            f"/tiles/basemap/2/1/1.png?t={tokens.seal(KEY, ['basemap'])[0]}"
        )
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[3].headers["retry-after"] == "40"  # the minute ends at 1_000_080
    assert "3 TomTom requests per minute" in answers[3].text and "retry in 40 s" in answers[3].text
    assert (other.status_code, signed_out.status_code) == (200, 200)
    assert len(seen) == 5, "the refused tile cost TomTom nothing"


def test_map_tiles_give_templates_with_one_token_for_the_layers_asked() -> None:
    tiles = Tiles(
        tokens=TileTokens([SECRET], 600),
        limiter=RateLimiter(1.0, 1),
        api_base_url=TOMTOM,
        public_base_url="https://maps.example.test/tiles",
        max_bytes=1024,
        placement=INLINE,
        pacer=unpaced(),
        user_agent=USER_AGENT,
    )
    granted = tiles.map_tiles(KEY, ["traffic_flow", "basemap"])
    assert list(granted.templates) == ["basemap", "traffic_flow"]
    tokens = {t.rsplit("t=", 1)[1] for t in granted.templates.values()}
    assert len(tokens) == 1
    assert tiles.tokens.open(tokens.pop()).layers == {"basemap", "traffic_flow"}
    assert granted.templates["basemap"].startswith(
        "https://maps.example.test/tiles/basemap/{z}/{x}/{y}.png?t="
    )
