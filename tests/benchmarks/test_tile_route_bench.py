"""The tile-route benchmark's quick mode: it runs, fetches real tiles both ways, and prints
its figures beside the reference measured in the same run."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks import tile_route

pytestmark = pytest.mark.process


def test_the_tile_route_benchmark_measures_both_paths_in_one_run() -> None:
    through, straight, size, cpu_ms, upstream_cpu_ms = asyncio.run(tile_route.measure(64))
    assert len(through) == len(straight) == 64
    assert size > 100 and cpu_ms > 0 and upstream_cpu_ms > 0
    printed = tile_route.report(through, straight, size, cpu_ms, upstream_cpu_ms)
    for needle in ("route ms", "direct ms", "added ms", "p50", "p99", "CPU per direct tile"):
        assert needle in printed
