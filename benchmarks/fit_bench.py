"""Fitting benchmark: ranking speed, whole-fit time, vertices per budget, peak memory.

Inputs are seeded road-like routes from `fitting.synthetic` (curvy dense and
straight sparse stretches, ~50 m median vertex spacing) of about 40,000 and
1,000,000 vertices, each one route feature with 3 legs and a 300-vertex
traffic section every 2,000 vertices (their ends are anchors). Every figure
is the median of warm runs, measured side by side in this process (wall
and CPU time: the machine is shared). The simplification references take
the same projected coordinates, array in and array out, at the same output
size (the tolerance at which DP keeps exactly our count; ours starts from
e5 integers and projects them too, and ranks either every vertex or, as the
fit does for long lines, down to about the tolerance the budget allows);
the float-JSON reference is the same fit writing `coordinates` instead of
e5 deltas.

    .venv/bin/python -m benchmarks.fit_bench [--sizes 40000 1000000] [--repeats 7]

Targets (issue 2): ranking >= 2x shapely and >= 3x `simplification`; whole
fit to 120,000 characters <= 15 ms (40k) and <= 250 ms (1M); >= 2.2x the
vertices of float JSON at the same budget; 1M peak memory < 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from simplification.cutil import simplify_coords

import fitting
from fitting import _fit, _kernels, _parts
from fitting.synthetic import route_with_points

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
    return {"v": 1, "tool": "tomtom-routing", "data": data, "fitted": None}


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


def measure(points: int, repeats: int) -> dict[str, Any]:
    line = route_with_points(points, seed=1)
    env = envelope(line)
    result = fitting.fit(env, BUDGET)
    kept = result.report["points"]

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
    tolerance = float((finite[kept - 3] + finite[kept - 2]) / 2)  # keeps `kept` incl. both ends
    geometry = shapely.linestrings(xy)

    # The fit ranks a long line only down to about the tolerance its budget allows.
    fitter = _fit._Fitter(parts, {"v": 1, "tool": "bench", "data": parts.data}, BUDGET)
    fitter.x, fitter.y, fitter.anchor = x, y, parts.anchor
    as_is = fitter._encode_within(np.ones(parts.e5.shape[0], dtype=np.bool_))[1]

    def xy_kept(x: np.ndarray, y: np.ndarray, as_fit: bool) -> np.ndarray:
        cutoff = fitter._cutoff(as_is) if as_fit else -1.0
        kept = _kernels.rank(x, y, parts.offsets, parts.anchor, cutoff) > tolerance
        return np.column_stack([x[kept], y[kept]])

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
        "points": len(line),
        "sizes": sizes,
        "times": times,
        "report": result.report,
        "float": float_report,
    }


_MEMORY_PROBE = """
import json, sys
import numpy as np
sys.path.insert(0, {root!r})
import fitting
from benchmarks.fit_bench import BUDGET, envelope
env = envelope(np.load({path!r}))
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


def peak_memory(points: int) -> dict[str, float]:
    """RSS of a fresh process holding the route and warm kernels, and its peak during the fit.

    The peak counts everything, numba's own allocations included (tracemalloc
    would miss those), so it is read from the kernel after resetting VmHWM.
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "route.npy")
        np.save(path, route_with_points(points, seed=1))
        probe = _MEMORY_PROBE.format(root=str(ROOT), path=path)
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300
        )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[40_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    fitting.warm_up()
    results = [measure(n, args.repeats) for n in args.sizes]
    memory = peak_memory(max(args.sizes))

    head = "| measure | " + " | ".join(f"{r['points']:,} points" for r in results) + " |"
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(
        f"Fitting benchmark: median of {args.repeats} warm runs, budget {BUDGET:,} chars; "
        f"{os.cpu_count()} CPUs, load average {load}\n"
    )
    print(head)
    print("|---|" + "---|" * len(results))

    def row(label: str, cells: list[str]) -> None:
        print(f"| {label} | " + " | ".join(cells) + " |")

    row(
        "output size (ours / shapely / simplification)",
        ["{ours:,} / {shapely:,} / {simplification:,}".format(**r["sizes"]) for r in results],
    )

    def ms(r: dict[str, Any], name: str) -> str:
        wall, cpu = r["times"][name]
        return f"{wall:.1f} ({cpu:.1f})"

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
            f"{label}: ms wall (CPU); CPU ratio to ours (as the fit / every vertex)",
            [
                f"{ms(r, ref)}; {r['times'][ref][1] / r['times']['rank as fit'][1]:.1f}x"
                f" / {r['times'][ref][1] / r['times']['rank'][1]:.1f}x"
                for r in results
            ],
        )
    row("whole fit to 120,000 chars, ms wall (CPU)", [ms(r, "fit") for r in results])
    row(
        "vertices kept, e5 deltas (max error m)",
        [f"{r['report']['points']:,} ({r['report']['max_error_m']})" for r in results],
    )
    row(
        "vertices kept, 5-decimal float JSON (max error m)",
        [f"{r['float']['points']:,} ({r['float']['max_error_m']})" for r in results],
    )
    row(
        "vertices ratio e5 / float JSON",
        [f"{r['report']['points'] / r['float']['points']:.2f}x" for r in results],
    )
    print(
        f"\nPeak memory fitting {results[-1]['points']:,} points in a fresh process: "
        f"{memory['peak_mb']:.0f} MB RSS, of which {memory['before_mb']:.0f} MB were there "
        f"before the fit (interpreter, numpy, numba, warm kernels, the input route): "
        f"the fit itself adds {memory['peak_mb'] - memory['before_mb']:.0f} MB."
    )


if __name__ == "__main__":
    main()
