"""`tomtom-mcp-apps fit FILE [--budget CHARS] [-o OUT]`: fit a GeoJSON file as the server would.

FILE is a GeoJSON Feature or FeatureCollection of lines and polygons whose index-bearing
properties (docs/result.md) count the feature's vertices, parts concatenated. Prints the
fitting figures as one line of JSON; `-o` writes the decoded envelope as sent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import orjson

DEFAULT_BUDGET = 120_000


def add_parser(sub: Any) -> None:
    """Registers the `fit` subcommand on the CLI's subparsers."""
    parser = sub.add_parser(
        "fit",
        help="fit a GeoJSON file under a character budget",
        description=__doc__.split("\n\n")[1],
    )
    parser.add_argument("file", metavar="FILE", type=Path, help="GeoJSON Feature or collection")
    parser.add_argument(
        "--budget",
        metavar="CHARS",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"largest app-data string, in characters (default {DEFAULT_BUDGET})",
    )
    parser.add_argument("-o", dest="out", metavar="OUT", type=Path, help="write the envelope here")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Fits FILE; 0 on success, 1 with one message on stderr otherwise."""
    from tomtom_mcp_apps import fitting  # here: numba loads after the kernel cache is set

    try:
        envelope = _envelope(args.file)
        fitting.warm_up()  # load the kernels first, so `ms` times the fit alone
        started = time.perf_counter()
        result = fitting.fit(envelope, args.budget)
        ms = (time.perf_counter() - started) * 1000.0
    except (_BadInput, fitting.FittingError, ValueError) as exc:
        print(f"tomtom-mcp-apps fit: {exc}", file=sys.stderr)
        return 1
    sent = fitting.decode(result.app_data)
    report = result.report
    figures = {
        "fitted": report is not None,
        "original_points": fitting.point_count(envelope),
        "points": _sent_points(sent["data"]),
        "max_error_m": report["max_error_m"] if report else None,
        "chars": len(result.app_data),
        "ms": round(ms, 2),
    }
    print(orjson.dumps(figures).decode())
    if args.out is not None:
        try:
            args.out.write_bytes(orjson.dumps(sent))
        except OSError as exc:
            print(f"tomtom-mcp-apps fit: cannot write {args.out}: {exc}", file=sys.stderr)
            return 1
    return 0


class _BadInput(Exception):
    """FILE cannot be read as GeoJSON; `run` prints the message (control flow inside this
    command, so not in `server.errors`)."""


def _envelope(path: Path) -> dict[str, Any]:
    from tomtom_mcp_apps import fitting

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _BadInput(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        geojson = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise _BadInput(f"{path} is not JSON: {exc}") from None
    kind = geojson.get("type") if isinstance(geojson, dict) else None
    if kind == "Feature":
        data = {"type": "FeatureCollection", "features": [geojson]}
    elif kind == "FeatureCollection":
        data = geojson
    else:
        raise _BadInput(
            f"{path} is not a GeoJSON Feature or FeatureCollection (its type is {kind!r})"
        )
    return fitting.envelope("fit", data)


def _sent_points(data: dict[str, Any]) -> int:
    total = 0
    for feature in data.get("features", []):
        geometry = feature.get("geometry") or {}
        if "e5" in geometry:
            total += _e5_points(geometry["e5"])
    return total


def _e5_points(e5: Any) -> int:
    if e5 and isinstance(e5[0], list):
        return sum(_e5_points(part) for part in e5)
    return len(e5) // 2
