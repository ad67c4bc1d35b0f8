"""What a view's status report may say, and the bounded label values it is counted under.

Views report the host they run in with every outcome, so `/metrics` shows per host how
often the map arrived and how often `_meta` was dropped (docs/views.md, Outcomes and
reports). Host names are folded into a short list of families; anything else is `other`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from tomtom_mcp_apps.server.ops import metrics

VIEW_REASONS = frozenset(
    {
        "drawn",
        "empty",
        "tiles_failed",
        "tool_error",
        "meta_dropped",
        "too_large",
        "invalid",
        "ui_disabled",
        "no_app_data",
        "decode_failed",
        "no_result",
        "fetch_failed",
        "no_input",
        "bad_layers",
        "bad_input",
        "render_failed",
        "fallback",
    }
)
"""Every `reason` a view reports (docs/views.md, Outcomes and reports); `fallback`: drawn
without MapLibre, which could not start (the detail says why)."""

_FAMILIES = (  # (substring of the host's lower-cased name, label), first match wins
    ("claude-code", "claude-code"),
    ("claude", "claude"),
    ("chatgpt", "chatgpt"),
    ("openai", "chatgpt"),
    ("preview", "preview"),
    ("vscode", "vscode"),
    ("visual studio", "vscode"),
    ("goose", "goose"),
    ("mcpjam", "mcpjam"),
    ("cursor", "cursor"),
    ("inspector", "inspector"),
)


class HostInfo(BaseModel):
    """The host a view runs in, as the view learnt it from the host."""

    name: Annotated[str, Field(max_length=100, description="getHostVersion().name")] = ""
    version: Annotated[str, Field(max_length=50, description="getHostVersion().version")] = ""
    platform: Literal["web", "desktop", "mobile", ""] = ""


def host_label(host: HostInfo | None) -> str:
    """The host's family for metric labels: claude, chatgpt, ..., other, or unknown."""
    name = (host.name if host else "").strip().lower()
    if not name:
        return "unknown"
    return next((label for part, label in _FAMILIES if part in name), metrics.OTHER)


def platform_label(host: HostInfo | None) -> str:
    return (host.platform if host else "") or "unknown"


def reason_label(reason: str) -> str:
    return metrics.bounded(reason, VIEW_REASONS)
