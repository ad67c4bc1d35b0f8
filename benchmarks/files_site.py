"""A local HTTP server of fixed files for `data_url`s, counting its downloads.

`serve_files({"/addresses.csv": ("text/csv", body)})` serves each path with its content
type from a thread, on a free 127.0.0.1 port (the replicas need DATA_VIZ_ALLOW_PRIVATE=1
to fetch from it, as the topology sets); its `downloads` counts the requests per path.
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Site:
    url: str
    downloads: collections.Counter[str] = field(default_factory=collections.Counter)


@contextlib.contextmanager
def serve_files(files: Mapping[str, tuple[str, bytes]]) -> Iterator[Site]:
    """Serve `files` ({path: (content type, body)}) until the block ends."""
    lock = threading.Lock()
    site = Site("")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = files.get(self.path)
            if found is None:
                self.send_error(404)
                return
            with lock:
                site.downloads[self.path] += 1
            content_type, body = found
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
