"""`tomtom-mcp-apps` command line: `serve`, `upstream` (offline TomTom) and `fit`."""

from __future__ import annotations

import argparse
import sys

from server import fit_command, serve_command, upstream_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tomtom-mcp-apps", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve_command.add_parser(sub)
    upstream_command.add_parser(sub)
    fit_command.add_parser(sub)
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
