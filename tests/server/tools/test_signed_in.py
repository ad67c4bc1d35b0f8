"""The tools for a signed-in caller (sign-in on, `OAUTH_ISSUER`), in process.

The SDK keeps a request's verified token in a context variable (`AuthContextMiddleware`
sets it over HTTP); here the test sets it around the in-memory client, so each tool call
runs as that user would over HTTP: `Caller.user`, the call's scope and its log line,
the user's budget, the tile token.
"""

from __future__ import annotations

import logging

import pytest

from tests.server.harness import SIGNED_IN, TILE_SECRET, signed_in_as, tool_client
from tomtom_mcp_apps.server.tiles import TileTokens
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY


async def test_with_sign_in_the_map_config_answers_only_a_signed_in_caller() -> None:
    async with tool_client(key="configured-key-123", **SIGNED_IN) as tools:
        outcome = await tools.call("tomtom-get-map-config", {})
    assert outcome.is_error
    assert "answers signed-in callers only" in outcome.text


async def test_a_signed_in_callers_tile_token_carries_their_user() -> None:
    with signed_in_as("alice") as alice:
        async with tool_client(key="configured-key-123", **SIGNED_IN) as tools:
            outcome = await tools.call("tomtom-get-map-config", {"layers": ["basemap"]})
    template = outcome.meta[MAP_CONFIG_KEY]["tiles"]["basemap"]
    grant = TileTokens([TILE_SECRET], 60).open(template.rsplit("t=", 1)[1])
    assert grant.user == alice.id and grant.key == "configured-key-123"


async def test_a_user_over_budget_gets_a_tool_error_with_the_retry_time_and_is_logged_as_a_hash(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        caplog.at_level(logging.INFO),
        signed_in_as("alice") as alice,
    ):
        async with tool_client(key="configured-key-123", user_quota_per_min=1, **SIGNED_IN) as t:
            assert t.runtime.budgets is not None
            # 30 s into a minute for both calls: they cannot fall in two windows
            monkeypatch.setattr(t.runtime.budgets, "_clock", lambda: 1_000_050.0)
            first = await t.call("tomtom-geocode", {"query": "Damrak 1, Amsterdam"})
            second = await t.call("tomtom-geocode", {"query": "Damrak 1, Amsterdam"})
    assert not first.is_error, first.text
    assert second.is_error
    assert "You have used your 1 TomTom requests per minute on this server" in second.text
    assert "retry in 30 s" in second.text
    calls = [r for r in caplog.records if getattr(r, "event", "") == "tool_call"]
    assert [getattr(r, "user", None) for r in calls] == [alice.id, alice.id]
    assert "alice" not in caplog.text and "opaque-test-token" not in caplog.text


async def test_a_signed_in_user_asking_again_gets_the_same_grant_not_a_fresh_one() -> None:
    """A new grant would be a fresh tile bucket: a user calling the map config again and
    again, on any replica, gets the grant they hold while it lasts."""
    layers = {"layers": ["basemap"]}
    with signed_in_as("alice"):
        async with tool_client(key="configured-key-123", **SIGNED_IN) as tools:
            configs = [
                (await tools.call("tomtom-get-map-config", layers)).meta[MAP_CONFIG_KEY]
                for _ in range(3)
            ]
        async with tool_client(key="configured-key-123", **SIGNED_IN) as other_replica:
            there = (await other_replica.call("tomtom-get-map-config", layers)).meta
    with signed_in_as("bob"):
        async with tool_client(key="configured-key-123", **SIGNED_IN) as tools:
            his = (await tools.call("tomtom-get-map-config", layers)).meta[MAP_CONFIG_KEY]
    tokens = {config["tiles"]["basemap"] for config in configs}
    assert len(tokens) == 1 and there[MAP_CONFIG_KEY]["tiles"]["basemap"] in tokens
    assert his["tiles"]["basemap"] not in tokens, "another user's grant is their own"
    ttl = 3600
    assert ttl // 2 <= configs[0]["expires_in"] <= ttl, "the view renews before it expires"


async def test_each_map_config_of_a_signed_in_user_spends_their_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with signed_in_as("alice"):
        async with tool_client(key="configured-key-123", user_quota_per_min=2, **SIGNED_IN) as t:
            assert t.runtime.budgets is not None
            monkeypatch.setattr(t.runtime.budgets, "_clock", lambda: 1_000_050.0)
            outcomes = [await t.call("tomtom-get-map-config", {}) for _ in range(3)]
    assert [o.is_error for o in outcomes] == [False, False, True]
    assert "You have used your 2 TomTom requests per minute" in outcomes[2].text
