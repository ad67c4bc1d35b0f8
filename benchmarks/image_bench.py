"""Map image benchmark: rendering a long route to an 800x500 PNG in a fitting worker.

Input: the offline upstream's Lisbon-Warsaw route (`loadtest.mix.LONG_ROUTE`, about
40,000 points with its traffic sections), as the routing tool receives it. In one
spawned worker, as the fitting pool runs jobs, it times:

- `render`: `render_map` alone on the route's features (what `image: true` adds);
- `background`: the offline basemap alone for the image's frame (part of `render`);
- `routing job`: the whole `tomtom-routing` job without an image (decode, features,
  fit), the reference;
- `routing job + image`: the same job with `image: true`.

Each figure is the median of `--repeats` warm runs, side by side in the same worker
(the machine is shared: compare the ratios, not the absolute times). The worker's
first image also reads the basemap's Natural Earth file; that one-off cost is printed
apart (`basemap load`).

    .venv/bin/python -m benchmarks.image_bench [--repeats 15] [--png /tmp/route.png]

Target: render under 100 ms.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from loadtest.mix import LONG_ROUTE
from tomtom_mcp_apps.server import jobs
from tomtom_mcp_apps.server.bodies import RawBody, request_body
from tomtom_mcp_apps.server.jobs import _basemap, _image
from tomtom_mcp_apps.server.offline._query import Query
from tomtom_mcp_apps.server.offline._routing import calculate_route, parse_request

BUDGET = 120_000
TARGET_MS = 100.0


def route_body() -> RawBody:
    """The routing tool's calculateRoute answer for the long route, gzipped as received."""
    path = ":".join(f"{lat},{lon}" for lon, lat in LONG_ROUTE)
    params = [
        ("instructionsType", "text"),
        ("extendedRouteRepresentation", "distance"),
        ("extendedRouteRepresentation", "travelTime"),
        *(("sectionType", s) for s in ("traffic", "tollRoad", "motorway", "tunnel", "country")),
    ]
    raw = calculate_route(parse_request(path, Query(params), b""))
    return request_body(raw) if len(raw) > 1024 else RawBody(raw)


def measure(raw: RawBody, repeats: int) -> dict[str, Any]:
    """Runs in the worker: the three timings, interleaved so that load hits them alike."""
    route = jobs.routes_of(raw)[0]
    features = [jobs.route_feature(route, 0), *jobs.waypoint_features(LONG_ROUTE)]
    data = jobs.collection(features)
    request = jobs.ImageRequest()
    points = len(features[0]["geometry"]["coordinates"])
    frame = _image._framed(tuple(data["bbox"]), request.width, request.height)
    load = math.nan
    if hasattr(_basemap, "natural_earth"):  # the file is read once per worker
        started = time.perf_counter()
        _basemap.natural_earth()
        load = (time.perf_counter() - started) * 1000
    times: dict[str, list[float]] = {
        "render": [],
        "background": [],
        "routing job": [],
        "routing job + image": [],
    }
    png = b""
    for i in range(repeats + 1):  # the first round warms caches and fonts
        started = time.perf_counter()
        png = jobs.render_map(data, request).png
        render = time.perf_counter() - started
        started = time.perf_counter()
        _basemap.offline_background(request.width, request.height, frame)
        background = time.perf_counter() - started
        started = time.perf_counter()
        jobs.routing(raw, LONG_ROUTE, True, BUDGET)
        plain = time.perf_counter() - started
        started = time.perf_counter()
        jobs.routing(raw, LONG_ROUTE, True, BUDGET, request)
        both = time.perf_counter() - started
        if i:
            times["render"].append(render * 1000)
            times["background"].append(background * 1000)
            times["routing job"].append(plain * 1000)
            times["routing job + image"].append(both * 1000)
    return {"points": points, "png": png, "times": times, "load_ms": load}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--png", help="write the rendered PNG here, to look at")
    args = parser.parse_args(argv)
    raw = route_body()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as worker:
        result = worker.submit(measure, raw, args.repeats).result()
    medians = {name: statistics.median(ms) for name, ms in result["times"].items()}
    print(f"route: {result['points']:,} points, image 800x500, {args.repeats} runs in a worker")
    for name, ms in medians.items():
        print(f"  {name:<22} median {ms:8.1f} ms")
    reference = medians["routing job"]
    print(f"  render / routing job    {medians['render'] / reference:8.2f}x")
    print(f"  PNG size               {len(result['png']):,} bytes")
    print(f"  basemap load (once)    {result['load_ms']:8.1f} ms")
    verdict = "meets" if medians["render"] < TARGET_MS else "misses"
    print(f"  target: render < {TARGET_MS:.0f} ms: {verdict}")
    if args.png:
        with open(args.png, "wb") as out:
            out.write(result["png"])
    return {"points": result["points"], "medians": medians, "png_bytes": len(result["png"])}


if __name__ == "__main__":
    main()
