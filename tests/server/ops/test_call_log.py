"""A tool call logs one line at INFO: its outcome and time, its TomTom requests and their
time, and what became of its map data (operators read one line per call, and a replica
writes a third of the lines it wrote with one per step)."""

from __future__ import annotations

import logging

import pytest

from tests.server.harness import AMSTERDAM, UTRECHT, tool_client
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY


async def test_a_call_logs_one_line_with_its_requests_and_what_became_of_its_map_data(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with tool_client() as tools:
        await tools.call("tomtom-geocode", {"query": "Amsterdam"})  # warm
        caplog.set_level(logging.DEBUG)
        caplog.clear()
        outcome = await tools.call("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    assert not outcome.is_error, outcome.text
    ours = [r for r in caplog.records if r.name.startswith("tomtom_mcp_apps.server.")]
    info = [r for r in ours if r.levelno >= logging.INFO]
    assert [r.getMessage() for r in info] == ["tool call"], "one line at INFO per call"
    (line,) = info
    facts = vars(line)
    assert facts["tool"] == "tomtom-routing" and facts["outcome"] == "ok"
    assert facts["upstream"] == "offline" and facts["upstream_requests"] == 1
    assert 0 < facts["upstream_ms"] < facts["ms"]
    assert facts["app_data"] == "as_is" and facts["app_data_where"] == "inline"
    assert facts["app_data_chars"] == len(outcome.meta[APP_DATA_KEY])
    # Each request still has its own line for whoever turns DEBUG on.
    assert [r.getMessage()[:36] for r in ours if r.levelno == logging.DEBUG] == [
        "offline upstream GET /routing/1/calc"
    ]


async def test_a_failed_request_is_a_warning_of_its_own_and_the_call_line_says_the_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with tool_client(key="offline-500") as tools:
        caplog.set_level(logging.INFO)
        outcome = await tools.call("tomtom-geocode", {"query": "Amsterdam"})
    assert outcome.is_error
    lines = {
        r.getMessage()[:10]: r
        for r in caplog.records
        if r.name.startswith("tomtom_mcp_apps.server.")
    }
    assert lines["tool call"].levelno == logging.WARNING
    assert lines["tool call"].outcome == "tool_error"
    assert "upstream_requests" not in vars(lines["tool call"])
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("GET /search/2/geocode/Amsterdam.json: unavailable" in m for m in warned), warned
