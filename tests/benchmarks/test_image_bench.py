"""The image benchmark's quick mode: one run, in a worker, printing every figure."""

from __future__ import annotations

import pytest

from benchmarks import image_bench

pytestmark = pytest.mark.process


def test_the_image_benchmark_renders_the_long_route_in_a_worker_and_prints_its_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = image_bench.main(["--repeats", "1"])
    printed = capsys.readouterr().out
    assert figures["points"] > 30_000
    assert set(figures["medians"]) == {"render", "background", "routing job", "routing job + image"}
    assert 0 < figures["png_bytes"] < 1_000_000
    for label in ("render", "routing job + image", "basemap load", "target: render < 100 ms"):
        assert label in printed
