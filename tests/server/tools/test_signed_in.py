"""The tools for a signed-in caller (sign-in on, `OAUTH_ISSUER`), in process.

The SDK keeps a request's verified token in a context variable (`AuthContextMiddleware`
sets it over HTTP); here the test sets it around the in-memory client, so each tool call
runs as that user would over HTTP: `Caller.user`, the call's scope and its log line,
the user's budget, the tile token.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import pytest
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from server.auth import User
from server.tiles import TileTokens
from server.tools.app_only import MAP_CONFIG_KEY
from tests.server.harness import tool_client

ISSUER = "https://as.example.test"
SECRET = "tile-secret-for-the-in-process-tests-0123456789"
SIGNED_IN = {
    "oauth_issuer": ISSUER,
    "public_url": "https://maps.example.test/mcp",
    "tile_token_secrets": (SECRET,),
}


@contextlib.contextmanager
def signed_in_as(subject: str) -> Iterator[User]:
    """Requests made inside the block carry a verified token of `subject`."""
    token = AccessToken(
        token="opaque-test-token",
        client_id="test-client",
        scopes=["maps"],
        subject=subject,
        claims={"iss": ISSUER},
    )
    reset = auth_context_var.set(AuthenticatedUser(token))
    try:
        yield User(ISSUER, subject)
    finally:
        auth_context_var.reset(reset)


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
    grant = TileTokens([SECRET], 60).open(template.rsplit("t=", 1)[1])
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
