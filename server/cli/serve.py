"""`tomtom-mcp-apps serve`: run one stateless replica with uvicorn, draining on SIGTERM."""

from __future__ import annotations

import argparse
import atexit

from tomtom_mcp_apps.server.cli._settings import settings_of
from tomtom_mcp_apps.server.ops.logs import configure_logging


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the MCP server (POST /mcp, GET /health, GET /metrics)",
        description="Run the MCP server. With no TOMTOM_API_KEY it uses the built-in offline "
        "upstream. Settings come from the environment (see README).",
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--fit-workers", type=int, help="fitting processes (default FIT_WORKERS or 2)")
    p.add_argument("--preview", action="store_true", help="also serve the /preview host page")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_of(args, preview=args.preview or None)
    if settings is None:
        return 2
    if settings.public_url is None:  # a local server: its own address (README, PUBLIC_URL)
        host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
        host = f"[{host}]" if ":" in host else host
        settings = settings.model_copy(update={"public_url": f"http://{host}:{args.port}/mcp"})
    configure_logging(settings.log_level, settings.log_json)
    # Imported here, as every subcommand's server: the command line itself stays light, for
    # the other subcommands and for fitting workers, which import it again when it runs as
    # the `tomtom-mcp-apps` script.
    import uvicorn

    from tomtom_mcp_apps.server.app import build_app
    from tomtom_mcp_apps.server.cli._draining import DrainingServer
    from tomtom_mcp_apps.server.http import ConnectionLimits, guarded
    from tomtom_mcp_apps.server.ops import tracing
    from tomtom_mcp_apps.server.ops.drain import Drain

    if tracing.configure(settings.traces_exporter):
        atexit.register(tracing.shutdown)

    drain = Drain()
    config = uvicorn.Config(
        build_app(settings, drain),
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,
        # libuv's event loop and the C HTTP parser: less event-loop time per request
        # (docs/runtime.md), the parser's protocol with header time and size bounded and
        # idle connections timed from their first moment (docs/front-door.md).
        loop="uvloop",
        http=guarded(ConnectionLimits.of(settings)),
        # Longer than a balancer's idle timeout (nginx here: 4 s), so the balancer, not the
        # replica, closes idle connections and never sends on one being closed.
        timeout_keep_alive=settings.http_idle_timeout_s,
    )
    server = DrainingServer(
        config, drain, delay_s=settings.drain_delay_s, timeout_s=settings.drain_timeout_s
    )
    server.run()
    return 0
