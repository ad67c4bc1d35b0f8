"""The tile-route benchmark's quick mode: it runs, fetches real tiles both ways, and prints
its figures beside the reference measured in the same run."""

from __future__ import annotations

import asyncio
import math

import pytest

from benchmarks import tile_route
from loadtest.stats import percentile

pytestmark = pytest.mark.process


def test_the_tile_route_benchmark_prints_both_paths_side_by_side_from_one_run() -> None:
    through, straight, size, cpu_ms, upstream_cpu_ms = asyncio.run(tile_route.measure(64))
    assert len(through) == len(straight) == 64
    assert all(0 < ms < 30_000 for ms in through + straight)  # within the client's timeout
    assert size > 100
    # Per-process CPU clocks count nanoseconds: serving 64 tiles always shows, in both.
    assert 0 < cpu_ms < math.inf and 0 < upstream_cpu_ms < math.inf
    printed = tile_route.report(through, straight, size, cpu_ms, upstream_cpu_ms)
    title, header, _, *rows, cpu = printed.splitlines()
    assert "64 tiles each way" in title and f"{size:,}-byte PNG" in title
    assert header.split() == ["route", "ms", "direct", "ms", "added", "ms", "ratio"]
    # Each percentile's row: the route's figure beside the direct one, their difference, ratio.
    assert [row.split()[0] for row in rows] == ["p50", "p90", "p99"]
    for row in rows:
        name, *figures = row.split()
        via, ref = percentile(through, int(name[1:])), percentile(straight, int(name[1:]))
        assert figures == [f"{via:.2f}", f"{ref:.2f}", f"{via - ref:+.2f}", f"{via / ref:.2f}x"]
    assert f"replica CPU per routed tile: {cpu_ms:.2f} ms" in cpu
    assert (
        f"upstream CPU per direct tile (one server hop, the reference): {upstream_cpu_ms:.2f}"
        in cpu
    )
