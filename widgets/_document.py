"""The built views: one self-contained HTML document each, read from `dist/`.

`npm run build` in widgets/ bundles and inlines every view into `shell.html`; the
documents are committed and shipped in the Python package, so the server never needs Node.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_ROOT = Path(__file__).parent
DIST = _ROOT / "dist"


@dataclass(frozen=True)
class View:
    """One MCP Apps view: a `ui://` resource and the origins its CSP must allow."""

    uri: str
    name: str
    title: str
    description: str
    html: str
    connect_domains: tuple[str, ...]
    resource_domains: tuple[str, ...]


class MissingBuild(Exception):
    """A document of `dist/` is missing: run `npm ci && npm run build` in widgets/."""


@cache
def built(name: str) -> str:
    """The built document `dist/<name>`."""
    path = DIST / name
    if not path.is_file():
        raise MissingBuild(
            f"widgets/dist/{name} is missing: run `npm ci && npm run build` in widgets/"
        )
    return path.read_text(encoding="utf-8")


def pinned_versions() -> dict[str, str]:
    """The npm versions the views are built from (`package.json`, exact pins)."""
    manifest = json.loads((_ROOT / "package.json").read_text(encoding="utf-8"))
    return dict(manifest["devDependencies"])
