"""`tomtom-mcp-apps upstream`: serve the built-in offline TomTom upstream over HTTP.

For load tests and demos that want the upstream in its own process; the server
itself mounts the same app in process when no TomTom key is configured.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    """Register the `upstream` subcommand on `sub` (an argparse subparsers object)."""
    parser = sub.add_parser(
        "upstream",
        help="serve the offline TomTom upstream",
        description="Serve the offline emulation of the TomTom REST API "
        "(search, routing, reachable range, traffic incidents, raster map and traffic tiles).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8100, help="port to listen on (8100; 0 picks a free one)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from tomtom_mcp_apps.server.offline import build_upstream_app

    uvicorn.run(
        build_upstream_app(),
        host=args.host,
        port=args.port,
        access_log=False,
        log_level="info",
        timeout_graceful_shutdown=2,
        timeout_keep_alive=30,  # longer than the server's client keeps idle connections
        proxy_headers=False,  # no address is rewritten from X-Forwarded-For
    )
    return 0
