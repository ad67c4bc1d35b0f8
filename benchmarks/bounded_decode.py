"""What the size cap on decoding costs: bounded streaming inflate versus ISA-L's whole inflate.

    .venv/bin/python -m benchmarks.bounded_decode [--repeats 30]

Bodies, gzipped at level 1 as TomTom's servers and the offline upstream send them:
calculateRoute Lisbon-Warsaw (42,447 points, about 1.9 MiB decoded) and the same
with five alternatives (about 11 MiB), from the offline upstream in process; and a
gzip bomb of 256 MiB of zeros (about 265 KB). Each body is decoded `--repeats` times
by `RawBody.decoded()` (64 MiB cap) and by
`igzip.decompress` (no cap, the reference), alternating; medians and their ratio are
printed. For the bomb the bounded decode stops at the cap with an error: its time is
that of the refusal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import Callable

import httpx
from isal import igzip

from loadtest.mix import LISBON, WARSAW
from loadtest.stats import format_table
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.errors import BodyError
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.offline._app import _bomb

ROUTE = "/routing/1/calculateRoute/{}:{}/json".format(
    *(f"{lat},{lon}" for lon, lat in (LISBON, WARSAW))
)


async def _route_body(alternatives: int) -> bytes:
    params = [("instructionsType", "text"), ("extendedRouteRepresentation", "distance")]
    if alternatives:
        params.append(("maxAlternatives", str(alternatives)))
    transport = httpx.ASGITransport(app=build_upstream_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://offline") as client:
        response = await client.get(ROUTE, params=params)
        response.raise_for_status()
        return response.content


def _ms(decode: Callable[[], object]) -> float:
    started = time.perf_counter()
    with contextlib.suppress(BodyError):  # the bomb, refused at the cap
        decode()
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    bodies = {
        "Lisbon-Warsaw": igzip.compress(asyncio.run(_route_body(0)), 1),
        "Lisbon-Warsaw, 5 alternatives": igzip.compress(asyncio.run(_route_body(5)), 1),
        "gzip bomb, 256 MiB of zeros": _bomb(),
    }
    rows = []
    for name, packed in bodies.items():
        raw = RawBody(packed, "gzip")
        bounded, whole = [], []
        for _ in range(args.repeats):
            bounded.append(_ms(raw.decoded))
            whole.append(_ms(lambda packed=packed: igzip.decompress(packed)))
        b, w = statistics.median(bounded), statistics.median(whole)
        rows.append([name, f"{len(packed) / 1024:,.0f}", f"{b:.2f}", f"{w:.2f}", f"{b / w:.2f}"])
    print(
        format_table(
            ["body", "gzip KiB", "bounded ms (p50)", "igzip whole ms (p50)", "bounded / whole"],
            rows,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
