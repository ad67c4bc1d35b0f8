"""The settings a serving command starts with: the environment, the command's flags over
it, and one line on stderr when they cannot work (over stdio, stdout is the protocol)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import ConfigError


def settings_of(args: argparse.Namespace, **flags: Any) -> Settings | None:
    """`Settings.from_env` with `--fit-workers` and `flags`; None, said on stderr, when a
    value cannot work (the command then exits 2)."""
    if args.fit_workers is not None and args.fit_workers < 1:
        print("tomtom-mcp-apps: --fit-workers must be at least 1", file=sys.stderr)
        return None
    try:
        return Settings.from_env(fit_workers=args.fit_workers, **flags)
    except ConfigError as exc:
        print(f"tomtom-mcp-apps: {exc}", file=sys.stderr)
        return None
