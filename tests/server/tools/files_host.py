"""A caller's file host on this machine, for the tools that download a `data_url`."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def files_served(files: Mapping[str, bytes], content_types: Mapping[str, str]) -> Iterator[str]:
    """Serves `files` by path, each with the content type of its suffix; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = files[self.path]
            self.send_response(200)
            self.send_header("content-type", content_types[self.path.rsplit(".", 1)[-1]])
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
