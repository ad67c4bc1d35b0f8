"""Settings come from the environment; a value the server cannot use stops it with the
variable's name and what would do."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tomtom_mcp_apps.server.config import API_FAMILIES, Settings, claude_ui_domain
from tomtom_mcp_apps.server.errors import ConfigError
from tomtom_mcp_apps.server.tomtom import FAMILIES


def test_fit_order_defaults_to_least_work_and_accepts_arrival() -> None:
    assert Settings.from_env({}).fit_order == "least-work"
    assert Settings.from_env({"FIT_ORDER": "Arrival"}).fit_order == "arrival"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FIT_ORDER": "shortest"}, "FIT_ORDER='shortest': use arrival or least-work"),
        ({"FIT_WORKERS": "0"}, "FIT_WORKERS=0: must be at least 1"),
        ({"APP_DATA_BUDGET": "lots"}, "APP_DATA_BUDGET='lots': expected a whole number"),
        ({"LOG_LEVEL": "loud"}, "LOG_LEVEL='LOUD': use DEBUG, INFO, WARNING or ERROR"),
        (
            {"TOMTOM_QPS": "routing=fast"},
            "TOMTOM_QPS: 'routing=fast' is not family=queries-per-second",
        ),
        ({"TOMTOM_QPS": "routing=0"}, "TOMTOM_QPS: routing must have a positive rate, got '0'"),
        ({"DRAIN_DELAY_S": "-1"}, "DRAIN_DELAY_S=-1.0: must be at least 0"),
        (
            {"DRAIN_DELAY_S": "30"},
            "DRAIN_TIMEOUT_S=25 must be longer than DRAIN_DELAY_S=30: calls need time to finish",
        ),
        (
            {"OTEL_TRACES_EXPORTER": "jaeger"},
            "OTEL_TRACES_EXPORTER='jaeger': use console, none, otlp",
        ),
        (
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "OTEL_EXPORTER_OTLP_PROTOCOL='grpc': this server exports OTLP over http/protobuf only",
        ),
    ],
)
def test_an_unusable_value_names_the_variable_and_what_would_do(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value) == message


SECRET = "a-tile-secret-long-enough-for-the-rule-0123"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"OFFLINE": "sometimes"}, "OFFLINE='sometimes': use auto, never, always"),
        ({"TOMTOM_API_KEY": "k"}, "TILE_TOKEN_SECRET is not set, but TOMTOM_API_KEY is set"),
        ({"OFFLINE": "never"}, "TILE_TOKEN_SECRET is not set, but OFFLINE=never"),
        ({"TILE_TOKEN_SECRET": "short"}, "each secret needs at least 32 characters"),
        ({"PUBLIC_URL": "maps.example.com/mcp"}, "give the MCP endpoint as users enter it"),
        ({"PUBLIC_URL": "https://maps.example.com/"}, "must end with the /mcp endpoint"),
        ({"PUBLIC_URL": "https://maps.example.com/mcp?x=1"}, "no query or fragment"),
        ({"UI_DOMAIN": "claude"}, "UI_DOMAIN=claude: set PUBLIC_URL too"),
        ({"TILE_TOKEN_TTL_S": "90000"}, "TILE_TOKEN_TTL_S=90000: at most 86400"),
        ({"VIEW_REFETCH": "sometimes"}, "VIEW_REFETCH='sometimes': expected 1/0, true/false"),
        ({"VIEW_REFETCH_PER_MIN": "0"}, "VIEW_REFETCH_PER_MIN=0: must be at least 1"),
        ({"MCP_CACHE_TTL_S": "-5"}, "MCP_CACHE_TTL_S=-5: must be at least 0"),
    ],
)
def test_a_hosted_setting_that_would_fail_later_stops_the_start(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        Settings.from_env(env)


def test_a_keyless_demo_server_starts_without_a_tile_secret_and_serves_no_tiles() -> None:
    settings = Settings.from_env({"PUBLIC_URL": "http://127.0.0.1:8000/mcp"})
    assert settings.offline_mode == "auto" and not settings.tiles_enabled
    always = Settings.from_env({"OFFLINE": "always", "TOMTOM_API_KEY": "k"})
    assert always.offline_mode == "always" and not always.serves_keyed


def test_a_stdio_server_needs_no_tile_secret_and_serves_no_tiles_even_given_one() -> None:
    keyed = Settings.from_env({"TOMTOM_API_KEY": "k"}, tiles=False)
    given = Settings.from_env({"TOMTOM_API_KEY": "k", "TILE_TOKEN_SECRET": SECRET}, tiles=False)
    assert keyed.api_key == given.api_key == "k"
    assert not keyed.tiles_enabled and not given.tiles_enabled


def test_view_refetch_is_off_unless_the_operator_turns_it_on() -> None:
    assert Settings.from_env({}).view_refetch is False
    on = Settings.from_env({"VIEW_REFETCH": "on", "VIEW_REFETCH_PER_MIN": "3"})
    assert (on.view_refetch, on.view_refetch_per_min) == (True, 3)


@pytest.mark.parametrize(
    "typed",
    [
        "https://maps.example.com/mcp",
        "https://maps.example.com/mcp/",  # trailing slash
        "https://Maps.Example.COM/mcp",  # upper-case host
        "https://maps.example.com:8443/mcp",  # port
    ],
)
def test_claudes_ui_domain_hashes_the_connector_url_exactly_as_typed(typed: str) -> None:
    settings = Settings.from_env(
        {"PUBLIC_URL": typed, "UI_DOMAIN": "claude", "TILE_TOKEN_SECRET": SECRET}
    )
    expected = hashlib.sha256(typed.encode()).hexdigest()[:32] + ".claudemcpcontent.com"
    assert settings.resource_ui_domain == expected
    assert re.fullmatch(r"[0-9a-f]{32}\.claudemcpcontent\.com", expected)


def test_claudes_documented_example_url_gives_its_documented_domain() -> None:
    # claude.com/docs/connectors/building/mcp-apps/getting-started, "Set ui.domain for Claude"
    assert claude_ui_domain("https://example.com/mcp") == (
        "c3d80a4ed901ee05b21755a88273b4a4.claudemcpcontent.com"
    )


def test_three_spellings_of_one_url_give_three_claude_domains_but_one_origin() -> None:
    spellings = ["https://maps.example.com/mcp", "https://maps.example.com/mcp/",
                 "https://MAPS.example.com/mcp"]  # fmt: skip
    settings = [Settings.from_env({"PUBLIC_URL": url, "UI_DOMAIN": "claude"}) for url in spellings]
    assert len({s.resource_ui_domain for s in settings}) == 3
    assert {s.public_origin for s in settings} == {"https://maps.example.com"}


def test_chatgpt_and_explicit_ui_domains_and_the_tile_route_follow_public_url() -> None:
    env = {"PUBLIC_URL": "https://Proxy.example.com/tomtom/mcp", "TILE_TOKEN_SECRET": SECRET}
    chatgpt = Settings.from_env({**env, "UI_DOMAIN": "chatgpt"})
    assert chatgpt.resource_ui_domain == "https://proxy.example.com"
    assert chatgpt.tiles_base_url == "https://proxy.example.com/tomtom/tiles"
    explicit = Settings.from_env({**env, "UI_DOMAIN": "maps-example.apps.example"})
    assert explicit.resource_ui_domain == "maps-example.apps.example"
    assert Settings.from_env(env).resource_ui_domain is None


def test_serve_refuses_to_start_with_a_key_and_no_tile_secret() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOMTOM_", "TILE_"))}
    done = subprocess.run(
        [sys.executable, "-m", "tomtom_mcp_apps", "serve", "--port", "0"],
        env={**env, "TOMTOM_API_KEY": "a-key"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "TILE_TOKEN_SECRET is not set, but TOMTOM_API_KEY is set" in done.stderr


def test_tomtom_qps_overrides_named_families_and_rejects_unknown_ones() -> None:
    settings = Settings.from_env({"TOMTOM_QPS": "routing=2.5, Search=5"})
    assert settings.tomtom_qps == (("routing", 2.5), ("search", 5.0))
    with pytest.raises(ConfigError, match="unknown API family 'routes'"):
        Settings.from_env({"TOMTOM_QPS": "routes=5"})


def test_every_api_family_can_be_configured() -> None:
    assert {family.name for family in FAMILIES} == API_FAMILIES


def test_traces_are_off_unless_an_otel_variable_turns_them_on() -> None:
    assert Settings.from_env({}).traces_exporter == "none"
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    assert Settings.from_env(endpoint).traces_exporter == "otlp"
    assert Settings.from_env({"OTEL_TRACES_EXPORTER": "console"}).traces_exporter == "console"
    disabled = {**endpoint, "OTEL_SDK_DISABLED": "true"}
    assert Settings.from_env(disabled).traces_exporter == "none"


def test_settings_built_from_arguments_read_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_DATA_BUDGET", "50000")
    assert Settings().budget == 120_000
    assert Settings(fit_workers=1).budget == 120_000
    assert Settings.from_env().budget == 50_000


def test_lists_are_comma_separated_and_an_empty_variable_is_unset() -> None:
    settings = Settings.from_env(
        {
            "ALLOWED_HOSTS": "maps.example.com, *.example.net,,",
            "TILE_TOKEN_SECRET": f"{SECRET}, {SECRET}-old",
            "LOG_LEVEL": "",
            "FIT_INLINE": "",
            "ALLOWED_ORIGINS": "",
        }
    )
    assert settings.allowed_hosts == ("maps.example.com", "*.example.net")
    assert settings.tile_token_secrets == (SECRET, f"{SECRET}-old")
    assert settings.log_level == "INFO" and settings.fit_inline is False
    assert (
        settings.allowed_origins == () and Settings.from_env({}).allowed_hosts[0] == "127.0.0.1:*"
    )


def test_a_command_line_flag_wins_over_its_variable_and_none_leaves_it() -> None:
    settings = Settings.from_env({"FIT_WORKERS": "5"}, fit_workers=1, preview=True)
    assert settings.fit_workers == 1 and settings.preview
    assert Settings.from_env({"FIT_WORKERS": "5"}, fit_workers=None).fit_workers == 5


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FIT_INLINE": "maybe"}, "FIT_INLINE='maybe': expected 1/0, true/false, yes/no or on/off"),
        ({"TOMTOM_TIMEOUT_S": "soon"}, "TOMTOM_TIMEOUT_S='soon': expected a number of seconds"),
        ({"TILE_RATE_PER_S": "fast"}, "TILE_RATE_PER_S='fast': expected a number"),
        ({"TILE_RATE_PER_S": "0"}, "TILE_RATE_PER_S=0.0: must be positive"),
        ({"DRAIN_DELAY_S": "inf"}, "DRAIN_DELAY_S='inf': expected a finite number"),
        ({"TILE_TOKEN_TTL_S": "59"}, "TILE_TOKEN_TTL_S=59: must be at least 60"),
        ({"TOMTOM_API_BASE_URL": "api.tomtom.com"}, "TOMTOM_API_BASE_URL='api.tomtom.com': must"),
        ({"OAUTH_LEEWAY_S": "600"}, "OAUTH_LEEWAY_S=600.0: at most 300"),
        ({"USER_QUOTA_PER_MIN": "-1"}, "USER_QUOTA_PER_MIN=-1: must be at least 0"),
        ({"QUOTA_STORE_DOWN": "panic"}, "QUOTA_STORE_DOWN='panic': use local or refuse"),
    ],
)
def test_a_value_the_model_refuses_reads_as_one_sentence_not_pydantics_report(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value) and "pydantic" not in str(caught.value)


def test_the_settings_doc_gives_every_variable_and_its_default() -> None:
    tables = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text()
    documented: dict[str, str | None] = {}
    for row in re.findall(r"^\| (`.*)$", tables, re.MULTILINE):
        names, defaults = row.split(" | ")[:2]
        given = re.findall(r"`([^`]*)`", defaults)
        for i, name in enumerate(re.findall(r"`([A-Z][A-Z0-9_]*)`", names)):
            documented[name] = given[i] if i < len(given) else None
    shown_by_serve = {"LOG_FORMAT": "text", "PUBLIC_URL": "http://<host>:<port>/mcp"}
    model: dict[str, str | None] = {}
    for field in Settings.model_fields.values():
        if isinstance(variable := field.validation_alias, str):
            model[variable] = shown_by_serve.get(variable, _as_variable(field.default))
    assert {v: d for v, d in documented.items() if not v.startswith("OTEL_")} == model


def _as_variable(default: object) -> str | None:
    """A default as its variable would spell it; None where docs/settings.md says unset/none."""
    if default is None or default == ():
        return None
    if isinstance(default, bool):
        return str(int(default))
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, tuple):
        return ",".join(default)
    return str(default)


# --- sign-in and budgets ---------------------------------------------------------------------


def test_sign_in_is_off_by_default_and_on_with_an_issuer() -> None:
    assert not Settings.from_env({}).sign_in
    settings = Settings.from_env(
        {
            "OAUTH_ISSUER": "https://kc.example.com/realms/maps",
            "OAUTH_SCOPES": "maps  mcp:tools",
            "PUBLIC_URL": "https://maps.example.com/mcp",
        }
    )
    assert settings.sign_in and settings.oauth_scopes == ("maps", "mcp:tools")
    assert settings.token_audience == "https://maps.example.com/mcp"
    audience = {"OAUTH_ISSUER": "https://as.example.com", "OAUTH_AUDIENCE": "api://maps"}
    assert Settings.from_env(audience).token_audience == "api://maps"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"OAUTH_ISSUER": "http://kc.example.com"}, "OAUTH_ISSUER='http://kc.example.com': an "),
        ({"OAUTH_ISSUER": "https://kc.example.com/?x=1"}, "OAUTH_ISSUER='https://kc.example.com/?"),
        ({"OAUTH_ALGORITHMS": "RS256,HS256"}, "OAUTH_ALGORITHMS: HS256 refused"),
        ({"OAUTH_ALGORITHMS": "none"}, "OAUTH_ALGORITHMS: none refused"),
        ({"USER_QUOTA_PER_DAY": "100"}, "USER_QUOTA_PER_MIN/USER_QUOTA_PER_DAY need OAUTH_ISSUER"),
        (
            {"OAUTH_ISSUER": "https://as.example.com", "OAUTH_INTROSPECTION": "opaque"},
            "OAUTH_INTROSPECTION=opaque needs OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET",
        ),
        ({"QUOTA_STORE": "memcached://cache:11211"}, "QUOTA_STORE=memcached://...: give a redis"),
    ],
)
def test_sign_in_settings_that_cannot_work_are_refused_at_start_up(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)
    assert str(caught.value).startswith(message)


def test_a_redis_password_in_quota_store_is_never_repeated_in_an_error() -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"QUOTA_STORE": "memcached://:hunter2@cache:11211"})
    assert "hunter2" not in str(caught.value)


def test_an_issuer_on_loopback_may_be_plain_http_for_local_tests() -> None:
    settings = Settings.from_env({"OAUTH_ISSUER": "http://127.0.0.1:9000"})
    assert settings.oauth_issuer == "http://127.0.0.1:9000"
