"""Fitting benchmark: whole fit against shapely, vertices per budget, error, peak memory.

Cases (`--cases`, all by default):
- `synthetic-40k`, `synthetic-1m`: seeded road-like routes city to city in Europe
  (`synthetic_route` on `server.offline.roads`; 40,000 and 1,000,000 vertices),
  one route feature with 3 legs and a 300-vertex traffic section every 2,000
  vertices (their ends are anchors);
- `recorded`, `recorded-94k`, `recorded-1m`: the recorded trip in
  tests/data (65,270 vertices, 12 legs; OpenStreetMap contributors, ODbL),
  the trip and 7 legs back (93,822), and the trip densified with 0.3 m jitter
  (978,882), each with `loadtest.recorded.route_envelope`'s anchors (legs,
  a section every 2,000 vertices, a progress point every 500).

Every figure is the median of warm runs, interleaved, measured side by side in
this process after freezing the start-up heap as the fitting workers do
(wall and CPU time: the machine is shared). The simplification references
take the same projected coordinates, array in and array out, at the same
output size (the tolerance at which DP keeps exactly our count; ours starts
from e5 integers and projects them too); "shapely simplify alone" is the bar
the whole fit (rounding, projection, ranking, budget search, encode) must not
exceed. The float-JSON reference is the same fit writing 5-decimal
`coordinates` in the JSON instead of the line section, on the 1e-5 grid.

    .venv/bin/python -m benchmarks.fit_bench [--cases recorded recorded-1m] [--repeats 7]

Targets: on recorded routes >= 2.3x the vertices of float
JSON and the whole fit no slower than shapely's simplify alone (ratio <= 1.0);
1M peak memory < 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from simplification.cutil import simplify_coords

from loadtest import recorded
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting import _codec, _fit, _kernels, _parts
from tomtom_mcp_apps.server.offline.roads import road_like_route
from tomtom_mcp_apps.server.ops.heap import freeze_startup_heap

BUDGET = 120_000
ROOT = Path(__file__).resolve().parent.parent


def envelope(line: np.ndarray) -> dict[str, Any]:
    n = len(line)
    third = n // 3
    props = {
        "kind": "route",
        "legs": [
            {"startPointIndex": a, "endPointIndex": b}
            for a, b in ((0, third), (third, 2 * third), (2 * third, n - 1))
        ],
        "sections": [
            {"sectionType": "TRAFFIC", "startPointIndex": i, "endPointIndex": min(i + 300, n - 1)}
            for i in range(0, n - 1, 2_000)
        ],
    }
    feature = {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "LineString", "coordinates": line},
    }
    data = {"type": "FeatureCollection", "features": [feature]}
    return fitting.envelope("tomtom-routing", data)


EUROPE = [
    (-9.14, 38.72),  # Lisbon
    (21.01, 52.23),  # Warsaw
    (12.50, 41.90),  # Rome
    (2.35, 48.86),  # Paris
    (18.07, 59.33),  # Stockholm
    (-3.70, 40.42),  # Madrid
    (16.37, 48.21),  # Vienna
    (23.73, 37.98),  # Athens
]
"""The cities a synthetic route goes between, in turn."""


def synthetic_route(points: int, *, seed: int) -> np.ndarray:
    """A seeded road-like route of exactly `points` vertices, city to city inside Europe."""
    legs: list[np.ndarray] = []
    total = 0
    while total < points:
        i = len(legs)
        a, b = EUROPE[i % len(EUROPE)], EUROPE[(i + 1) % len(EUROPE)]
        leg = road_like_route([a, b], seed=seed + i)
        legs.append(leg if i == 0 else leg[1:])
        total += len(legs[-1])
    return np.concatenate(legs)[:points]


CASES: dict[str, Callable[[], dict[str, Any]]] = {
    "synthetic-40k": lambda: envelope(synthetic_route(40_000, seed=1)),
    "synthetic-1m": lambda: envelope(synthetic_route(1_000_000, seed=1)),
    "recorded": lambda: recorded.route_envelope(recorded.legs()),
    "recorded-94k": lambda: recorded.route_envelope(recorded.there_and_back()),
    "recorded-1m": lambda: recorded.route_envelope(recorded.densified(1_000_000)),
}


def medians(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU milliseconds of each callable, interleaved so noise hits all alike.

    All work here runs on the calling thread, so its CPU time is what the
    work costs on a core of its own, whatever else the machine is doing.
    """
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for run in runs.values():
        run()  # warm
    for _ in range(repeats):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.thread_time()
            run()
            times[name].append((time.perf_counter() - wall, time.thread_time() - cpu))
    return {
        name: (
            statistics.median(w for w, _ in t) * 1000.0,
            statistics.median(c for _, c in t) * 1000.0,
        )
        for name, t in times.items()
    }


class FloatJsonFitter(_fit._Fitter):
    """The same fit (ranking, anchors, budget search, report) writing 5-decimal float JSON.

    The reference the e5 encoding must beat: GeoJSON `coordinates` as rounded
    floats in place of e5 deltas, everything else identical.
    """

    def _step(self, threshold: float) -> int:
        return 1  # 5-decimal floats: the 1e-5 degree grid always

    def _encode_within(self) -> tuple[str | None, int]:
        self.encodes += 1
        everything = np.arange(self.parts.e5.shape[0])
        self._write_lines(everything)
        self._renumber(everything)
        member = _codec.Member(_codec.dumps(self.envelope))
        return (member.text() if len(member) <= self.budget // 4 * 3 else None), member.chars()

    def _write_lines(self, kept_at: np.ndarray) -> None:
        parts = self.parts
        kept = parts.e5[kept_at] / 1e5
        bounds = np.searchsorted(kept_at, parts.offsets)
        coords = [kept[bounds[p] : bounds[p + 1]] for p in range(len(parts.offsets) - 1)]
        for shape in parts.shapes:
            first = shape.first_part
            _fit.place(shape, "coordinates", coords[first : first + shape.count])


def float_json_fit(env: dict[str, Any]) -> dict[str, Any]:
    parts = _parts.collect(env["data"])
    return FloatJsonFitter(parts, dict(env, data=parts.data), BUDGET).run().report


def measure(name: str, repeats: int) -> dict[str, Any]:
    env = CASES[name]()
    line = env["data"]["features"][0]["geometry"]["coordinates"]
    result = fitting.fit(env, BUDGET)
    # Data that fits as is keeps every merged vertex, with only the rounding's error.
    report = result.report or {
        "points": _parts.collect(env["data"]).e5.shape[0],
        "max_error_m": "as is",
    }
    kept = report["points"]

    # Ranking alone, anchor-free, against references at exactly the same output size.
    parts = _parts.collect(
        {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {},
                    "geometry": {"type": "LineString", "coordinates": line},
                }
            ],
        }
    )
    x, y = _kernels.project(parts.e5, parts.offsets)
    xy = np.column_stack([x, y])
    sig = _kernels.rank(x, y, parts.offsets, parts.anchor, -1.0)
    finite = -np.sort(-sig[np.isfinite(sig)])
    if kept - 2 < finite.shape[0]:
        tolerance = float((finite[kept - 3] + finite[kept - 2]) / 2)  # keeps `kept` with the ends
    else:
        tolerance = float(finite[-1] / 2)  # keeps every vertex
    geometry = shapely.linestrings(xy)

    # The fit ranks a long line only down to about the tolerance its budget allows.
    fitter = _fit._Fitter(parts, fitting.envelope("bench", parts.data), BUDGET)
    fitter.x, fitter.y, fitter.anchor = x, y, parts.anchor
    as_is = fitter._encode_within()[1]

    def xy_kept(x: np.ndarray, y: np.ndarray, as_fit: bool) -> np.ndarray:
        cutoff = fitter._cutoff(as_is) if as_fit else -1.0
        sig = _kernels.rank(x, y, parts.offsets, parts.anchor, cutoff)
        while cutoff >= tolerance:  # the prefix needs more than was ranked: deepen as the fit does
            deeper = fitter._sampled(2 * kept)
            cutoff = deeper if deeper < cutoff else -1.0
            _kernels.rank_deeper(x, y, sig, cutoff)
        keep = sig > tolerance
        return np.column_stack([x[keep], y[keep]])

    sizes = {
        "ours": int((sig > tolerance).sum()),
        "ours as fit": len(xy_kept(x, y, as_fit=True)),
        "shapely": int(
            shapely.get_num_coordinates(
                shapely.simplify(geometry, tolerance, preserve_topology=False)
            )
        ),
        "simplification": len(simplify_coords(xy, tolerance)),
    }
    times = medians(
        {
            "rank": lambda: xy_kept(*_kernels.project(parts.e5, parts.offsets), as_fit=False),
            "rank as fit": lambda: xy_kept(*_kernels.project(parts.e5, parts.offsets), as_fit=True),
            "shapely": lambda: shapely.get_coordinates(
                shapely.simplify(shapely.linestrings(xy), tolerance, preserve_topology=False)
            ),
            "shapely simplify alone": lambda: shapely.simplify(
                geometry, tolerance, preserve_topology=False
            ),
            "simplification": lambda: simplify_coords(xy, tolerance),
            "fit": lambda: fitting.fit(env, BUDGET),
        },
        repeats,
    )
    float_report = float_json_fit(env)
    return {
        "name": name,
        "points": len(line),
        "sizes": sizes,
        "times": times,
        "report": report,
        "float": float_report,
    }


_MEMORY_PROBE = """
import json, sys
import numpy as np
sys.path.insert(0, {root!r})
from tomtom_mcp_apps import fitting
from benchmarks.fit_bench import CASES, BUDGET
env = CASES[{name!r}]()
fitting.warm_up()
def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key)) / 1024
before = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak (VmHWM) to the current RSS
fitting.fit(env, BUDGET)
print(json.dumps({{"before_mb": before, "peak_mb": status("VmHWM:")}}))
"""


def peak_memory(name: str) -> dict[str, float]:
    """RSS of a fresh process holding the case's route and warm kernels, and its peak in the fit.

    The peak counts everything, numba's own allocations included (tracemalloc
    would miss those), so it is read from the kernel after resetting VmHWM.
    """
    probe = _MEMORY_PROBE.format(root=str(ROOT), name=name)
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    fitting.warm_up()
    freeze_startup_heap()
    results = [measure(name, args.repeats) for name in args.cases]
    memory = {r["name"]: peak_memory(r["name"]) for r in results if r["points"] > 500_000}

    head = "| measure | " + " | ".join(f"{r['name']}, {r['points']:,} points" for r in results)
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(
        f"Fitting benchmark: median of {args.repeats} warm runs, budget {BUDGET:,} chars; "
        f"{os.cpu_count()} CPUs, load average {load}\n"
    )
    print(head + " |")
    print("|---|" + "---|" * len(results))

    def row(label: str, cells: list[str]) -> None:
        print(f"| {label} | " + " | ".join(cells) + " |")

    def ms(r: dict[str, Any], name: str) -> str:
        wall, cpu = r["times"][name]
        return f"{wall:.1f} ({cpu:.1f})"

    def cpu_ratio(r: dict[str, Any], name: str, ref: str) -> str:
        return f"{r['times'][name][1] / r['times'][ref][1]:.2f}x"

    row(
        "vertices kept, sent as v2 (max error m, quantisation included)",
        [f"{r['report']['points']:,} ({r['report']['max_error_m']})" for r in results],
    )
    row(
        "vertices kept, 5-decimal float JSON (max error m)",
        [f"{r['float']['points']:,} ({r['float']['max_error_m']})" for r in results],
    )
    row(
        "vertices ratio v2 / float JSON",
        [f"{r['report']['points'] / r['float']['points']:.2f}x" for r in results],
    )
    row("whole fit to 120,000 chars: ms wall (CPU)", [ms(r, "fit") for r in results])
    row(
        "shapely simplify alone, same projected line and output size: ms wall (CPU)",
        [ms(r, "shapely simplify alone") for r in results],
    )
    row(
        "whole fit / shapely simplify alone (CPU; target <= 1.0)",
        [cpu_ratio(r, "fit", "shapely simplify alone") for r in results],
    )
    row(
        "output size (ours / shapely / simplification)",
        ["{ours:,} / {shapely:,} / {simplification:,}".format(**r["sizes"]) for r in results],
    )
    row("ours, ranking every vertex: ms wall (CPU)", [ms(r, "rank") for r in results])
    row(
        "ours, ranking as the fit does (cut off near the budget's tolerance)",
        [
            f"{ms(r, 'rank as fit')}; same size: {r['sizes']['ours as fit'] == r['sizes']['ours']}"
            for r in results
        ],
    )
    for ref, label in (
        ("shapely", "shapely: linestrings + simplify + coordinates"),
        ("shapely simplify alone", "shapely: simplify alone on a built geometry"),
        ("simplification", "simplification: simplify_coords (RDP)"),
    ):
        row(
            f"{label}: CPU ratio to our ranking (as the fit / every vertex)",
            [f"{cpu_ratio(r, ref, 'rank as fit')} / {cpu_ratio(r, ref, 'rank')}" for r in results],
        )
    for name, m in memory.items():
        print(
            f"\nPeak memory fitting {name} in a fresh process: {m['peak_mb']:.0f} MB RSS, of "
            f"which {m['before_mb']:.0f} MB were there before the fit (interpreter, numpy, "
            f"numba, warm kernels, the input route): the fit itself adds "
            f"{m['peak_mb'] - m['before_mb']:.0f} MB."
        )


if __name__ == "__main__":
    main()
