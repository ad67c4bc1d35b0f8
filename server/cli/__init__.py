"""`tomtom-mcp-apps` command line: `serve` (HTTP), `stdio`, `upstream` (offline TomTom) and
`fit`."""

from __future__ import annotations

import argparse

from tomtom_mcp_apps.server.cli import fit, serve, stdio, upstream
from tomtom_mcp_apps.server.cli._kernel_cache import use_user_cache


def main(argv: list[str] | None = None) -> int:
    use_user_cache()  # before anything imports numba: no subcommand module does at import
    parser = argparse.ArgumentParser(prog="tomtom-mcp-apps", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve.add_parser(sub)
    stdio.add_parser(sub)
    upstream.add_parser(sub)
    fit.add_parser(sub)
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)
