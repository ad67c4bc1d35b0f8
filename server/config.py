"""Settings: one typed object read once at start-up from the environment.

Nothing else in the server reads `os.environ`; everything that varies between
deployments is here, with its default and the variable that sets it.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from server.errors import ConfigError

DEFAULT_API_BASE_URL = "https://api.tomtom.com"
OFFLINE_BASE_URL = "http://offline-upstream.invalid"
"""Base URL of the in-process offline upstream (never resolved: served through ASGI)."""


FIT_ORDERS = frozenset({"least-work", "arrival"})
"""How jobs waiting for the fitting pool are ordered (`server.pool`)."""

OFFLINE_MODES = ("auto", "never", "always")
"""`OFFLINE`: the offline upstream serves a request only when no key exists for it (auto),
never (every request needs a key), or always (demos and tests; no key is ever sent)."""

TILE_SECRET_MIN_CHARS = 32
CLAUDE_UI_DOMAIN_SUFFIX = ".claudemcpcontent.com"
API_FAMILIES = frozenset(
    {
        "search",
        "geocoding",
        "reverse_geocoding",
        "ev_search",
        "ev_availability",
        "routing",
        "matrix_routing",
        "ev_routing",
        "traffic",
        "map_display",
        "tiles",
        "other",
    }
)
"""Names `TOMTOM_QPS` may set: the families of `server/tomtom/_families.py` (a test keeps
the two equal)."""
TRACES_EXPORTERS = frozenset({"none", "otlp", "console"})
MIB = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """Deployment settings. `Settings.from_env()` names the variable of each field."""

    api_key: str | None = None
    api_base_url: str = DEFAULT_API_BASE_URL
    budget: int = 120_000
    allowed_hosts: tuple[str, ...] = ("127.0.0.1:*", "localhost:*", "[::1]:*")
    allowed_origins: tuple[str, ...] = ()
    log_level: str = "INFO"
    log_json: bool = False
    fit_workers: int = 2
    fit_order: str = "least-work"
    fit_inline: bool = False
    inline_points: int = 12_000
    upstream_timeout_s: float = 10.0
    """The whole TomTom request, first byte sent to last byte received."""
    upstream_connections: int = 200
    upstream_max_body_bytes: int = 32 * MIB
    upstream_max_decoded_bytes: int = 64 * MIB
    tomtom_qps: tuple[tuple[str, float], ...] = ()
    """Per-family rates replacing TomTom's defaults, e.g. (("routing", 2.5),)."""
    rate_wait_s: float = 10.0
    key_quota_per_min: int = 0
    call_deadline_s: float = 60.0
    drain_delay_s: float = 5.0
    drain_timeout_s: float = 25.0
    traces_exporter: str = "none"
    data_viz_max_bytes: int = 20 * 1024 * 1024
    data_viz_timeout_s: float = 15.0
    data_viz_allow_private: bool = False
    preview: bool = False
    offline_mode: str = "auto"
    public_url: str | None = None
    """The MCP endpoint exactly as users enter it in their host (`PUBLIC_URL`); `serve`
    fills in its own address when unset."""
    ui_domain: str | None = None
    """`UI_DOMAIN` as given: None, `claude`, `chatgpt`, or a value sent verbatim."""
    tile_token_secrets: tuple[str, ...] = ()
    """`TILE_TOKEN_SECRET`, comma-separated: the first seals tokens, every one opens them."""
    tile_token_ttl_s: int = 3600
    tile_rate_per_s: float = 20.0
    tile_burst: int = 200
    tile_max_bytes: int = 1024 * 1024

    @property
    def serves_keyed(self) -> bool:
        """Whether requests with a key reach TomTom (false only with `OFFLINE=always`)."""
        return self.offline_mode != "always"

    @property
    def tiles_enabled(self) -> bool:
        """The tile route serves: keyed callers exist and replicas share a token secret."""
        return self.serves_keyed and bool(self.tile_token_secrets)

    @property
    def public_origin(self) -> str | None:
        """`scheme://host[:port]` of `PUBLIC_URL`, host in lower case: the views' CSP origin."""
        if self.public_url is None:
            return None
        parts = urlsplit(self.public_url)
        return f"{parts.scheme.lower()}://{parts.netloc.lower()}"

    @property
    def tiles_base_url(self) -> str | None:
        """Where views load tiles: `PUBLIC_URL` with its final `/mcp` replaced by `/tiles`."""
        if self.public_url is None:
            return None
        path = urlsplit(self.public_url).path.rstrip("/").removesuffix("/mcp")
        return f"{self.public_origin}{path}/tiles"

    @property
    def resource_ui_domain(self) -> str | None:
        """The views' `_meta.ui.domain`: Claude's hash rule, ChatGPT's origin, a value given
        verbatim, or None (the host picks its own sandbox origin: always safe)."""
        if self.ui_domain is None:
            return None
        if self.ui_domain == "claude":
            return claude_ui_domain(self.public_url or "")
        if self.ui_domain == "chatgpt":
            return self.public_origin
        return self.ui_domain

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read every setting from `env` (default `os.environ`); `overrides` win (CLI flags)."""
        env = os.environ if env is None else env
        d = cls()
        settings = cls(
            api_key=env.get("TOMTOM_API_KEY") or None,
            api_base_url=env.get("TOMTOM_API_BASE_URL", d.api_base_url).rstrip("/"),
            budget=_int(env, "APP_DATA_BUDGET", d.budget, minimum=10_000),
            allowed_hosts=_list(env, "ALLOWED_HOSTS", d.allowed_hosts),
            allowed_origins=_list(env, "ALLOWED_ORIGINS", d.allowed_origins),
            log_level=env.get("LOG_LEVEL", d.log_level).upper(),
            log_json=env.get("LOG_FORMAT", "text").lower() == "json",
            fit_workers=_int(env, "FIT_WORKERS", d.fit_workers, minimum=1),
            fit_order=env.get("FIT_ORDER", d.fit_order).lower(),
            fit_inline=_bool(env, "FIT_INLINE", d.fit_inline),
            inline_points=_int(env, "FIT_INLINE_POINTS", d.inline_points, minimum=0),
            upstream_timeout_s=_float(env, "TOMTOM_TIMEOUT_S", d.upstream_timeout_s),
            upstream_connections=_int(env, "TOMTOM_MAX_CONNECTIONS", d.upstream_connections, 1),
            upstream_max_body_bytes=_int(
                env, "TOMTOM_MAX_BODY_BYTES", d.upstream_max_body_bytes, minimum=1024
            ),
            upstream_max_decoded_bytes=_int(
                env, "TOMTOM_MAX_DECODED_BYTES", d.upstream_max_decoded_bytes, minimum=1024
            ),
            tomtom_qps=_rates(env, "TOMTOM_QPS"),
            rate_wait_s=_float(env, "TOMTOM_RATE_WAIT_S", d.rate_wait_s),
            key_quota_per_min=_int(env, "TOMTOM_KEY_QUOTA_PER_MIN", d.key_quota_per_min),
            call_deadline_s=_float(env, "TOOL_CALL_DEADLINE_S", d.call_deadline_s),
            drain_delay_s=_float(env, "DRAIN_DELAY_S", d.drain_delay_s, minimum=0.0),
            drain_timeout_s=_float(env, "DRAIN_TIMEOUT_S", d.drain_timeout_s),
            traces_exporter=_traces_exporter(env),
            data_viz_max_bytes=_int(env, "DATA_VIZ_MAX_BYTES", d.data_viz_max_bytes, minimum=1),
            data_viz_timeout_s=_float(env, "DATA_VIZ_TIMEOUT_S", d.data_viz_timeout_s),
            data_viz_allow_private=_bool(env, "DATA_VIZ_ALLOW_PRIVATE", False),
            offline_mode=env.get("OFFLINE", d.offline_mode).strip().lower() or d.offline_mode,
            public_url=env.get("PUBLIC_URL", "").strip() or None,
            ui_domain=env.get("UI_DOMAIN", "").strip() or None,
            tile_token_secrets=_list(env, "TILE_TOKEN_SECRET", ()),
            tile_token_ttl_s=_int(env, "TILE_TOKEN_TTL_S", d.tile_token_ttl_s, minimum=60),
            tile_rate_per_s=_float(env, "TILE_RATE_PER_S", d.tile_rate_per_s),
            tile_burst=_int(env, "TILE_BURST", d.tile_burst, minimum=1),
            tile_max_bytes=_int(env, "TILE_MAX_BYTES", d.tile_max_bytes, minimum=1024),
        )
        if settings.log_level not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ConfigError(
                f"LOG_LEVEL={settings.log_level!r}: use DEBUG, INFO, WARNING or ERROR"
            )
        if settings.fit_order not in FIT_ORDERS:
            raise ConfigError(
                f"FIT_ORDER={settings.fit_order!r}: use {' or '.join(sorted(FIT_ORDERS))}"
            )
        if settings.drain_timeout_s <= settings.drain_delay_s:
            raise ConfigError(
                f"DRAIN_TIMEOUT_S={settings.drain_timeout_s:g} must be longer than "
                f"DRAIN_DELAY_S={settings.drain_delay_s:g}: calls need time to finish"
            )
        if not settings.api_base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"TOMTOM_API_BASE_URL={settings.api_base_url!r}: must start with http:// or https://"
            )
        settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
        settings.check()
        return settings

    def check(self) -> None:
        """Refuse combinations that would fail later, quietly, in a view (ConfigError)."""
        if self.offline_mode not in OFFLINE_MODES:
            raise ConfigError(f"OFFLINE={self.offline_mode!r}: use {', '.join(OFFLINE_MODES)}")
        if self.public_url is not None:
            _check_public_url(self.public_url)
        if self.ui_domain is not None:
            _check_ui_domain(self)
        if self.tile_token_ttl_s > 86_400:
            raise ConfigError(f"TILE_TOKEN_TTL_S={self.tile_token_ttl_s}: at most 86400 (a day)")
        for secret in self.tile_token_secrets:
            if len(secret) < TILE_SECRET_MIN_CHARS:
                raise ConfigError(
                    f"TILE_TOKEN_SECRET: each secret needs at least {TILE_SECRET_MIN_CHARS} "
                    "characters; make one with: python3 -c 'import secrets; "
                    "print(secrets.token_urlsafe(32))'"
                )
        keyed = self.offline_mode == "never" or (
            self.api_key is not None and self.offline_mode == "auto"
        )
        if keyed and not self.tile_token_secrets:
            why = "OFFLINE=never" if self.offline_mode == "never" else "TOMTOM_API_KEY is set"
            raise ConfigError(
                f"TILE_TOKEN_SECRET is not set, but {why}: the views load map tiles through "
                "/tiles with tokens sealed under it. Give every replica the same secret of at "
                f"least {TILE_SECRET_MIN_CHARS} characters (python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')."
            )


def claude_ui_domain(connector_url: str) -> str:
    """Claude's sandbox domain for a connector URL exactly as the user typed it: the first
    32 hex digits of its SHA-256, then `.claudemcpcontent.com` (docs/adr/0062)."""
    digest = hashlib.sha256(connector_url.encode("utf-8")).hexdigest()
    return digest[:32] + CLAUDE_UI_DOMAIN_SUFFIX


def _check_public_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"PUBLIC_URL={url!r}: give the MCP endpoint as users enter it in their host, "
            "e.g. https://maps.example.com/mcp"
        )
    if parts.query or parts.fragment or not parts.path.rstrip("/").endswith("/mcp"):
        raise ConfigError(
            f"PUBLIC_URL={url!r}: must end with the /mcp endpoint and carry no query or "
            "fragment, e.g. https://maps.example.com/mcp"
        )


def _check_ui_domain(settings: Settings) -> None:
    value = settings.ui_domain or ""
    if value in ("claude", "chatgpt") and settings.public_url is None:
        raise ConfigError(f"UI_DOMAIN={value}: set PUBLIC_URL too; the domain is derived from it")
    if len(value) > 253 or any(ch.isspace() for ch in value):
        raise ConfigError(f"UI_DOMAIN={value[:80]!r}: not a domain (no spaces, 253 at most)")


def _int(env: Mapping[str, str], name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a whole number") from None
    if value < minimum:
        raise ConfigError(f"{name}={value}: must be at least {minimum}")
    return value


def _float(
    env: Mapping[str, str], name: str, default: float, minimum: float | None = None
) -> float:
    """A positive number (or one of at least `minimum`)."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a number of seconds") from None
    if not math.isfinite(value) or (value < minimum if minimum is not None else value <= 0):
        raise ConfigError(
            f"{name}={value}: must be "
            + (f"at least {minimum:g}" if minimum is not None else "positive")
        )
    return value


def _rates(env: Mapping[str, str], name: str) -> tuple[tuple[str, float], ...]:
    """`family=qps,family=qps` (families: `API_FAMILIES`)."""
    raw = env.get(name, "").strip()
    rates: list[tuple[str, float]] = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        family, _, value = item.partition("=")
        family = family.strip().lower()
        if family not in API_FAMILIES:
            raise ConfigError(
                f"{name}: unknown API family {family!r}; use {', '.join(sorted(API_FAMILIES))}"
            )
        try:
            qps = float(value)
        except ValueError:
            raise ConfigError(f"{name}: {item!r} is not family=queries-per-second") from None
        if not (math.isfinite(qps) and qps > 0):
            raise ConfigError(f"{name}: {family} must have a positive rate, got {value!r}")
        rates.append((family, qps))
    return tuple(rates)


def _traces_exporter(env: Mapping[str, str]) -> str:
    """Where traces go, from the standard variables: off unless `OTEL_TRACES_EXPORTER` names an
    exporter or an OTLP endpoint is set; `OTEL_SDK_DISABLED=true` turns them off."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return "none"
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if not exporter:
        endpoints = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        exporter = "otlp" if any(env.get(e) for e in endpoints) else "none"
    if exporter not in TRACES_EXPORTERS:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER={exporter!r}: use {', '.join(sorted(TRACES_EXPORTERS))}"
        )
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
    )
    if exporter == "otlp" and protocol.strip().lower() != "http/protobuf":
        raise ConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: this server exports OTLP over "
            "http/protobuf only"
        )
    return exporter


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}={raw!r}: expected 1/0, true/false, yes/no or on/off")


def _list(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    raw = env.get(name)
    if raw is None:
        return default
    return tuple(item.strip() for item in raw.split(",") if item.strip())
