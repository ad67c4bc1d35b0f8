"""Percentiles and plain-text tables for the replay and the benchmarks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100, linear interpolation); NaN for no values."""
    return float(np.percentile(values, q)) if len(values) else float("nan")


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns padded to their widest cell; text left-aligned, numbers right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    left = [all(isinstance(row[i], str) for row in rows) for i in range(len(headers))]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.ljust(w) if left[i] else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, cells)])


def _cell(value: object) -> str:
    if isinstance(value, float):
        if value != value:  # NaN: nothing measured
            return "-"
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
