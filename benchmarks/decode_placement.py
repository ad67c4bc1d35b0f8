"""Where a long body the event loop needs is inflated: on the loop, in a thread, in a process.

    .venv/bin/python -m benchmarks.decode_placement [--repeats 7]

The body: a `data_url`'s GeoJSON at its cap (20 MiB decoded, random coordinates, gzip
level 6: about 9.6 MB as received). Each way inflates it with the one bounded decoder
(`server.bodies.Inflation`, cap 20 MiB) while a ticker on the loop wakes every 1 ms;
printed per way: the median wall time and the median of the loop's longest stall
(the longest gap between ticks). The loop's own inflation is the reference. The
process is a warm spawn worker (the fitting pool's start method): its time includes
the body's and the result's pickling both ways. docs/upstream.md reads the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gzip
import multiprocessing
import random
import statistics
import time

from loadtest.stats import format_table
from tomtom_mcp_apps.server.bodies import DATA_URL, Inflation

LIMIT = 20 * 1024 * 1024
WAYS = ("loop", "thread", "process")


def body() -> tuple[bytes, int]:
    """A GeoJSON LineString of random coordinates cut at the cap, gzipped; its size."""
    rng = random.Random(1)
    points = ",".join(
        f"[{rng.uniform(-180, 180):.6f},{rng.uniform(-90, 90):.6f}]" for _ in range(900_000)
    )
    raw = ('{"type":"LineString","coordinates":[' + points + "]}").encode()[: LIMIT - 10]
    return gzip.compress(raw, 6), len(raw)


def inflate(content: bytes) -> bytes:
    inflation = Inflation(content, LIMIT, DATA_URL)
    inflation.run()
    return inflation.result()


async def _ticker(stop: asyncio.Event, gaps: list[float]) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def once(
    way: str, content: bytes, size: int, pool: concurrent.futures.Executor
) -> tuple[float, float]:
    """(wall ms, longest loop stall ms) of one inflation `way`."""
    stop = asyncio.Event()
    gaps: list[float] = []
    ticker = asyncio.create_task(_ticker(stop, gaps))
    await asyncio.sleep(0.01)
    begun = time.perf_counter()
    if way == "loop":
        out = inflate(content)
    elif way == "thread":
        out = await asyncio.to_thread(inflate, content)
    else:
        out = await asyncio.get_running_loop().run_in_executor(pool, inflate, content)
    took = time.perf_counter() - begun
    stop.set()
    await ticker
    assert len(out) == size
    return took * 1000, max(gaps) * 1000


async def run(repeats: int) -> str:
    content, size = body()
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        await asyncio.get_running_loop().run_in_executor(pool, inflate, content)  # warm
        results: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
        for _ in range(repeats):
            for way in WAYS:  # alternating: the machine's load falls on every way alike
                results[way].append(await once(way, content, size, pool))
    title = f"{len(content) / 1e6:.1f} MB gzip, {size / 2**20:.0f} MiB decoded, {repeats} runs"
    rows = [
        [
            way,
            f"{statistics.median(r[0] for r in rows):.0f}",
            f"{statistics.median(r[1] for r in rows):.1f}",
        ]
        for way, rows in results.items()
    ]
    return title + "\n" + format_table(["where", "wall ms p50", "longest loop stall ms p50"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(asyncio.run(run(args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
