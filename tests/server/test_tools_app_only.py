"""The widget-only tools: status reports are logged, the map config keeps the key out of text."""

from __future__ import annotations

import logging

import pytest

from server.ops import metrics
from server.tools.app_only import MAP_CONFIG_KEY
from tests.server.harness import tool_client


async def test_an_error_status_is_logged_as_a_warning_with_its_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="server.tools.app_only")
    report = {
        "tool": "tomtom-routing",
        "status": "error",
        "reason": "no_app_data",
        "detail": "the host dropped _meta",
    }
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-report-app-status", report)
    assert not outcome.is_error and outcome.answer == {"logged": True}
    (record,) = [r for r in caplog.records if r.name == "server.tools.app_only"]
    assert record.levelno == logging.WARNING
    assert (record.tool, record.status, record.reason, record.detail) == (
        "tomtom-routing",
        "error",
        "no_app_data",
        "the host dropped _meta",
    )


async def test_an_ok_status_is_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="server.tools.app_only")
    async with tool_client() as tools:
        await tools.call(
            "tomtom-report-app-status",
            {"tool": "tomtom-geocode", "status": "ok", "reason": "drawn"},
        )
    (record,) = [r for r in caplog.records if r.name == "server.tools.app_only"]
    assert record.levelno == logging.INFO


def widget_count(tool: str, status: str) -> float:
    labels = {"tool": tool, "status": status}
    value = metrics.REGISTRY.get_sample_value("tomtom_mcp_widget_status_total", labels)
    return value or 0.0


async def test_reports_are_counted_with_unknown_tool_names_folded_into_other() -> None:
    before_known = widget_count("tomtom-routing", "error")
    before_other = widget_count("other", "ok")
    async with tool_client() as tools:
        await tools.call(
            "tomtom-report-app-status", {"tool": "tomtom-routing", "status": "error", "reason": "r"}
        )
        await tools.call(
            "tomtom-report-app-status", {"tool": "made-up-tool", "status": "ok", "reason": "r"}
        )
    assert widget_count("tomtom-routing", "error") == before_known + 1
    assert widget_count("other", "ok") == before_other + 1
    assert (
        metrics.REGISTRY.get_sample_value(
            "tomtom_mcp_widget_status_total", {"tool": "made-up-tool", "status": "ok"}
        )
        is None
    )


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ({"tool": "x", "status": "fine", "reason": "r"}, "status"),
        ({"tool": "x", "status": "ok", "reason": "r" * 201}, "at most 200 characters"),
        (
            {"tool": "x", "status": "ok", "reason": "r", "detail": "d" * 2001},
            "at most 2000 characters",
        ),
        ({"tool": "x" * 65, "status": "ok", "reason": "r"}, "at most 64 characters"),
    ],
)
async def test_status_reports_are_bounded(report: dict, message: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-report-app-status", report)
    assert outcome.is_error and message in outcome.text


async def test_the_map_config_carries_the_key_in_meta_only() -> None:
    async with tool_client(key="configured-key-123") as tools:
        outcome = await tools.call("tomtom-get-map-config", {})
    config = outcome.meta[MAP_CONFIG_KEY]
    assert config["key"] == "configured-key-123"
    assert "configured-key-123" not in outcome.text
    tiles = config["tiles"]
    assert tiles["basemap"].startswith("https://api.tomtom.com/map/1/tile/basic/main/{z}/{x}/{y}")
    assert "/traffic/map/4/tile/flow/" in tiles["traffic_flow"]
    assert "/traffic/map/4/tile/incidents/" in tiles["traffic_incidents"]
    assert all("key=" not in url for url in tiles.values())


async def test_offline_the_map_config_has_no_key() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-get-map-config", {})
    assert outcome.meta[MAP_CONFIG_KEY]["key"] is None
    assert "offline" in outcome.text
