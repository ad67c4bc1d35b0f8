"""A tiny local HTTP server of GeoJSON for data-viz `data_url`s, counting its downloads.

Seeded FeatureCollections in Europe, the shapes of typical caller datasets:

- `/points/<n>.geojson`: `n` points with `name` and `value` properties;
- `/lines/<count>x<vertices>.geojson`: `count` wandering lines (GPS-like traces,
  a vertex every few tens of metres, 6 decimals) with `id`, `name` and `speed`;
- `/polygons/<count>x<vertices>.geojson`: `count` closed rings of `vertices`
  positions (wavy circles of a few km, 6 decimals) with `id`, `name` and `area`.

A single `Range: bytes=a-b` is honoured (206 with its `Content-Range`), as static
file hosts do, unless `--ignore-range`. `GET /downloads` answers `{path: requests so
far}` of the data paths, `GET /bytes` `{path: body bytes sent so far}`. It runs on
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
_sent: collections.Counter[str] = collections.Counter()
_lock = threading.Lock()
_ranges = [True]
"""Whether `Range` is honoured (`--ignore-range`: a host that always answers 200)."""
_RANGE = re.compile(r"bytes=(\d+)-(\d+)")


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path in ("/downloads", "/bytes"):
            with _lock:
                counts = _downloads if self.path == "/downloads" else _sent
                self._send(orjson.dumps(dict(counts)), "application/json")
            return
        make = dataset(self.path)
        if make is None:
            self.send_error(404, "try /points/<n>.geojson or /lines/<count>x<vertices>.geojson")
            return
        body = make()
        match = _RANGE.fullmatch(self.headers.get("range", "")) if _ranges[0] else None
        if match and int(match[1]) < len(body):
            first, last = int(match[1]), min(int(match[2]), len(body) - 1)
            body, whole = body[first : last + 1], len(body)
            extra = {"content-range": f"bytes {first}-{last}/{whole}"}
            status = 206
        else:
            extra, status = {}, 200
        with _lock:
            _downloads[self.path] += 1
            _sent[self.path] += len(body)
        self._send(body, "application/geo+json", status, extra)

    def _send(
        self, body: bytes, content_type: str, status: int = 200, extra: dict | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve_geojson(timeout: float = 30.0, ranges: bool = True) -> Iterator[str]:
    """Serve from a child process on a free 127.0.0.1 port; yields the base URL.

    A process of its own, so the replay's busy event loop (decoding app data)
    never holds up a replica's download.
    """
    port = free_port()
    command = [sys.executable, "-m", "loadtest.geojson_site", "--port", str(port)]
    command += [] if ranges else ["--ignore-range"]
    with serving("geojson-site", command, port, ready=wait_listening, timeout=timeout) as site:
        yield site.url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.geojson_site", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ignore-range", action="store_true", help="answer 200 to every Range")
    args = parser.parse_args(argv)
    _ranges[0] = not args.ignore_range
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
