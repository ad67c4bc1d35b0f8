"""The HTTP client library alone: the short route's request and a tile fetched through
aiohttp (the server's one seam, `server.outbound`) and through httpx, in one run.

    .venv/bin/python -m benchmarks.http_clients [--quick] [--requests 1000]

A stand-in TomTom (`tests.standin`, its clock fixed, so every answer after the first
comes from its cache) serves both on 127.0.0.1 over kept-alive connections. This
process fetches, one request at a time: calculateRoute from Rotterdam to Cologne as
the routing tool asks for it (gzipped, read as received) and a 256-pixel basemap tile.
The clients take turns request by request, in a fresh random order each turn, so a
shared machine's drift falls on all alike and each client follows each other as often. Clients:

- aiohttp through the seam, exactly as the server sends: the route as `TomTomClient`
  does (`outbound.tomtom_api`, its timeouts and deadline), the tile as the tile route
  does (`outbound.tiles`);
- aiohttp alone, as the tile route used it before the seam (a session of its own,
  `ClientTimeout` with a total, `params`); the route with the same timeouts: what the
  seam adds to aiohttp;
- httpx's transport alone (`AsyncHTTPTransport`, httpcore's HTTP/1.1), the leanest
  httpx path, with no `AsyncClient` layers;
- httpx's `AsyncClient`, as most code uses it.

The figure that compares libraries is CPU per request of this process: the client's own
work (the request made and sent, the answer parsed, the body read) and the kernel's on
its socket; the stand-in's work is not in it. The wall-time p50 is beside it. Taking turns
request by request matters: a client run in batches finds its code warm in the caches,
and in a fixed order each pays for what the one before it left the event loop to do.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import httpx
from yarl import URL

from loadtest.stats import format_table, percentile
from loadtest.topology import OFFLINE_KEY, free_port, start, stop, wait_ready
from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.product import user_agent
from tomtom_mcp_apps.server.tomtom import coordinate
from tomtom_mcp_apps.server.tomtom._client import request_url
from tomtom_mcp_apps.server.tools._route_options import DEFAULT_SECTIONS, route_params

CLOCK = "2026-12-01T12:00:00+00:00"
ROUTE = [[4.48, 51.92], [6.96, 50.94]]
"""Rotterdam to Cologne, `benchmarks.short_calls`'s short route: 4,342 points."""
AGENT = user_agent()
HEADERS = {"accept": "*/*", "accept-encoding": "gzip", "user-agent": AGENT}
CAP = 32 * 1024 * 1024
DEADLINE_S = 10.0
"""`TOMTOM_TIMEOUT_S`'s default: the deadline of an API call and of a tile."""


@dataclass(frozen=True)
class Case:
    url: str
    """Without the query when `params` carry it (a tile, as the tile route sends it)."""
    params: tuple[tuple[str, str], ...] = ()

    @property
    def full(self) -> str:
        return str(URL(self.url).extend_query(self.params)) if self.params else self.url


Fetch = Callable[[Case], Awaitable[int]]
"""Fetches a case whole, as received; the body's length."""


def cases(base: str) -> dict[str, Case]:
    locations = ":".join(f"{coordinate(lat)},{coordinate(lon)}" for lon, lat in ROUTE)
    query = [
        ("instructionsType", "text"),
        ("extendedRouteRepresentation", "distance"),
        ("extendedRouteRepresentation", "travelTime"),
        *(("sectionType", s) for s in DEFAULT_SECTIONS),
        *route_params(),
        ("key", OFFLINE_KEY),
    ]
    route = request_url(base, f"/routing/1/calculateRoute/{locations}/json", query)
    tile = Case(
        f"{base}/map/1/tile/basic/main/6/32/20.png", (("tileSize", "256"), ("key", OFFLINE_KEY))
    )
    return {"short route": Case(route), "tile": tile}


@contextlib.asynccontextmanager
async def seam() -> AsyncIterator[Fetch]:
    api = outbound.Client(outbound.tomtom_api(4))
    tiles = outbound.tiles(connections=4, timeout_s=DEADLINE_S, user_agent=AGENT)
    timeouts = outbound.Timeouts.within(DEADLINE_S)

    async def fetch(case: Case) -> int:
        if case.params:  # a tile, as `server.tiles` asks for it
            url = request_url(case.url, "", case.params)
            exchange = tiles.request("GET", url, encoded=True)
        else:  # an API call, as `TomTomClient` sends it
            exchange = api.request(
                "GET",
                case.url,
                headers=HEADERS,
                timeouts=timeouts,
                deadline_s=DEADLINE_S,
                encoded=True,
            )
        async with exchange as answer:
            body = await answer.read(CAP)
            assert answer.status == 200 and body is not None
            return len(body)

    try:
        yield fetch
    finally:
        await api.aclose()
        await tiles.aclose()


@contextlib.asynccontextmanager
async def aiohttp_alone() -> AsyncIterator[Fetch]:
    tile_timeout = aiohttp.ClientTimeout(total=DEADLINE_S, connect=5.0, sock_read=DEADLINE_S)
    api_timeout = aiohttp.ClientTimeout(connect=DEADLINE_S, sock_connect=5.0, sock_read=DEADLINE_S)
    connector = aiohttp.TCPConnector(limit=4, keepalive_timeout=outbound.KEEPALIVE_S)
    async with aiohttp.ClientSession(
        connector=connector,
        timeout=tile_timeout,
        auto_decompress=False,
        headers={"accept-encoding": "gzip", "user-agent": AGENT},
    ) as session:

        async def read(made: Any) -> int:
            async with made as response:
                size = sum([len(chunk) async for chunk in response.content.iter_any()])
                assert response.status == 200
                return size

        async def fetch(case: Case) -> int:
            if case.params:  # as the tile route fetched a tile
                return await read(
                    session.get(case.url, params=dict(case.params), allow_redirects=False)
                )
            async with asyncio.timeout(DEADLINE_S):  # as the API transport sent a request
                return await read(
                    session.request(
                        "GET",
                        URL(case.url, encoded=True),
                        headers=HEADERS,
                        allow_redirects=False,
                        timeout=api_timeout,
                    )
                )

        yield fetch


@contextlib.asynccontextmanager
async def httpx_transport() -> AsyncIterator[Fetch]:
    transport = httpx.AsyncHTTPTransport()

    async def fetch(case: Case) -> int:
        request = httpx.Request("GET", case.full, headers=HEADERS)
        response = await transport.handle_async_request(request)
        try:
            size = sum([len(chunk) async for chunk in response.aiter_raw()])
            assert response.status_code == 200
            return size
        finally:
            await response.aclose()

    try:
        yield fetch
    finally:
        await transport.aclose()


@contextlib.asynccontextmanager
async def httpx_client() -> AsyncIterator[Fetch]:
    async with httpx.AsyncClient(timeout=DEADLINE_S) as client:

        async def fetch(case: Case) -> int:
            async with client.stream("GET", case.full, headers=HEADERS) as response:
                size = sum([len(chunk) async for chunk in response.aiter_raw()])
                assert response.status_code == 200
                return size

        yield fetch


CLIENTS = {
    "aiohttp (server.outbound)": seam,
    "aiohttp alone": aiohttp_alone,
    "httpx transport (httpcore)": httpx_transport,
    "httpx AsyncClient": httpx_client,
}


@dataclass
class Measured:
    """One client's figures for one case."""

    walls: list[float]
    """Milliseconds per request."""
    cpu_ms: float
    """CPU per request of this process: the client's own work, and the kernel's on its
    sockets."""


async def measure(base: str, requests: int) -> dict[tuple[str, str], Measured]:
    """(client, case) -> its figures, `requests` of each: request by request, the clients
    in turn, in a fresh random order each turn, so that each client follows each other
    as often (what one library leaves for the loop to do after its request falls on
    whichever request comes next)."""
    chosen = cases(base)
    measured: dict[tuple[str, str], Measured] = {}
    async with contextlib.AsyncExitStack() as stack:
        fetchers = {name: await stack.enter_async_context(make()) for name, make in CLIENTS.items()}
        for fetch in fetchers.values():  # warm: connections, caches, the stand-in's cache
            for case in chosen.values():
                for _ in range(3):
                    await fetch(case)
        names = list(fetchers)
        turns = random.Random(0)
        for _ in range(requests):
            for label, case in chosen.items():
                order = turns.sample(names, len(names))
                for name in order:
                    into = measured.setdefault((name, label), Measured([], 0.0))
                    cpu = time.process_time()
                    started = time.perf_counter()
                    await fetchers[name](case)
                    into.walls.append((time.perf_counter() - started) * 1000)
                    into.cpu_ms += (time.process_time() - cpu) * 1000
    for figures in measured.values():
        figures.cpu_ms /= len(figures.walls)
    return measured


def report(results: dict[tuple[str, str], Measured]) -> str:
    rows = []
    for case in ("short route", "tile"):
        reference = results["aiohttp (server.outbound)", case].cpu_ms
        for name in CLIENTS:
            m = results[name, case]
            rows.append(
                [case, name, len(m.walls), f"{percentile(m.walls, 50):.3f}", f"{m.cpu_ms:.3f}",
                 f"{m.cpu_ms / reference:.2f}x"]
            )  # fmt: skip
    headers = ["case", "client", "requests", "wall p50 ms", "CPU ms", "vs the seam"]
    return format_table(headers, rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="60 requests per client and case")
    parser.add_argument("--requests", type=int, default=1000, help="per client and case")
    args = parser.parse_args(argv)
    requests = 60 if args.quick else args.requests
    with tempfile.TemporaryDirectory(prefix="http-clients-") as tmp:
        port = free_port()
        command = [sys.executable, "-m", "tests.standin", "--clock", CLOCK, "--port", str(port)]
        standin = start("standin", command, port, Path(tmp), None)
        try:
            wait_ready(standin, 60)
            results = asyncio.run(measure(standin.url, requests))
        finally:
            stop([standin])
    print(f"HTTP clients, one request at a time against a stand-in TomTom; {requests} requests")
    print(report(results))


if __name__ == "__main__":
    main()
