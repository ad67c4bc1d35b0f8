"""What sign-in adds to a call: bearer-token verification, p50 and p99, beside sign-in off,
in the same run.

    .venv/bin/python -m benchmarks.sign_in [--calls 2000]

Measurements, each with its reference from the same run, the keys warm (fetched once
before timing; verification then needs no network):

1. `verify, new token`: `TokenCheck.verify_token` alone on RS256 access tokens (2048-bit
   key, RFC 9068 claims) it has not seen: parse, key lookup, signature, claims, what a
   conversation's first call costs. `verify, again`: the same token again, remembered
   by its hash, what every later call of the conversation costs. Reference: nothing
   (the figure is the cost).
2. `gate`: one request through the whole gate (Starlette's authentication middleware,
   the SDK's context middleware, the scope check) to an endpoint that answers at once,
   over httpx's in-process ASGI transport, against the same endpoint without the gate;
   alternating, `--calls` each; `gate, new token` gives every request a token not
   seen before.
3. `replica`: `tools/call` of `tomtom-report-app-status` (no TomTom request) over real
   HTTP to a replica with sign-in (tokens from oidc-provider's key, the provider run by
   the tests' support) and to one without, alternating, `--calls` each. Two processes
   on a shared 2-core machine: the difference is noisier than the in-process one.

Target: under 0.5 ms added at p50 with a warm key set.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from loadtest.stats import format_table, percentile
from loadtest.topology import cli, free_port, serving
from loadtest.wire import call_tool
from tests.server.auth.support import Issuer, SigningKey, claims, provider
from tomtom_mcp_apps.server.auth import build_sign_in
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.tool_names import REPORT_APP_STATUS

ISSUER = "https://as.example.test"
MCP = "https://maps.example.test/mcp"
REPORT = {"tool": "tomtom-geocode", "status": "ok", "reason": "drawn"}


async def ok(_: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


async def timed(n: int, once: Callable[[], Awaitable[object]]) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await once()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def in_process(calls: int) -> dict[str, tuple[list[float], list[float]]]:
    """`verify` (and an empty reference) and `gate` (with, without) in milliseconds."""
    key = SigningKey.new("k1")
    issuer = Issuer(ISSUER, [key])
    sign_in = build_sign_in(
        Settings(oauth_issuer=ISSUER, public_url=MCP, oauth_scopes=("maps",)),
        transport=issuer.transport(),
    )
    assert sign_in is not None
    token = key.sign(claims(ISSUER, MCP))
    await sign_in.check.verify_token(token)  # the keys, fetched once
    fresh = iter([key.sign(claims(ISSUER, MCP, jti=str(i))) for i in range(3 * calls)])
    first = await timed(calls, lambda: sign_in.check.verify_token(next(fresh)))
    again = await timed(calls, lambda: sign_in.check.verify_token(token))
    gated = sign_in.protect(Route("/mcp", ok, methods=["POST"]))
    app = Starlette(
        routes=[Route("/mcp", gated, methods=["POST"]), Route("/open", ok, methods=["POST"])]
    )
    measured = {"verify, new token": (first, []), "verify, again": (again, [])}
    base = "https://maps.example.test"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base) as c:
        for name, tokens in (("gate", lambda: token), ("gate, new token", lambda: next(fresh))):
            on: list[float] = []
            off: list[float] = []
            for i in range(calls):
                headers = {"authorization": f"Bearer {tokens()}"}
                pair = [(on, "/mcp"), (off, "/open")]
                for into, path in pair if i % 2 == 0 else pair[::-1]:
                    started = time.perf_counter()
                    response = await c.post(path, headers=headers)
                    into.append((time.perf_counter() - started) * 1000)
                    assert response.status_code == 200, response.text
            measured[name] = (on, off)
    await sign_in.http.aclose()
    return measured


async def replicas(calls: int) -> tuple[list[float], list[float]]:
    """`tools/call` milliseconds on a replica with sign-in and on one without."""
    key = SigningKey.new("k1")
    with tempfile.TemporaryDirectory() as workdir, provider(Path(workdir), [key]) as issuer:
        on_port, off_port = free_port(), free_port()
        on_url, off_url = (f"http://127.0.0.1:{p}/mcp" for p in (on_port, off_port))
        common = {"FIT_WORKERS": "1", "LOG_LEVEL": "WARNING", "PATH": "/usr/bin:/bin"}
        signed = {**common, "OAUTH_ISSUER": issuer.url, "PUBLIC_URL": on_url}
        with (
            serving("signed-in", cli(["serve"], on_port), on_port, env=signed),
            serving("open", cli(["serve"], off_port), off_port, env=common),
        ):
            token = key.sign(claims(issuer.url, on_url))
            async with (
                httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}) as signed_in,
                httpx.AsyncClient() as anonymous,
            ):
                for _ in range(20):  # keys fetched, connections open, code paths warm
                    await call_tool(signed_in, on_url, REPORT_APP_STATUS, REPORT)
                    await call_tool(anonymous, off_url, REPORT_APP_STATUS, REPORT)
                on: list[float] = []
                off: list[float] = []
                for i in range(calls):
                    pair = [(on, signed_in, on_url), (off, anonymous, off_url)]
                    for into, client, url in pair if i % 2 == 0 else pair[::-1]:
                        started = time.perf_counter()
                        await call_tool(client, url, REPORT_APP_STATUS, REPORT)
                        into.append((time.perf_counter() - started) * 1000)
    return on, off


def report(measured: dict[str, tuple[list[float], list[float]]]) -> str:
    rows: list[list[str]] = []
    for name, (on, off) in measured.items():
        for q in (50, 99):
            with_ = percentile(on, q)
            if off:
                without = percentile(off, q)
                rows.append(
                    [name, f"p{q}", f"{with_:.3f}", f"{without:.3f}", f"{with_ - without:+.3f}"]
                )
            else:
                rows.append([name, f"p{q}", f"{with_:.3f}", "-", f"{with_:+.3f}"])
    counts = ", ".join(f"{name} {len(on)}" for name, (on, _) in measured.items())
    title = f"sign-in's cost per call, warm keys, same run (calls each way: {counts})"
    table = format_table(["", "", "sign-in ms", "off ms", "added ms"], rows)
    return f"{title}\n{table}\ntarget: under 0.5 ms added at p50"


async def measure(
    calls: int, *, with_replicas: bool = True
) -> dict[str, tuple[list[float], list[float]]]:
    measured = await in_process(calls)
    if with_replicas:
        measured["replica"] = await replicas(calls)
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per side (default 2000)")
    args = parser.parse_args()
    print(report(asyncio.run(measure(args.calls))))


if __name__ == "__main__":
    main()
