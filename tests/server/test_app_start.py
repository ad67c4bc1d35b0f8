"""What a replica says at start-up about sign-in (`server.app`): an open key on a public URL
is called out once; a signed-in or local server is not."""

from __future__ import annotations

import logging

import pytest

from tomtom_mcp_apps.server.app import _log_modes
from tomtom_mcp_apps.server.auth import build_sign_in
from tomtom_mcp_apps.server.config import Settings

KEY_AND_SECRET = {"api_key": "operator-key", "tile_token_secrets": ("s" * 40,)}


def warnings_of(caplog: pytest.LogCaptureFixture, settings: Settings) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tomtom_mcp_apps.server.app"):
        _log_modes(settings, build_sign_in(settings))
    return [r.getMessage() for r in caplog.records if getattr(r, "event", "") == "open_key"]


def test_a_key_on_a_public_url_without_sign_in_is_called_out_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings(public_url="https://maps.example.com/mcp", **KEY_AND_SECRET)
    (warning,) = warnings_of(caplog, settings)
    assert "anyone who reaches this server spends that key" in warning
    assert "OAUTH_ISSUER" in warning and "operator-key" not in warning


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/mcp", "http://localhost:8000/mcp", "http://[::1]:8000/mcp"],
)
def test_a_local_server_with_a_key_says_nothing_of_the_kind(
    caplog: pytest.LogCaptureFixture, url: str
) -> None:
    assert warnings_of(caplog, Settings(public_url=url, **KEY_AND_SECRET)) == []


def test_a_signed_in_server_says_who_signs_users_in_instead(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings(
        public_url="https://maps.example.com/mcp",
        oauth_issuer="https://kc.example.com/realms/maps",
        oauth_scopes=("maps",),
        **KEY_AND_SECRET,
    )
    assert warnings_of(caplog, settings) == []
    said = [r.getMessage() for r in caplog.records if getattr(r, "event", "") == "sign_in"]
    assert said == [
        "sign-in on: POST /mcp needs a bearer token from https://kc.example.com/realms/maps for "
        "https://maps.example.com/mcp with scopes maps"
    ]


def test_a_keyless_demo_on_a_public_url_spends_no_key_and_is_not_called_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert warnings_of(caplog, Settings(public_url="https://demo.example.com/mcp")) == []
