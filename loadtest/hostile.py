"""The hostile suite: each attack a stranger could make, against one real replica.

    python -m loadtest.hostile            # every attack, full size
    python -m loadtest.hostile --quick    # the same attacks, lighter: what the tests run
    python -m loadtest.hostile --only stacked,sign-in   # attacks whose name has a word

Starts the offline upstream as its own process (standing in for TomTom and for a
caller's `data_url` host: it answers hostile bodies on request by key, `server.offline`
HOSTILE_KEYS) and one replica with its defaults but for what an attack needs (a
per-key quota of `QUOTA_PER_MIN`, a small tile burst, private `data_url`s allowed, this
suite trusted as a proxy so that `X-Forwarded-For` names a client; `--quick` also cuts
slow clients after 2 s instead of the defaults' 10 s and 30 s). The attacks on sign-in
then run against a second replica with sign-in on (`loadtest.issuer` as its
authorization server, opaque tokens introspected, `ALLOWED_HOSTS=*`, no trusted proxy,
the client rate on with a burst of `SIGNED_IN_BURST`), the probe signed in.
Callers with a `tomtom-api-key` header reach the hostile upstream; the probe, a
keyless geocode sent again and again throughout (as a client of its own), is answered
by the replica's built-in offline upstream, so it measures the replica and nothing else.

Per attack it prints the answer, the replica's peak RSS growth (its process group:
server and fitting workers, sampled every 0.1 s by a process of its own, from
/proc) over its RSS just before, the slowest probe geocode that started while the
attack ran, and whether the replica still answered `/health` afterwards. Targets:
RSS growth under `MAX_RSS_GROWTH_MB`, the slowest geocode under `MAX_GEOCODE_MS`,
no crash. Exit 1 when an attack misses a target or its expected answer.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import queue
import random
import re
import string
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import httpx
import jwt
import orjson
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from loadtest.issuer import KID
from loadtest.stats import format_table
from loadtest.topology import (
    PeakRss,
    Service,
    cli,
    free_port,
    replica_env,
    start,
    stop,
    wait_listening,
    wait_ready,
)
from loadtest.wire import CallFailed, ToolError, call_tool, result_text
from tomtom_mcp_apps.server.auth import REFUSALS_PER_MIN

MAX_RSS_GROWTH_MB = 300
MAX_GEOCODE_MS = 2000
QUOTA_PER_MIN = 8
TILE_BURST = 4
MIB = 1024 * 1024
CLIENT_RATE_PER_S = 20  # the defaults
CLIENT_MAX_IN_FLIGHT = 32
CLIENT_BURST = 200
SLOW_CLIENT_GIVE_UP_S = 90
PROBE_CLIENT = "198.51.100.1"
FLOODER = "198.51.100.66"
HOLDER = "198.51.100.77"
"""The probe's, the flooding and the holding clients' addresses, as the trusted proxy
(this suite, on 127.0.0.1) names them; every other attack is 127.0.0.1 itself."""
QUICK = {"HTTP_HEADER_TIMEOUT_S": "2", "HTTP_BODY_TIMEOUT_S": "2"}
"""The quick run's replica: slow clients cut sooner (the defaults, 10 s and 30 s, in full)."""
MCP_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}
PROBE_CALL = ("tomtom-geocode", {"query": "Damrak 1, Amsterdam", "show_ui": False})
SIGNED_IN_BURST = 50
"""The sign-in replica's `CLIENT_BURST`: small enough for a flood to reach the rate soon."""
OPAQUE = "the-one-active-opaque-token"
CLIENT = ("hostile-rs", "hostile-rs-secret")
MAX_STARTUP_S = 60


@dataclass
class SignIn:
    """The authorization server of the sign-in replica, and tokens signed by its key."""

    issuer: Service
    key: rsa.RSAPrivateKey
    audience: str

    def token(self, sub: str, **more: Any) -> str:
        """A valid access token of `sub` for the replica (with `more` claims)."""
        now = int(time.time())
        claims = {
            "iss": self.issuer.url,
            "sub": sub,
            "aud": self.audience,
            "iat": now,
            "exp": now + 3600,
            **more,
        }
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": KID})

    def bearer(self, sub: str) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token(sub)}"}

    async def asked(self, http: httpx.AsyncClient) -> dict[str, int]:
        return (await http.get(f"{self.issuer.url}/_asked")).json()


@dataclass
class Target:
    """The replica under attack, the hostile upstream beside it, and one client for both."""

    replica: Service
    upstream: Service
    http: httpx.AsyncClient
    quick: bool
    sign_in: SignIn | None = None

    @property
    def mcp_url(self) -> str:
        return f"{self.replica.url}/mcp"

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        key: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> str:
        """What the caller got, in a few words: "ok", "tool error: ...", "HTTP 4xx: ..."."""
        headers = {**({"tomtom-api-key": key} if key else {}), **(headers or {})}
        try:
            result = await call_tool(self.http, self.mcp_url, tool, arguments, headers)
        except (ToolError, CallFailed) as exc:
            return str(exc)[:160]
        if result.get("isError"):
            return "tool error: " + result_text(result).removeprefix("Error executing tool ")[:160]
        return "ok"

    async def tile_templates(self, key: str, layers: Sequence[str] = ("basemap",)) -> list[str]:
        """The tile URL templates of a fresh grant for `key` (`tomtom-get-map-config`)."""
        result = await call_tool(
            self.http,
            self.mcp_url,
            "tomtom-get-map-config",
            {"layers": list(layers)},
            {"tomtom-api-key": key},
        )
        config = result["_meta"]["com.tomtom/map-config"]
        return [config["tiles"][layer] for layer in layers]

    async def metric_series(self) -> int:
        """Samples on `/metrics` (one per label combination and histogram bucket)."""
        response = await self.http.get(f"{self.replica.url}/metrics")
        return sum(1 for line in response.text.splitlines() if line and line[0] != "#")

    async def get(self, url: str | httpx.URL) -> tuple[int, int, str]:
        """(status, bytes as received, content coding) of a GET, its body never decoded:
        a hostile answer must cost the replica, not this suite."""
        async with self.http.stream("GET", url) as response:
            size = 0
            async for chunk in response.aiter_raw():
                size += len(chunk)
                if size > 64 * MIB:
                    break
            return response.status_code, size, response.headers.get("content-encoding", "none")


def tile_url(template: str, z: int, x: int, y: int) -> str:
    return template.replace("{z}", str(z)).replace("{x}", str(x)).replace("{y}", str(y))


def token_of(url: str) -> str:
    return httpx.URL(url).params["t"]


# --- the attacks -----------------------------------------------------------------------------


async def data_url_stacked(t: Target) -> str:
    """A `data_url` answering 373 bytes under `Content-Encoding: gzip, gzip, gzip`: 4 GiB
    once every layer is decoded."""
    url = f"{t.upstream.url}/data.geojson?key=offline-stacked-gzip"
    return await t.call("tomtom-data-viz", {"data_url": url})


async def data_url_bomb(t: Target) -> str:
    """A `data_url` answering a 250 KB gzip body of 256 MiB of zeros."""
    url = f"{t.upstream.url}/data.geojson?key=offline-gzip-bomb"
    return await t.call("tomtom-data-viz", {"data_url": url})


async def data_url_unknown_coding(t: Target) -> str:
    """A `data_url` answering in a content coding nobody asked for (`br`)."""
    url = f"{t.upstream.url}/search/2/geocode/x.json?key=offline-unknown-encoding"
    return await t.call("tomtom-data-viz", {"data_url": url})


async def error_stacked(t: Target) -> str:
    """TomTom answering HTTP 500 with the stacked 4 GiB body."""
    return await t.call("tomtom-geocode", {"query": "x"}, key="offline-stacked-500")


async def error_bomb(t: Target) -> str:
    """TomTom answering HTTP 500 with a gzip bomb as its body."""
    return await t.call("tomtom-geocode", {"query": "x"}, key="offline-error-bomb")


async def answer_stacked(t: Target) -> str:
    """TomTom answering 200 with the stacked 4 GiB body."""
    return await t.call("tomtom-fuzzy-search", {"query": "x"}, key="offline-stacked-gzip")


async def route_lying_bomb(t: Target) -> str:
    """A route answer of 256 MiB of zeros whose gzip trailer claims 1 KiB: decoded where
    the claim places it."""
    arguments = {"locations": [[4.89, 52.37], [5.12, 52.09]]}
    return await t.call("tomtom-routing", arguments, key="offline-lying-gzip-bomb")


async def tile_stacked(t: Target) -> str:
    """A tile answered under `gzip, gzip, gzip`."""
    (template,) = await t.tile_templates("offline-stacked-gzip")
    status, size, encoding = await t.get(tile_url(template, 3, 4, 2))
    return f"HTTP {status} ({size} bytes, coding {encoding})"


def respellings(token: str) -> list[str]:
    """The same token's bytes spelled otherwise: the standard base64 alphabet, `=` padding,
    stray characters a lenient decoder skips."""
    padded = token + "=" * (-len(token) % 4)
    standard = padded.translate(str.maketrans("-_", "+/"))
    others = [padded, standard, token + "=", token + "====", token[:8] + "\n" + token[8:]]
    return [other for other in dict.fromkeys(others) if other != token]


async def tile_token_respelled(t: Target) -> str:
    """One grant's token spent down to 429, then the same token spelled other ways."""
    (template,) = await t.tile_templates("respell-key")
    url = tile_url(template, 2, 1, 1)
    token = token_of(url)
    statuses = [(await t.get(url))[0] for _ in range(TILE_BURST + 1)]
    respelled = [
        (await t.get(httpx.URL(url).copy_set_param("t", other)))[0] for other in respellings(token)
    ]
    served = sum(1 for status in respelled if status == 200)
    return (
        f"canonical: {statuses.count(200)} served then {statuses[-1]}; "
        f"respelled: {served}/{len(respelled)} served ({sorted(set(respelled))})"
    )


async def tiles_past_quota(t: Target) -> str:
    """Sixteen tiles of one key, from four grants (each within its burst), under a quota of
    `QUOTA_PER_MIN` TomTom requests per minute."""
    statuses = []
    for _ in range(4):
        (template,) = await t.tile_templates("quota-key")
        for x in range(TILE_BURST):
            statuses.append((await t.get(tile_url(template, 4, x, 5)))[0])
    served = statuses.count(200)
    return f"{served} of {len(statuses)} served, then {sorted(set(statuses) - {200})}"


async def made_up_tools(t: Target) -> str:
    """`tools/call` with 40 random tool names: does each add a metric series? (One made-up
    name first: the first unknown tool may add the `other` value's series, once.)"""
    await t.call("made-up-tool-first", {})
    before = await t.metric_series()
    for _ in range(40):
        name = "".join(random.choices(string.ascii_lowercase, k=12))
        await t.call(name, {})
    after = await t.metric_series()
    return f"{after - before:+d} metric series after 40 made-up tools"


async def one_client_floods(t: Target) -> str:
    """One client (its own `X-Forwarded-For`, from a trusted proxy) sends 400 `ping`s at
    once: past its burst and rate it is refused, and the probe, another client, is not."""
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    headers = {**MCP_HEADERS, "x-forwarded-for": FLOODER}

    async def one() -> int:
        return (await t.http.post(t.mcp_url, content=body, headers=headers)).status_code

    begun = time.monotonic()
    statuses = await asyncio.gather(*(one() for _ in range(400)))
    took = time.monotonic() - begun
    refused = sorted(set(statuses) - {200})
    served = statuses.count(200)
    bound = CLIENT_BURST + CLIENT_RATE_PER_S * took  # what the bucket holds in that time
    within = "within" if served <= bound + 1 else "PAST"
    return (
        f"{served} of 400 served in {took:.1f} s ({within} its burst + rate: {bound:.0f}), "
        f"then {refused}"
    )


async def body_too_large(t: Target) -> str:
    """`POST /mcp` with 64 MiB: declared (Content-Length), then streamed undeclared."""

    async def stream() -> AsyncIterator[bytes]:
        for _ in range(64):
            yield b" " * MIB

    answers = []
    for content in (b" " * (64 * MIB), stream()):
        try:
            response = await t.http.post(t.mcp_url, content=content, headers=MCP_HEADERS)
            answers.append(f"HTTP {response.status_code}")
        except httpx.HTTPError as exc:  # refused and closed while still sending
            answers.append(f"closed ({type(exc).__name__})")
    return f"declared: {answers[0]}; streamed: {answers[1]}"


async def _held_body(t: Target, headers: str = "") -> tuple[str, float]:
    """A `POST /mcp` whose body never comes (it declares 1,000 bytes, sends one): the
    status the replica answers with (or "closed", "never answered") and when."""
    host, port = t.replica.url.removeprefix("http://").rsplit(":", 1)
    start = (
        f"POST /mcp HTTP/1.1\r\nhost: {host}\r\n{headers}content-type: application/json\r\n"
        "content-length: 1000\r\n\r\n{"
    ).encode()
    begun = time.monotonic()
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(start)
        async with asyncio.timeout(SLOW_CLIENT_GIVE_UP_S):
            line = await reader.readline()
        status = line.decode("latin-1").split(" ")[1] if line else "closed"
    except TimeoutError:
        status = "never answered"
    finally:
        writer.close()
    return status, time.monotonic() - begun


async def one_client_holds_calls(t: Target) -> str:
    """One client opens 200 calls whose bodies never finish: it holds its share of the
    replica's calls in flight (until the body deadline), the rest are refused at once,
    and other clients (the probe) are served meanwhile."""
    headers = f"x-forwarded-for: {HOLDER}\r\n"
    answers = await asyncio.gather(*(_held_body(t, headers) for _ in range(200)))
    by_status: dict[str, list[float]] = {}
    for status, took in answers:
        by_status.setdefault(status, []).append(took)
    return "; ".join(
        f"{len(times)} {status} after {min(times):.0f}-{max(times):.0f} s"
        for status, times in sorted(by_status.items())
    )


async def slow_clients(t: Target) -> str:
    """64 connections sending their headers a byte a second, and 64 sending their body so:
    each closed by the replica at its header or body deadline."""
    host, port = t.replica.url.removeprefix("http://").rsplit(":", 1)
    head = f"POST /mcp HTTP/1.1\r\nhost: {host}\r\n".encode()
    whole = head + b"content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"

    async def dribble(start: bytes) -> float:
        begun = time.monotonic()
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(start)
            async with asyncio.timeout(SLOW_CLIENT_GIVE_UP_S):
                while not reader.at_eof():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(1):
                            if await reader.read(65536) == b"":
                                break
                    writer.write(b"x")
                    await writer.drain()
        except TimeoutError:
            return float("inf")  # never closed: the deadline did not hold
        except ConnectionError:
            pass  # closed while this client was still writing
        finally:
            writer.close()
        return time.monotonic() - begun

    headers = await asyncio.gather(*(dribble(head + b"x-slow: ") for _ in range(64)))
    bodies = await asyncio.gather(*(dribble(whole) for _ in range(64)))
    return (
        f"slow headers closed after {max(headers):.0f} s, "
        f"slow bodies after {max(bodies):.0f} s (64 each)"
    )


async def open_key(t: Target) -> str:
    """`serve --host 0.0.0.0` with an operator's key and no sign-in, as the shipped image
    runs it: does it start and spend the key for anyone who reaches it?"""
    port = free_port()
    env = {**replica_env(None), "TOMTOM_API_KEY": "operators-key", "OPEN_KEY": ""}
    env["TILE_TOKEN_SECRET"] = "hostile-suite-tile-secret-0123456789abcdef"
    command = cli(["serve"], port)
    command[command.index("127.0.0.1")] = "0.0.0.0"
    process = await asyncio.create_subprocess_exec(
        *command, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    try:
        async with asyncio.timeout(MAX_STARTUP_S):
            _, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        return "started (listening on 0.0.0.0)"
    said = err.decode().strip()
    named = "refused, naming OPEN_KEY=accept" if "OPEN_KEY=accept" in said else said[-100:]
    return f"exit {process.returncode}: {named}"


# --- with sign-in on --------------------------------------------------------------------------


def _signed(t: Target) -> SignIn:
    assert t.sign_in is not None, "an attack on sign-in runs against the sign-in replica"
    return t.sign_in


async def _ping(t: Target, headers: dict[str, str | bytes] | None = None) -> int:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    response = await t.http.post(
        t.mcp_url, content=body, headers={**MCP_HEADERS, **(headers or {})}
    )
    return response.status_code


async def anonymous_flood(t: Target) -> str:
    """400 token-less calls at once from one address while a signed-in user of the same
    address (a hosted host's egress) makes 20 calls: the strangers meet the address's rate,
    the user is served."""
    user = _signed(t).bearer("hosted-user")
    await t.call(*PROBE_CALL, headers=user)  # the conversation's token, verified once

    async def users_calls() -> int:
        outcomes = [await t.call(*PROBE_CALL, headers=user) for _ in range(20)]
        return outcomes.count("ok")

    statuses, served = await asyncio.gather(
        asyncio.gather(*(_ping(t) for _ in range(400))), users_calls()
    )
    counted = {status: statuses.count(status) for status in sorted(set(statuses))}
    said = ", ".join(f"{n} {status}" for status, n in counted.items())
    return f"{said} of 400 token-less {sorted(counted)}; signed-in user: {served} of 20 served"


async def slow_bodies_without_a_token(t: Target) -> str:
    """64 calls without a token whose bodies never come: answered from their headers at
    once, none held until the body deadline; a signed-in call is served meanwhile."""
    user = _signed(t).bearer("patient-user")
    await t.call(*PROBE_CALL, headers=user)  # the conversation's token, verified once
    answers = await asyncio.gather(*(_held_body(t) for _ in range(64)))
    served = await t.call(*PROBE_CALL, headers=user)
    statuses = sorted({status for status, _ in answers})
    longest = max(took for _, took in answers)
    return f"{statuses} within {longest:.1f} s (64 held bodies); signed-in call: {served}"


async def made_up_opaque_tokens(t: Target) -> str:
    """40 made-up opaque tokens from one address (introspection on): how many reach the
    issuer?"""
    before = (await _signed(t).asked(t.http)).get("introspect", 0)
    statuses = []
    began = time.monotonic()
    for _ in range(40):
        token = "".join(random.choices(string.ascii_letters + string.digits, k=40))
        statuses.append(await _ping(t, {"authorization": f"Bearer {token}"}))
        await asyncio.sleep(0.06)  # within the address's rate: the issuer's bound, not its
    took = time.monotonic() - began
    asked = (await _signed(t).asked(t.http)).get("introspect", 0) - before
    # The refusals' bucket: a burst of REFUSALS_PER_MIN, refilled at that rate meanwhile.
    bound = REFUSALS_PER_MIN + int(took * REFUSALS_PER_MIN / 60)
    verdict = "within" if asked <= bound else "OVER"
    return (
        f"issuer asked {asked} times for 40 tokens in {took:.1f} s, {verdict} its bound "
        f"({bound}); answers {sorted(set(statuses))}"
    )


def _fuzzed_authorization(signed: SignIn) -> str:
    """A made-up `Authorization` value a client can send (h11 refuses trailing blanks)."""
    good = signed.token("fuzz")
    header, payload, signature = good.split(".")
    choices = [
        lambda: "Bearer " + "".join(random.choices(string.printable[:94], k=random.randint(1, 64))),
        lambda: "Bearer " + "A" * random.randint(16_000, 20_000),
        lambda: "Bearer " + ".".join(random.choices([header, payload, signature, "e30", ""], k=3)),
        lambda: f"Bearer {header}.{payload[::-1]}.{signature}",
        lambda: f"Bearer {good}.{good}",
        lambda: random.choice(["Basic dXNlcjpwYXNz", "bearer", "Bearer", "Token x", "Bearer  x"]),
        lambda: "Bearer é" + "x" * 10,
        lambda: "Bearer " + jwt.encode({"sub": "x"}, "", algorithm="none").rstrip("."),
    ]
    return random.choice(choices)()


async def fuzz_the_gate(t: Target) -> str:
    """300 calls with made-up `Authorization` headers, the client rate on: every answer a
    refusal (401, 403 or the rate's 429), never a 5xx, the replica up."""
    signed = _signed(t)

    async def one() -> str:
        value = _fuzzed_authorization(signed)
        try:
            return str(await _ping(t, {"authorization": value.encode("utf-8")}))
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__} ({len(value)} chars)"

    statuses = await asyncio.gather(*(one() for _ in range(300)))
    counted = {status: statuses.count(status) for status in sorted(set(statuses))}
    failed = sum(n for status, n in counted.items() if not status.startswith("4"))
    return f"{counted}; {failed} 5xx or dropped"


async def id_token(t: Target) -> str:
    """An ID token of the issuer (OpenID Connect's `at_hash`, `nonce`) as an access token."""
    token = _signed(t).token("id-user", at_hash="x1y2", nonce="n")
    response = await t.http.post(
        t.mcp_url,
        content=orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        headers={**MCP_HEADERS, "authorization": f"Bearer {token}"},
    )
    said = response.json().get("error_description", "")
    return f"HTTP {response.status_code}: {said}"


async def map_config_again_and_again(t: Target) -> str:
    """One signed-in user asks for the map config 10 times: a fresh grant (and tile bucket)
    each time, or the one they hold?"""
    user = _signed(t).bearer("mapper")
    tokens = set()
    for _ in range(10):
        result = await call_tool(
            t.http,
            t.mcp_url,
            "tomtom-get-map-config",
            {"layers": ["basemap"]},
            {"tomtom-api-key": "mapper-key", **user},
        )
        tokens.add(token_of(result["_meta"]["com.tomtom/map-config"]["tiles"]["basemap"]))
    return f"{len(tokens)} grant(s) for 10 calls"


async def default_budget(t: Target) -> str:
    """A signed-in user with the budgets left at their defaults (no USER_QUOTA_*) asks for
    map configs, each worth a TomTom request, until refused (within one minute window)."""
    for attempt in range(2):
        window = int(time.time() // 60)
        user = _signed(t).bearer(f"budget-user-{attempt}-{time.monotonic_ns()}")
        served, refusal = 0, ""
        while served < 400 and not refusal:
            try:
                result = await call_tool(
                    t.http,
                    t.mcp_url,
                    "tomtom-get-map-config",
                    {"layers": ["basemap"]},
                    {"tomtom-api-key": "budget-key", **user},
                )
            except ToolError as exc:
                if "HTTP 429" in str(exc):  # the user's own rate: wait for it
                    await asyncio.sleep(1)
                    continue
                raise
            if result.get("isError"):
                refusal = result_text(result)[:200]
            else:
                served += 1
        if int(time.time() // 60) == window:
            return f"{served} served, then: {refusal}"
    return "two runs straddled a minute's end"


async def forwarded_for_tiles(t: Target) -> str:
    """80 tile requests from one peer, each naming another client in `X-Forwarded-For`,
    with no trusted proxy: one client (its peer) whatever the header says."""
    statuses = []
    for n in range(80):
        url = f"{t.replica.url}/tiles/basemap/1/0/0.png?t=x"
        forwarded = {"x-forwarded-for": f"198.18.{n // 250}.{n % 250 + 1}"}
        statuses.append((await t.http.get(url, headers=forwarded)).status_code)
    counted = {status: statuses.count(status) for status in sorted(set(statuses))}
    return f"{counted} of 80"


async def rebinding_page(t: Target) -> str:
    """`ALLOWED_HOSTS=*`: a page on a rebound name (its own Host and Origin) drives `/mcp`
    with a signed-in user's token; and the same call with no Origin (no browser)."""
    headers = {**MCP_HEADERS, **_signed(t).bearer("rebound-user")}
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    page = {"host": "rebound.attacker.example", "origin": "http://rebound.attacker.example"}
    rebound = await t.http.post(t.mcp_url, content=body, headers={**headers, **page})
    plain = await t.http.post(t.mcp_url, content=body, headers={**headers, "host": page["host"]})
    return f"rebound page: HTTP {rebound.status_code}; no Origin: HTTP {plain.status_code}"


@dataclass(frozen=True)
class Attack:
    name: str
    run: Callable[[Target], Awaitable[str]]
    expected: str
    """A regular expression the answer matches once the replica holds against it."""
    signed_in: bool = False
    """Run against the replica with sign-in on."""


ATTACKS: tuple[Attack, ...] = (
    Attack("data_url: stacked gzip, 4 GiB", data_url_stacked, r"stacked"),
    Attack("data_url: gzip bomb, 256 MiB", data_url_bomb, r"larger than"),
    Attack("data_url: unknown coding (br)", data_url_unknown_coding, r"coding"),
    Attack("TomTom 500: stacked gzip body", error_stacked, r"HTTP 500"),
    Attack("TomTom 500: gzip bomb body", error_bomb, r"HTTP 500"),
    Attack("TomTom 200: stacked gzip", answer_stacked, r"stacked"),
    Attack("route: gzip bomb, trailer lies", route_lying_bomb, r"larger than"),
    Attack("tile: stacked gzip", tile_stacked, r"HTTP 502"),
    Attack("tile token: respelled", tile_token_respelled, r"respelled: 0/"),
    Attack(f"tiles: 16 under a quota of {QUOTA_PER_MIN}/min", tiles_past_quota, r"^8 of 16"),
    Attack("metrics: 40 made-up tool names", made_up_tools, r"^\+0 "),
    Attack(
        "one client: 400 requests at once",
        one_client_floods,
        r"within .*, then \[429\]$",
    ),
    Attack(
        "one client: 200 calls held open",
        one_client_holds_calls,
        rf"^{CLIENT_MAX_IN_FLIGHT} 408 after .*; {200 - CLIENT_MAX_IN_FLIGHT} 429 after 0-",
    ),
    Attack(
        "request body: 64 MiB",
        body_too_large,
        r"declared: (HTTP 413|closed).*; streamed: (HTTP 413|closed)",
    ),
    Attack(
        "slow clients: 64 headers, 64 bodies",
        slow_clients,
        r"headers closed after \d+ s, slow bodies after \d+ s",
    ),
    Attack("open key: serve --host 0.0.0.0", open_key, r"^exit 2: .*OPEN_KEY=accept"),
    Attack(
        "sign-in: 400 token-less calls at once",
        anonymous_flood,
        r"\[401, 429\]; signed-in user: 20 of 20 served$",
        signed_in=True,
    ),
    Attack(
        "sign-in: 64 bodies held, no token",
        slow_bodies_without_a_token,
        r"^\['(401|429)'(, '(401|429)')?\] within [0-4]\.\d s .*signed-in call: ok$",
        signed_in=True,
    ),
    Attack(
        "sign-in: 40 made-up opaque tokens",
        made_up_opaque_tokens,
        r"^issuer asked \d+ times for 40 tokens in [0-9.]+ s, within its bound",
        signed_in=True,
    ),
    Attack(
        "sign-in: 300 fuzzed Authorization",
        fuzz_the_gate,
        r"; 0 5xx or dropped$",
        signed_in=True,
    ),
    Attack("sign-in: an ID token", id_token, r"^HTTP 401: .*ID token", signed_in=True),
    Attack(
        "map config: 10 calls of one user",
        map_config_again_and_again,
        r"^1 grant",
        signed_in=True,
    ),
    Attack(
        "budget: a user at the defaults",
        default_budget,
        r"^300 served, then: .*300 TomTom requests per minute",
        signed_in=True,
    ),
    Attack(
        "X-Forwarded-For: 80 tiles, untrusted",
        forwarded_for_tiles,
        r"429",
        signed_in=True,
    ),
    Attack(
        "ALLOWED_HOSTS=*: a rebound page",
        rebinding_page,
        r"^rebound page: HTTP 403; no Origin: HTTP 200$",
        signed_in=True,
    ),
)


# --- running them ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    attack: Attack
    answer: str
    rss_growth: int
    slowest_ms: float
    probes: int
    alive: bool

    @property
    def held(self) -> bool:
        """Every target met and the expected answer given."""
        return (
            self.alive
            and self.rss_growth < MAX_RSS_GROWTH_MB * MIB
            and self.slowest_ms < MAX_GEOCODE_MS
            and re.search(self.attack.expected, self.answer) is not None
        )


class Probe:
    """Keyless geocodes, one after another, in a process of its own (nothing this suite
    does can delay them), for as long as it runs: the slowest of those in flight while
    an attack ran is the attack's figure."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._stopping = spawn.Event()
        self._out: Queue = spawn.Queue()
        args = (url, self._stopping, self._out, headers or {})
        self._process = spawn.Process(target=_probe, args=args)
        self._samples: list[tuple[float, float]] = []

    def __enter__(self) -> Probe:
        self._process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._process.join(timeout=90)
        if self._process.is_alive():
            self._process.kill()

    def _drain(self) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                self._samples.append(self._out.get_nowait())

    async def during(self, work: Awaitable[str]) -> tuple[str, float, int]:
        """`work`'s answer, the slowest probe in flight while it ran, and how many were
        (when none was, the first to start after it ended, waited for up to a minute)."""
        begun = time.monotonic()
        answer = await work
        ended = time.monotonic()
        deadline = ended + 60
        while True:
            self._drain()
            after = [ms for t, ms in self._samples if t >= ended]
            if after or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        during = [ms for t, ms in self._samples if t <= ended and t + ms / 1000 >= begun]
        during = during or after[:1]
        return answer, max(during, default=float("nan")), len(during)


def _probe(url: str, stopping: Event, out: Queue, signed_in: dict[str, str]) -> None:
    async def run() -> None:
        # A client of its own for the rate per client (the others are 127.0.0.1 itself);
        # with sign-in on, a signed-in user, counted as such.
        headers = {"x-forwarded-for": PROBE_CLIENT, **signed_in}
        async with httpx.AsyncClient(timeout=60.0, headers=headers) as client:
            while not stopping.is_set():
                started = time.monotonic()
                try:
                    await call_tool(client, url, *PROBE_CALL)
                    elapsed = time.monotonic() - started
                except (ToolError, CallFailed):
                    elapsed = float("inf")
                out.put((started, elapsed * 1000))
                await asyncio.sleep(0.05)

    asyncio.run(run())


async def run_attack(target: Target, attack: Attack, probe: Probe) -> Row:
    baseline = target.replica.rss_bytes()
    peak = PeakRss(target.replica, every_s=0.1)
    try:
        answer, slowest, probes = await probe.during(attack.run(target))
    finally:
        highest = await peak.stop()
    alive = target.replica.process.poll() is None
    if alive:
        with contextlib.suppress(httpx.HTTPError):
            health = await target.http.get(f"{target.replica.url}/health", timeout=10)
            alive = health.status_code == 200
    return Row(attack, answer, max(0, highest - baseline), slowest, probes, alive)


def table(rows: Sequence[Row]) -> str:
    return format_table(
        ["attack", "answer", "RSS growth MB", "slowest geocode ms", "replica", "held"],
        [
            [
                row.attack.name,
                row.answer[:110],
                f"{row.rss_growth / MIB:.0f}",
                f"{row.slowest_ms:.0f} ({row.probes})",
                "up" if row.alive else "DOWN",
                "yes" if row.held else "NO",
            ]
            for row in rows
        ],
    )


def replica_environment(upstream: Service, port: int, extra: dict[str, str]) -> dict[str, str]:
    """The replica's defaults, but for what the attacks need: the hostile upstream for keyed
    callers (the probe's keyless calls are answered in process), a per-key quota, a small
    tile burst, `data_url`s on 127.0.0.1."""
    env = replica_env(None)
    env.update(
        {
            "TOMTOM_API_BASE_URL": upstream.url,
            "TILE_TOKEN_SECRET": "hostile-suite-tile-secret-0123456789abcdef",
            "PUBLIC_URL": f"http://127.0.0.1:{port}/mcp",
            "TOMTOM_KEY_QUOTA_PER_MIN": str(QUOTA_PER_MIN),
            "TILE_BURST": str(TILE_BURST),
            "TILE_RATE_PER_S": "0.1",
            "LOG_FORMAT": "json",
            "DRAIN_DELAY_S": "0",
            # The front door as deployed behind a proxy (this suite, writing X-Forwarded-For
            # for the flooding client); its rate and share per client at their defaults.
            "TRUSTED_PROXIES": "127.0.0.1/32",
            "CLIENT_RATE_PER_S": str(CLIENT_RATE_PER_S),
            "CLIENT_MAX_IN_FLIGHT": str(CLIENT_MAX_IN_FLIGHT),
            "CLIENT_BURST": str(CLIENT_BURST),
            **extra,
        }
    )
    return env


@contextlib.contextmanager
def services(workdir: Path, extra: dict[str, str]) -> Iterator[tuple[Service, Service]]:
    """The hostile upstream and the replica, both stopped when the block ends."""
    running: list[Service] = []
    try:
        port = free_port()
        upstream = start("upstream", cli(["upstream"], port), port, workdir, dict(os.environ))
        running.append(upstream)
        wait_ready(upstream, 60)
        port = free_port()
        env = replica_environment(upstream, port, extra)
        replica = start("replica", cli(["serve"], port), port, workdir, env)
        running.append(replica)
        wait_ready(replica, 240)
        yield upstream, replica
    finally:
        stop(running)


@contextlib.contextmanager
def signed_in_services(
    workdir: Path, extra: dict[str, str]
) -> Iterator[tuple[Service, Service, SignIn]]:
    """The hostile upstream, an authorization server and a replica with sign-in on."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = workdir / "issuer-key.pem"
    pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    replica_port = free_port()
    audience = f"http://127.0.0.1:{replica_port}/mcp"
    issuer_port = free_port()
    command = [
        sys.executable,
        "-m",
        "loadtest.issuer",
        "--port",
        str(issuer_port),
        "--key",
        str(pem),
        "--client",
        ":".join(CLIENT),
        "--opaque",
        OPAQUE,
        "--audience",
        audience,
    ]
    running: list[Service] = []
    try:
        issuer = start("issuer", command, issuer_port, workdir, dict(os.environ))
        running.append(issuer)
        wait_listening(issuer, 60)
        port = free_port()
        upstream = start("upstream", cli(["upstream"], port), port, workdir, dict(os.environ))
        running.append(upstream)
        wait_ready(upstream, 60)
        sign_in = {
            "OAUTH_ISSUER": issuer.url,
            "OAUTH_INTROSPECTION": "opaque",
            "OAUTH_CLIENT_ID": CLIENT[0],
            "OAUTH_CLIENT_SECRET": CLIENT[1],
            "ALLOWED_HOSTS": "*",
            "TRUSTED_PROXIES": "",  # every request is its peer, whatever X-Forwarded-For says
            "CLIENT_BURST": str(SIGNED_IN_BURST),
            "TOMTOM_KEY_QUOTA_PER_MIN": "0",
        }
        env = replica_environment(upstream, replica_port, {**extra, **sign_in})
        replica = start(
            "replica-signed-in", cli(["serve"], replica_port), replica_port, workdir, env
        )
        running.append(replica)
        wait_ready(replica, 240)
        yield upstream, replica, SignIn(issuer, key, audience)
    finally:
        stop(running)


async def run_suite(
    attacks: Sequence[Attack], *, quick: bool, workdir: Path, extra: dict[str, str] | None = None
) -> list[Row]:
    """Every attack, those without sign-in against one replica, then those on sign-in
    against a replica with sign-in on; the rows in the order of `attacks`."""
    extra = {**(QUICK if quick else {}), **(extra or {})}
    rows: dict[str, Row] = {}
    plain = [a for a in attacks if not a.signed_in]
    signed = [a for a in attacks if a.signed_in]
    if plain:
        with services(workdir, extra) as (upstream, replica):
            async with httpx.AsyncClient(timeout=120.0) as http:
                t = Target(replica, upstream, http, quick)
                await call_tool(t.http, t.mcp_url, *PROBE_CALL)  # warm
                with Probe(t.mcp_url) as probe:
                    if not await _run(t, plain, probe, rows):
                        return list(rows.values())
    if signed:
        with signed_in_services(workdir, extra) as (upstream, replica, sign_in):
            async with httpx.AsyncClient(timeout=120.0) as http:
                t = Target(replica, upstream, http, quick, sign_in)
                probe_user = sign_in.bearer("probe")
                await call_tool(t.http, t.mcp_url, *PROBE_CALL, probe_user)  # warm
                with Probe(t.mcp_url, probe_user) as probe:
                    await _run(t, signed, probe, rows)
    return [rows[a.name] for a in attacks if a.name in rows]


async def _run(t: Target, attacks: Sequence[Attack], probe: Probe, rows: dict[str, Row]) -> bool:
    """Each attack in turn, its row added; False once the replica is down."""
    for attack in attacks:
        row = await run_attack(t, attack, probe)
        print(f"{row.attack.name}: {row.answer[:110]}", file=sys.stderr, flush=True)
        rows[attack.name] = row
        if not row.alive:
            return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="lighter attacks (the tests')")
    parser.add_argument(
        "--only", help="run the attacks whose name contains one of these words (comma-separated)"
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    words = [w.strip() for w in (args.only or "").lower().split(",") if w.strip()]
    attacks = [a for a in ATTACKS if not words or any(w in a.name.lower() for w in words)]
    with tempfile.TemporaryDirectory(prefix="hostile-") as workdir:
        rows = asyncio.run(run_suite(attacks, quick=args.quick, workdir=Path(workdir)))
    print(table(rows))
    if args.json:
        args.json.write_bytes(
            orjson.dumps(
                [
                    {
                        "attack": r.attack.name,
                        "answer": r.answer,
                        "rss_growth_mb": round(r.rss_growth / MIB, 1),
                        "slowest_geocode_ms": r.slowest_ms,
                        "alive": r.alive,
                        "held": r.held,
                    }
                    for r in rows
                ],
                option=orjson.OPT_INDENT_2,
            )
        )
    return 0 if rows and all(row.held for row in rows) and len(rows) == len(attacks) else 1


if __name__ == "__main__":
    sys.exit(main())
