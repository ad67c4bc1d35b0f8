"""Snapping a 50,000-point GPS trace to roads: one call, its requests to TomTom, and how
faithfully the snapped line is drawn within the result's budget.

    .venv/bin/python -m benchmarks.snap_trace [--quick] [--points 50000]

One replica with the stand-in TomTom (`tests.standin`, recording every request) as its
upstream. The trace is a GPX file served on 127.0.0.1 as a `data_url`: a drive from
Amsterdam, a fix every second (timestamps and courses, as a phone's logger writes them),
its speed wandering between town and motorway, its heading turning, each fix off by a
few metres of GPS noise. The model calls `tomtom-snap-to-roads` with it, once.

Reported: the call's wall time; the requests TomTom received (each part of the trace is
one Snap to Roads request: 5,000 points and about 100 km at most); the trace's points
and those of the snapped line, and what the view draws of it within the budget (points,
characters, the largest distance from the snapped line); the model's text; the
replica's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import numpy as np
import orjson

from benchmarks.files_site import serve_files
from loadtest.topology import PeakRss, run_topology
from loadtest.wire import call_tool, result_text
from tests.standin import forget, recorded
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting.geo import M_PER_DEG
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY
from tomtom_mcp_apps.server.tool_names import SNAP_TO_ROADS

START = (4.9041, 52.3676)  # Amsterdam
STARTED = datetime(2026, 5, 4, 6, 30, tzinfo=UTC)
NOISE_M = 4.0
"""Standard deviation of a fix's GPS error, each way."""


def drive(points: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """A drive of `points` fixes a second apart: positions (lon, lat) and courses (deg)."""
    rng = np.random.default_rng(seed)
    speed = np.clip(
        np.cumsum(rng.normal(0, 0.4, points)) % 50 + rng.normal(0, 0.5, points), 6, 34
    )  # m/s: town to motorway
    turn = rng.normal(0, 1.2, points) + np.where(rng.random(points) < 0.004, 70.0, 0.0)
    course = (150.0 + np.cumsum(turn)) % 360  # south-east on the whole, turning
    east = speed * np.sin(np.radians(course))
    north = speed * np.cos(np.radians(course))
    lat = START[1] + np.cumsum(north) / M_PER_DEG
    lon = START[0] + np.cumsum(east) / (M_PER_DEG * np.cos(np.radians(lat)))
    noise = rng.normal(0, NOISE_M, (points, 2)) / M_PER_DEG
    lonlat = np.column_stack([lon + noise[:, 0] / np.cos(np.radians(lat)), lat + noise[:, 1]])
    return lonlat, course


def gpx_of(lonlat: np.ndarray, course: np.ndarray) -> bytes:
    """A GPX track of one segment, a `trkpt` per fix with its `time` and `course`."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<gpx version="1.1" creator="benchmarks.snap_trace" '
        'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>drive</name><trkseg>\n'
    ]
    for i, ((lon, lat), c) in enumerate(zip(lonlat.tolist(), course.tolist(), strict=True)):
        moment = (STARTED + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        parts.append(
            f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><time>{moment}</time>'
            f"<course>{c:.1f}</course></trkpt>\n"
        )
    parts.append("</trkseg></trk></gpx>\n")
    return "".join(parts).encode()


@dataclass
class Run:
    points: int
    gpx_bytes: int = 0
    wall_s: float = 0.0
    requests: dict[str, int] = field(default_factory=dict)
    answer: dict[str, Any] = field(default_factory=dict)
    fitted: dict[str, Any] = field(default_factory=dict)
    app_data_chars: int = 0
    budget: int = 0
    model_chars: int = 0
    idle_rss: int = 0
    peak_rss: int = 0


async def measure(points: int) -> Run:
    """Snap a drive of `points` fixes once; the figures."""
    run = Run(points)
    lonlat, course = drive(points)
    body = gpx_of(lonlat, course)
    run.gpx_bytes = len(body)
    standin = [sys.executable, "-m", "tests.standin"]
    with (
        serve_files({"/drive.gpx": ("application/gpx+xml", body)}) as site,
        run_topology(replicas=1, with_balancer=False, upstream_command=standin) as topology,
    ):
        assert topology.upstream is not None
        forget(topology.upstream.url)
        replica = topology.replicas[0]
        run.budget = Settings().budget
        run.idle_rss = replica.rss_bytes()
        peak = PeakRss(replica)
        try:
            async with httpx.AsyncClient(timeout=180) as client:
                started = time.monotonic()
                args = {"data_url": f"{site.url}/drive.gpx"}
                result = await call_tool(client, topology.replica_urls[0], SNAP_TO_ROADS, args)
                run.wall_s = time.monotonic() - started
        finally:
            run.peak_rss = max(await peak.stop(), replica.rss_bytes())
        for request in recorded(topology.upstream.url):
            kind = f"{request['method']} {request['path']}"
            run.requests[kind] = run.requests.get(kind, 0) + 1
    text = result_text(result)
    run.model_chars = len(text)
    run.answer = orjson.loads(text)
    app_data = (result.get("_meta") or {}).get(APP_DATA_KEY, "")
    run.app_data_chars = len(app_data)
    if app_data:
        run.fitted = fitting.decode(app_data).get("fitted") or {}
    return run


def report(run: Run) -> str:
    mib = 1024 * 1024
    a, f = run.answer, run.fitted
    requests = ", ".join(f"{k}: {v}" for k, v in sorted(run.requests.items()))
    drawn = (
        f"the trace and its snapped line, {f.get('original_points', 0):,} points, drawn as "
        f"{f.get('points', 0):,} in {f.get('chars', run.app_data_chars):,} chars of a "
        f"{run.budget:,}-char result (largest distance from the lines "
        f"{f.get('max_error_m', 0):.1f} m)"
        if f
        else f"the trace and its snapped line drawn as is in {run.app_data_chars:,} chars"
    )
    hours = run.points / 3600
    return "\n".join(
        [
            f"snap to roads: a {run.points:,}-point GPS trace ({hours:.1f} h at 1 Hz, "
            f"{run.gpx_bytes / mib:.1f} MiB of GPX as a data_url), one replica",
            f"wall time: {run.wall_s:.1f} s",
            f"TomTom requests: {requests} (tomtom_requests {a.get('tomtom_requests')})",
            f"snapped: {a.get('distance_km', 0):,} km, matched share {a.get('matched_share')}, "
            f"{len(a.get('roads', []))} roads named",
            f"view: {drawn}",
            f"model text: {run.model_chars:,} chars",
            f"peak RSS: {run.peak_rss / mib:.0f} MiB (idle {run.idle_rss / mib:.0f})",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50_000)
    parser.add_argument("--quick", action="store_true", help="6,000 points")
    args = parser.parse_args()
    points = 6_000 if args.quick else args.points
    print(report(asyncio.run(measure(points))))


if __name__ == "__main__":
    main()
