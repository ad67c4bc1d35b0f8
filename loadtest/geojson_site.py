"""A tiny local HTTP server of GeoJSON for data-viz `data_url`s.

`/points/<n>.geojson` is a seeded FeatureCollection of `n` points in Europe
with a numeric property, the shape of a typical caller dataset. It runs in a
thread of the replay on 127.0.0.1 (the replicas need DATA_VIZ_ALLOW_PRIVATE=1
to fetch from it).
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import orjson

MAX_POINTS = 500_000
_PATH = re.compile(r"^/points/(\d+)\.geojson$")


@functools.lru_cache(maxsize=8)
def points_geojson(n: int) -> bytes:
    """A FeatureCollection of `n` seeded points with `value` and `name` properties."""
    rng = np.random.default_rng(n)
    lon = np.round(rng.uniform(-9.0, 24.0, n), 5)
    lat = np.round(rng.uniform(37.0, 58.0, n), 5)
    value = np.round(rng.gamma(2.0, 50.0, n), 1)
    features = [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]},
         "properties": {"name": f"site {i}", "value": v}}
        for i, (x, y, v) in enumerate(zip(lon.tolist(), lat.tolist(), value.tolist(),
                                          strict=True))
    ]
    return orjson.dumps({"type": "FeatureCollection", "features": features})


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        match = _PATH.match(self.path)
        if not match or not 0 < int(match.group(1)) <= MAX_POINTS:
            self.send_error(404, f"try /points/<1..{MAX_POINTS}>.geojson")
            return
        body = points_geojson(int(match.group(1)))
        self.send_response(200)
        self.send_header("content-type", "application/geo+json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve_geojson() -> Iterator[str]:
    """Serve in a daemon thread on a free 127.0.0.1 port; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="geojson-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
