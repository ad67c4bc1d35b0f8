"""What a replica says or refuses at start-up about who spends the operator's key: a key
with no sign-in on a bind beyond loopback stops `serve` unless `OPEN_KEY=accept` says the
operator means it; a signed-in, keyless or local server starts as it is."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tomtom_mcp_apps.server.app import _log_modes
from tomtom_mcp_apps.server.auth import build_sign_in
from tomtom_mcp_apps.server.cli import main
from tomtom_mcp_apps.server.cli._open_key import open_key_refusal, warn_open_key
from tomtom_mcp_apps.server.config import Settings

KEY_AND_SECRET = {"api_key": "operator-key", "tile_token_secrets": ("s" * 40,)}


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "maps.internal"])
def test_a_key_without_sign_in_on_a_reachable_bind_refuses_naming_open_key(host: str) -> None:
    """Judged by the bind: `serve --host 0.0.0.0` fills PUBLIC_URL with 127.0.0.1 itself, and
    a caller writes the Host header it likes."""
    settings = Settings(public_url="http://127.0.0.1:8000/mcp", **KEY_AND_SECRET)
    refusal = open_key_refusal(settings, host)
    assert refusal is not None and "OPEN_KEY=accept" in refusal
    assert "OAUTH_ISSUER" in refusal and "operator-key" not in refusal


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_a_key_on_loopback_starts(host: str) -> None:
    assert open_key_refusal(Settings(**KEY_AND_SECRET), host) is None


def test_a_signed_in_keyless_or_accepted_server_starts() -> None:
    issuer = {"oauth_issuer": "https://kc.example.com/realms/maps", "public_url": "https://m/mcp"}
    assert open_key_refusal(Settings(**issuer, **KEY_AND_SECRET), "0.0.0.0") is None
    assert open_key_refusal(Settings(), "0.0.0.0") is None, "the offline demo spends no key"
    offline = Settings(offline_mode="always", **KEY_AND_SECRET)
    assert open_key_refusal(offline, "0.0.0.0") is None, "OFFLINE=always sends no key"
    assert open_key_refusal(Settings(open_key="accept", **KEY_AND_SECRET), "0.0.0.0") is None


def test_serve_stops_with_one_line_before_listening(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", os.environ.get("NUMBA_CACHE_DIR") or str(tmp_path))
    monkeypatch.setenv("TOMTOM_API_KEY", "operator-key")
    monkeypatch.setenv("TILE_TOKEN_SECRET", "s" * 40)
    monkeypatch.delenv("OAUTH_ISSUER", raising=False)
    monkeypatch.delenv("OPEN_KEY", raising=False)
    assert main(["serve", "--host", "0.0.0.0", "--port", "1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("tomtom-mcp-apps: TOMTOM_API_KEY is set, sign-in is off")
    assert "OPEN_KEY=accept" in line and "operator-key" not in line


def test_an_accepted_open_key_is_called_out_once(caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings(open_key="accept", **KEY_AND_SECRET)
    with caplog.at_level(logging.WARNING, logger="tomtom_mcp_apps.server.cli._open_key"):
        warn_open_key(settings, "0.0.0.0")
        warn_open_key(settings, "127.0.0.1")
    (warning,) = [r.getMessage() for r in caplog.records if getattr(r, "event", "") == "open_key"]
    assert "anyone who reaches this server spends that key" in warning


def test_a_signed_in_server_says_who_signs_users_in(caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings(
        public_url="https://maps.example.com/mcp",
        oauth_issuer="https://kc.example.com/realms/maps",
        oauth_scopes=("maps",),
        **KEY_AND_SECRET,
    )
    with caplog.at_level(logging.INFO, logger="tomtom_mcp_apps.server.app"):
        _log_modes(settings, build_sign_in(settings))
    said = [r.getMessage() for r in caplog.records if getattr(r, "event", "") == "sign_in"]
    assert said == [
        "sign-in on: POST /mcp needs a bearer token from https://kc.example.com/realms/maps for "
        "https://maps.example.com/mcp with scopes maps"
    ]
