"""A tiny local HTTP server of GeoJSON for data-viz `data_url`s.

`/points/<n>.geojson` is a seeded FeatureCollection of `n` points in Europe
with a numeric property, the shape of a typical caller dataset. It runs on
127.0.0.1 (the replicas need DATA_VIZ_ALLOW_PRIVATE=1 to fetch from it).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import re
import signal
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import orjson

from loadtest.topology import free_port, serving, wait_listening

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
        {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [x, y]},
            "properties": {"name": f"site {i}", "value": v},
        }
        for i, (x, y, v) in enumerate(zip(lon.tolist(), lat.tolist(), value.tolist(), strict=True))
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
