"""The data-viz benchmark's smallest run: one 2 MB file through this tree's replica and the
view's own fetching and decoding in node, its table printed."""

from __future__ import annotations

import pytest

from benchmarks import data_viz

pytestmark = pytest.mark.process


def test_the_data_viz_benchmark_draws_a_2_mb_file_and_prints_its_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert data_viz.main(["--sizes", "2", "--kinds", "lines", "--old", ""]) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.startswith("lines 2 MB"))
    cells = row.split()
    assert cells[3:5] == ["pages", "2.0"] and cells[5] == "370", row  # every feature decoded
    assert int(cells[6]) == 1 + int(cells[8]), "one download for the result, one per page"
    assert float(cells[7]) <= 2 * 2.0 + 0.2, "the pages together read the file's bytes once"
