"""Assembles each view into one self-contained HTML document at start-up.

Hosts render a view from a single `ui://` resource, often under a CSP that
forbids every outside script, so the vendored bundles, the shared core and
the view's entry script are all inlined. No Node.js is needed at run time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_ROOT = Path(__file__).parent
_CORE = (
    "core/e5.js",
    "core/bounds.js",
    "core/style.js",
    "core/envelope.js",
    "core/hosts.js",
    "core/view.js",
)
_MAP = ("vendor/maplibre-gl.js", *_CORE, "core/map.js")
_CLOSING = re.compile(r"</(script|style)", re.IGNORECASE)


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


class AssemblyError(Exception):
    """A source file would break out of its inline tag; refresh or fix that file."""


def _read(relative: str) -> str:
    return (_ROOT / relative).read_text(encoding="utf-8")


def _inline(tag: str, relative: str) -> str:
    text = _read(relative)
    if _CLOSING.search(text) or "<!--" in text:
        raise AssemblyError(
            f"widgets/{relative} contains </script, </style or <!-- and cannot be inlined"
        )
    return f"<{tag}>/* widgets/{relative} */\n{text}\n</{tag}>"


def document(view: str, title: str, scripts: tuple[str, ...], styles: tuple[str, ...]) -> str:
    """One HTML document: the shell with the given styles and scripts inlined in order."""
    page = _read("shell.html")
    for key, value in (
        ("styles", "\n".join(_inline("style", s) for s in styles)),
        ("scripts", "\n".join(_inline("script", s) for s in scripts)),
        ("title", title),
        ("view", view),
    ):
        page = page.replace("{{" + key + "}}", value)
    return page


@cache
def _map_document(view: str, title: str, entry: str) -> str:
    return document(
        view,
        title,
        ("vendor/ext-apps-app.js", *_MAP, entry),
        ("vendor/maplibre-gl.css", "core/view.css"),
    )


def pinned_versions() -> dict[str, str]:
    """The npm versions the vendored bundles were built from."""
    return json.loads(_read("vendor/versions.json"))


@cache
def preview_document() -> str:
    """The `/preview` host page: AppBridge + MCP client, inlined like the views."""
    page = _read("preview/preview.html")
    for key, relative in (
        ("{{host_bundle}}", "vendor/mcp-host.js"),
        ("{{preview_js}}", "preview/preview.js"),
    ):
        page = page.replace(key, _inline("script", relative))
    return page.replace("{{preview_css}}", _inline("style", "preview/preview.css"))
