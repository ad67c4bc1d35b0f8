"""Data-viz of a large `data_url`: pages of features beside an older checkout's paging, in one run.

    .venv/bin/python -m benchmarks.data_viz [--sizes 2,20,50] [--kinds lines,points,polygons]
                                            [--old lines:2,points:2,polygons:2,lines:20]
                                            [--old-ref main] [--ignore-range]

Seeded GeoJSON files (`loadtest.geojson_site`, served from a process of its own
on this machine, which counts its downloads): lines (GPS-like traces of 250
vertices, 6 decimals: the reference file is the 20 MB one, 3,700 of them),
points (with a name and a value, 5 decimals) and polygons (rings of 500
vertices, 6 decimals), of about 2, 20 and 50 MB; `DATA_VIZ_MAX_BYTES` is raised
to 64 MB for the largest.

Two replicas, FIT_WORKERS=2 each, default budget and page size: this tree's,
and an older checkout's (`--old-ref`, one that pages by offset, checked out in a git
directory of its own and run with the same interpreter). For each file and replica, a
view is played by node with the view's own code (`benchmarks/data_viz_view.mjs`:
`widgets/data_viz/pages.js` and `widgets/core/envelope.js`): the tool call,
then the data fetched and decoded as the view does it, page by page. Printed
per run: downloads of the `data_url` and the megabytes they took from the site (a
page asks for its own bytes with `Range`, which the site honours), pages, the
replica's CPU seconds (its process group: the event loop and the fitting workers),
the seconds until the tool result and until the view decoded the last page, and the
characters on the wire. Paging by offset costs the square of the file's size (every page
downloads and encodes the whole file again), so by default the older checkout runs
for the 2 MB files and the 20 MB one only (`--old all` for every file).
Targets on this machine for the 20 MB file: drawn within 10 s of the tool
input, at most 12 downloads.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from loadtest.geojson_site import serve_geojson
from loadtest.stats import format_table
from loadtest.topology import (
    Service,
    free_port,
    group_cpu_seconds,
    replica_env,
    start,
    stop,
    wait_ready,
)

ROOT = Path(__file__).resolve().parent.parent
VIEW = ROOT / "benchmarks" / "data_viz_view.mjs"
MAX_BYTES = 64 * 1024 * 1024
"""`DATA_VIZ_MAX_BYTES` of both replicas: the 50 MB files fit."""
PATHS = {
    ("lines", 2): "/lines/370x250.geojson",
    ("lines", 20): "/lines/3700x250.geojson",
    ("lines", 50): "/lines/9250x250.geojson",
    ("points", 2): "/points/15500.geojson",
    ("points", 20): "/points/155000.geojson",
    ("points", 50): "/points/387000.geojson",
    ("polygons", 2): "/polygons/190x500.geojson",
    ("polygons", 20): "/polygons/1900x500.geojson",
    ("polygons", 50): "/polygons/4750x500.geojson",
}
RUN_TIMEOUT_S = 1_800.0
READY_TIMEOUT_S = 900.0
"""Today's tree starts with no numba cache: its kernels compile first."""


@dataclass(frozen=True)
class Run:
    kind: str
    size_mb: int
    path: str
    replica: str
    megabytes: float
    downloads: int
    downloaded_mb: float
    pages: int
    cpu_s: float
    result_s: float
    drawn_s: float
    chars: int
    features: int


@contextlib.contextmanager
def old_tree(ref: str) -> Iterator[Path]:
    """The files of `ref` in a temporary directory (`git archive`: no worktree to tidy up;
    numba compiles its kernels there)."""
    workdir = Path(tempfile.mkdtemp(prefix="data-viz-old-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", ref],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(workdir)], input=archive, check=True)
        yield workdir
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@contextlib.contextmanager
def replica(name: str, tree: Path, workdir: Path) -> Iterator[Service]:
    """A replica of the code in `tree` (run from there), FIT_WORKERS=2, that may fetch from
    this machine; its log in `workdir`."""
    port = free_port()
    env = replica_env(None, {"FIT_WORKERS": "2", "DATA_VIZ_MAX_BYTES": str(MAX_BYTES)})
    env["LOG_LEVEL"] = os.environ.get("BENCH_LOG_LEVEL", "WARNING")
    command = [sys.executable, "-m", "tomtom_mcp_apps", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    service = start(name, command, port, workdir, env, cwd=tree)
    try:
        wait_ready(service, READY_TIMEOUT_S)
        yield service
    finally:
        stop([service])


def view(url: str, arguments: dict) -> dict:
    """The view played by node against the replica at `url`: its JSON line."""
    done = subprocess.run(
        ["node", str(VIEW), f"{url}/mcp", json.dumps(arguments)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the view failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def measure(site: str, service: Service, label: str, kind: str, size: int) -> Run:
    path = PATHS[(kind, size)]
    megabytes = len(httpx.get(f"{site}{path}", timeout=120).content) / 1e6  # made and cached
    before_downloads = httpx.get(f"{site}/downloads", timeout=10).json().get(path, 0)
    before_bytes = httpx.get(f"{site}/bytes", timeout=10).json().get(path, 0)
    before_cpu = group_cpu_seconds(service.process.pid)
    seen = view(service.url, {"data_url": f"{site}{path}", "title": f"{kind} {size} MB"})
    after_cpu = group_cpu_seconds(service.process.pid)
    downloads = httpx.get(f"{site}/downloads", timeout=10).json().get(path, 0) - before_downloads
    sent = httpx.get(f"{site}/bytes", timeout=10).json().get(path, 0) - before_bytes
    return Run(
        kind,
        size,
        path,
        label,
        megabytes,
        downloads,
        sent / 1e6,
        seen["pages"],
        after_cpu - before_cpu,
        seen["result_ms"] / 1000,
        seen["drawn_ms"] / 1000,
        seen["chars"],
        seen["features"],
    )


def run(
    kinds: Sequence[str],
    sizes: Sequence[int],
    old_files: set[tuple[str, int]] | None,
    old_ref: str,
    ranges: bool = True,
) -> tuple[list[Run], list[str]]:
    """Every file on this tree's replica, and on the older checkout's those of `old_files`
    (every one when None); notes of what was not run."""
    runs: list[Run] = []
    notes: list[str] = []
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="data-viz-")))
        site = stack.enter_context(serve_geojson(timeout=60, ranges=ranges))
        new = stack.enter_context(replica("pages", ROOT, workdir))
        old = None
        if old_files is None or old_files:
            tree = stack.enter_context(old_tree(old_ref))
            old = stack.enter_context(replica("old", tree, workdir))
        for size in sizes:
            for kind in kinds:
                runs.append(measure(site, new, "pages", kind, size))
                if old is None or (old_files is not None and (kind, size) not in old_files):
                    notes.append(f"the old checkout not run for {kind} {size} MB (see --old)")
                    continue
                runs.append(measure(site, old, "old", kind, size))
    return runs, notes


def report(runs: Sequence[Run], notes: Sequence[str]) -> str:
    rows = [
        (
            f"{r.kind} {r.size_mb} MB",
            r.replica,
            r.megabytes,
            r.features,
            r.downloads,
            r.downloaded_mb,
            r.pages,
            r.cpu_s,
            r.result_s,
            r.drawn_s,
            r.chars,
        )
        for r in runs
    ]
    headers = (
        "file",
        "replica",
        "MB",
        "features",
        "downloads",
        "MB downloaded",
        "pages",
        "server CPU s",
        "result s",
        "drawn s",
        "chars",
    )
    lines = [format_table(headers, rows), ""]
    for r in runs:
        if r.kind == "lines" and r.size_mb == 20 and r.replica == "pages":
            ok = r.drawn_s <= 10 and r.downloads <= 12
            lines.append(
                f"target, lines 20 MB: drawn in {r.drawn_s:.1f} s (<= 10) with {r.downloads} "
                f"downloads (<= 12): {'met' if ok else 'NOT met'}"
            )
    lines += notes
    return "\n".join(lines)


def old_files(spec: str) -> set[tuple[str, int]] | None:
    """`--old`: "all", or kind:size pairs separated by commas ("" for none)."""
    if spec == "all":
        return None
    return {(kind, int(size)) for kind, size in (p.split(":") for p in spec.split(",") if p)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.data_viz", description=__doc__)
    parser.add_argument("--sizes", default="2,20,50")
    parser.add_argument("--kinds", default="lines,points,polygons")
    parser.add_argument("--old", default="lines:2,points:2,polygons:2,lines:20")
    parser.add_argument("--old-ref", default="main")
    parser.add_argument(
        "--ignore-range",
        action="store_true",
        help="the site answers 200 to every Range: each page downloads the whole file",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    runs, notes = run(
        args.kinds.split(","),
        [int(s) for s in args.sizes.split(",")],
        old_files(args.old),
        args.old_ref,
        not args.ignore_range,
    )
    print(report(runs, notes))
    print(f"({time.perf_counter() - started:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
