"""A tiny local HTTP server of GeoJSON for data-viz `data_url`s, counting its downloads.

Seeded FeatureCollections in Europe, the shapes of typical caller datasets:

- `/points/<n>.geojson`: `n` points with `name` and `value` properties;
- `/lines/<count>x<vertices>.geojson`: `count` wandering lines (GPS-like traces,
  a vertex every few tens of metres, 6 decimals) with `id`, `name` and `speed`;
- `/polygons/<count>x<vertices>.geojson`: `count` closed rings of `vertices`
  positions (wavy circles of a few km, 6 decimals) with `id`, `name` and `area`.

`GET /downloads` answers `{path: downloads so far}` of the data paths. It runs on
127.0.0.1 (the replicas need DATA_VIZ_ALLOW_PRIVATE=1 to fetch from it).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import orjson

from loadtest.topology import free_port, serving, wait_listening

MAX_POINTS = 500_000
MAX_VERTICES = 5_000_000
"""Lines' and polygons' vertices in one file at most (about 100 MB)."""
_POINTS = re.compile(r"^/points/(\d+)\.geojson$")
_SHAPES = re.compile(r"^/(lines|polygons)/(\d+)x(\d+)\.geojson$")


@functools.lru_cache(maxsize=8)
def points_geojson(n: int) -> bytes:
    """A FeatureCollection of `n` seeded points with `value` and `name` properties."""
    rng = np.random.default_rng(n)
    lon = np.round(rng.uniform(-9.0, 24.0, n), 5)
    lat = np.round(rng.uniform(37.0, 58.0, n), 5)
    value = np.round(rng.gamma(2.0, 50.0, n), 1)
    features = [
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [x, y]},
            "properties": {"name": f"site {i}", "value": v},
        }
        for i, (x, y, v) in enumerate(zip(lon.tolist(), lat.tolist(), value.tolist(), strict=True))
    ]
    return orjson.dumps({"type": "FeatureCollection", "features": features})


@functools.lru_cache(maxsize=8)
def lines_geojson(count: int, vertices: int) -> bytes:
    """`count` seeded lines of `vertices` positions each: random walks of ~50 m steps."""
    rng = np.random.default_rng(count * 7919 + vertices)
    starts = np.column_stack((rng.uniform(-9.0, 24.0, count), rng.uniform(37.0, 58.0, count)))
    steps = rng.normal(0.0, 0.0004, (count, vertices, 2)).cumsum(axis=1)
    coordinates = np.round(starts[:, None, :] + steps, 6)
    speed = rng.integers(20, 130, count)
    return _collection(
        (
            {"type": "LineString", "coordinates": coordinates[i]},
            {"id": i, "name": f"trace {i}", "speed": int(speed[i])},
        )
        for i in range(count)
    )


@functools.lru_cache(maxsize=8)
def polygons_geojson(count: int, vertices: int) -> bytes:
    """`count` seeded closed rings of `vertices` positions: wavy circles of a few km."""
    rng = np.random.default_rng(count * 104729 + vertices)
    centres = np.column_stack((rng.uniform(-9.0, 24.0, count), rng.uniform(37.0, 58.0, count)))
    radii = rng.uniform(0.005, 0.05, count)
    t = np.linspace(0.0, 2.0 * np.pi, vertices)
    wave = 1.0 + 0.15 * np.sin(np.outer(rng.integers(3, 12, count), t))
    rings = np.stack(
        (
            centres[:, :1] + (radii[:, None] * wave) * np.cos(t),
            centres[:, 1:] + (radii[:, None] * wave) * np.sin(t),
        ),
        axis=-1,
    )
    rings = np.round(rings, 6)
    rings[:, -1] = rings[:, 0]
    return _collection(
        (
            {"type": "Polygon", "coordinates": [rings[i]]},
            {"id": i, "name": f"zone {i}", "area": round(float(np.pi * radii[i] ** 2), 8)},
        )
        for i in range(count)
    )


def _collection(items: Iterator[tuple[dict, dict]]) -> bytes:
    features = [{"type": "Feature", "geometry": g, "properties": p} for g, p in items]
    return orjson.dumps(
        {"type": "FeatureCollection", "features": features}, option=orjson.OPT_SERIALIZE_NUMPY
    )


def dataset(path: str) -> Callable[[], bytes] | None:
    """What serves `path`, or None when it names no dataset (or one too large)."""
    if match := _POINTS.match(path):
        n = int(match.group(1))
        return functools.partial(points_geojson, n) if 0 < n <= MAX_POINTS else None
    if match := _SHAPES.match(path):
        count, vertices = int(match.group(2)), int(match.group(3))
        make = lines_geojson if match.group(1) == "lines" else polygons_geojson
        fits = count > 0 and vertices >= 4 and count * vertices <= MAX_VERTICES
        return functools.partial(make, count, vertices) if fits else None
    return None


_downloads: collections.Counter[str] = collections.Counter()
_lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/downloads":
            with _lock:
                self._send(orjson.dumps(dict(_downloads)), "application/json")
            return
        make = dataset(self.path)
        if make is None:
            self.send_error(404, "try /points/<n>.geojson or /lines/<count>x<vertices>.geojson")
            return
        with _lock:
            _downloads[self.path] += 1
        self._send(make(), "application/geo+json")

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve_geojson(timeout: float = 30.0) -> Iterator[str]:
    """Serve from a child process on a free 127.0.0.1 port; yields the base URL.

    A process of its own, so the replay's busy event loop (decoding app data)
    never holds up a replica's download.
    """
    port = free_port()
    command = [sys.executable, "-m", "loadtest.geojson_site", "--port", str(port)]
    with serving("geojson-site", command, port, ready=wait_listening, timeout=timeout) as site:
        yield site.url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.geojson_site", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), _Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
