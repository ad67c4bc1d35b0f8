"""`tomtom-mcp-apps stdio`: the same tools and views over stdio, for local hosts.

stdout is the protocol: logs go to stderr, and while the server runs the SDK points fd 1
at stderr, so nothing else (fitting workers included) writes into it. The key comes from
`TOMTOM_API_KEY`, else the offline upstream answers; with no tile route, views draw on
their basemap.
"""

from __future__ import annotations

import argparse
import gc
import logging

import anyio

from tomtom_mcp_apps.server.cli._settings import settings_of
from tomtom_mcp_apps.server.ops.logs import configure_logging

log = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stdio",
        help="serve MCP over stdin/stdout for a local host (VS Code, Goose, Claude Desktop)",
        description="Serve the MCP server over stdio. The TomTom key comes from "
        "TOMTOM_API_KEY; without one, the built-in offline upstream answers. Logs go to "
        "stderr. Settings come from the environment (see README).",
    )
    p.add_argument("--fit-workers", type=int, help="fitting processes (default FIT_WORKERS or 2)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_of(args, tiles=False)
    if settings is None:
        return 2
    configure_logging(settings.log_level, settings.log_json)

    from tomtom_mcp_apps.server.app import build_stdio_server

    mcp = build_stdio_server(settings)
    log.info(
        "serving MCP over stdio (%s)",
        "offline demo data" if settings.api_key is None else "TomTom, with TOMTOM_API_KEY",
        extra={"event": "stdio", "offline": settings.offline_mode},
    )
    anyio.run(mcp.run_stdio_async, backend_options={"use_uvloop": True})
    # Served, and the pool closed: what is left is the interpreter's exit, whose last
    # collections walk every object numba and the SDK made (seconds on a busy machine)
    # while the host waits for the process to end. Frozen, they are passed over.
    gc.freeze()
    return 0
