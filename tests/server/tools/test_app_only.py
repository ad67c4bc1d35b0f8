"""The widget-only tools: status reports are logged, the map config keeps the key out of text."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import generate_latest

from tests.server.harness import tool_client
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.tiles import TileTokens
from tomtom_mcp_apps.server.tomtom._errors import key_forms
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY


async def test_an_error_status_is_logged_as_a_warning_with_its_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="tomtom_mcp_apps.server.tools.app_only")
    report = {
        "tool": "tomtom-routing",
        "status": "error",
        "reason": "no_app_data",
        "detail": "the host dropped _meta",
    }
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-report-app-status", report)
    assert not outcome.is_error and outcome.answer == {"logged": True}
    (record,) = [r for r in caplog.records if r.name == "tomtom_mcp_apps.server.tools.app_only"]
    assert record.levelno == logging.WARNING
    assert (record.tool, record.status, record.reason, record.detail) == (
        "tomtom-routing",
        "error",
        "no_app_data",
        "the host dropped _meta",
    )


async def test_an_ok_status_is_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tomtom_mcp_apps.server.tools.app_only")
    async with tool_client() as tools:
        await tools.call(
            "tomtom-report-app-status",
            {"tool": "tomtom-geocode", "status": "ok", "reason": "drawn"},
        )
    (record,) = [r for r in caplog.records if r.name == "tomtom_mcp_apps.server.tools.app_only"]
    assert record.levelno == logging.INFO


async def test_a_view_drawn_without_its_map_engine_is_logged_as_a_warning_and_counted_per_host(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="tomtom_mcp_apps.server.tools.app_only")
    labels = {"tool": "tomtom-routing", "reason": "fallback", "host": "inspector"}
    labels |= {"platform": "web"}
    before = widget_count(**labels)
    report = {
        "tool": "tomtom-routing",
        "status": "ok",
        "reason": "fallback",
        "detail": "3 features, offline basemap; map engine blocked by the host's CSP: worker-src",
        "host": {"name": "MCP Inspector", "version": "2.0.0", "platform": "web"},
    }
    async with tool_client() as tools:
        await tools.call("tomtom-report-app-status", report)
    (record,) = [r for r in caplog.records if r.name == "tomtom_mcp_apps.server.tools.app_only"]
    assert record.levelno == logging.WARNING
    assert "worker-src" in record.detail
    assert widget_count(**labels) == before + 1


def widget_count(**labels: str) -> float:
    full = {"tool": "other", "status": "ok", "reason": "other", "host": "unknown"}
    full |= {"platform": "unknown"} | labels
    value = metrics.REGISTRY.get_sample_value("tomtom_mcp_widget_status_total", full)
    return value or 0.0


async def test_reports_are_counted_by_tool_reason_and_host_with_unknown_values_folded() -> None:
    dropped = {"tool": "tomtom-routing", "status": "error", "reason": "meta_dropped"}
    claude = {**dropped, "host": "claude", "platform": "desktop"}
    made_up = {"tool": "other", "status": "ok", "reason": "other", "host": "other"}
    before = widget_count(**claude), widget_count(**made_up, platform="web")
    async with tool_client() as tools:
        await tools.call(
            "tomtom-report-app-status",
            {**dropped, "host": {"name": "claude-ai", "version": "1.2", "platform": "desktop"}},
        )
        await tools.call(
            "tomtom-report-app-status",
            {
                "tool": "made-up-tool",
                "status": "ok",
                "reason": "made-up-reason",
                "host": {"name": "Some Host 9000", "platform": "web"},
            },
        )
    assert widget_count(**claude) == before[0] + 1
    assert widget_count(**made_up, platform="web") == before[1] + 1
    exposed = generate_latest(metrics.REGISTRY).decode()
    assert "made-up" not in exposed and "Some Host" not in exposed


async def test_a_report_without_a_host_is_counted_under_an_unknown_host() -> None:
    before = widget_count(tool="tomtom-geocode", reason="drawn")
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-report-app-status",
            {"tool": "tomtom-geocode", "status": "ok", "reason": "drawn"},
        )
    assert not outcome.is_error
    assert widget_count(tool="tomtom-geocode", reason="drawn") == before + 1


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
        (
            {"tool": "x", "status": "ok", "reason": "r", "host": {"name": "h" * 101}},
            "at most 100 characters",
        ),
        (
            {"tool": "x", "status": "ok", "reason": "r", "host": {"platform": "fridge"}},
            "platform",
        ),
    ],
)
async def test_status_reports_are_bounded(report: dict, message: str) -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-report-app-status", report)
    assert outcome.is_error and message in outcome.text


SECRET = "tile-secret-for-the-in-process-tests-0123456789"
PUBLIC = "https://maps.example.test/mcp"


async def test_the_map_config_gives_templates_on_the_tile_route_and_never_the_key() -> None:
    async with tool_client(
        key="configured-key-123", tile_token_secrets=(SECRET,), public_url=PUBLIC
    ) as tools:
        outcome = await tools.call("tomtom-get-map-config", {"layers": ["traffic_flow"]})
    config = outcome.meta[MAP_CONFIG_KEY]
    assert list(config["tiles"]) == ["traffic_flow"]
    template = config["tiles"]["traffic_flow"]
    assert template.startswith("https://maps.example.test/tiles/traffic_flow/{z}/{x}/{y}.png?t=")
    grant = TileTokens([SECRET], 60).open(template.rsplit("t=", 1)[1])
    assert grant.key == "configured-key-123" and grant.layers == {"traffic_flow"}
    dumped = outcome.result.model_dump_json()
    assert all(form not in dumped for form in key_forms("configured-key-123"))


async def test_offline_the_map_config_has_no_tiles_and_says_why() -> None:
    async with tool_client(tile_token_secrets=(SECRET,), public_url=PUBLIC) as tools:
        outcome = await tools.call("tomtom-get-map-config", {})
    assert outcome.meta[MAP_CONFIG_KEY] == {
        "tiles": {},
        "refetch": False,
        "offline": True,
        "reason": "offline demo data: no TomTom tiles",
    }
    assert "offline" in outcome.text


async def test_without_a_tile_secret_a_keyed_caller_is_told_there_are_no_tiles() -> None:
    async with tool_client(key="configured-key-123", public_url=PUBLIC) as tools:
        outcome = await tools.call("tomtom-get-map-config", {})
    assert outcome.meta[MAP_CONFIG_KEY]["tiles"] == {}
    assert "TILE_TOKEN_SECRET" in outcome.meta[MAP_CONFIG_KEY]["reason"]


async def test_an_unknown_tile_layer_is_refused_by_name() -> None:
    async with tool_client(key="k", tile_token_secrets=(SECRET,), public_url=PUBLIC) as tools:
        outcome = await tools.call("tomtom-get-map-config", {"layers": ["satellite"]})
    assert outcome.is_error and "basemap" in outcome.text
