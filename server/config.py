"""Settings: one typed object read once at start-up from the environment.

Nothing else in the server reads `os.environ`; everything that varies between
deployments is here, with its default and the variable that sets it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

DEFAULT_API_BASE_URL = "https://api.tomtom.com"
OFFLINE_BASE_URL = "http://offline-upstream.invalid"
"""Base URL of the in-process offline upstream (never resolved: served through ASGI)."""


FIT_ORDERS = frozenset({"least-work", "arrival"})
"""How jobs waiting for the fitting pool are ordered (`server.pool`)."""

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


class ConfigError(ValueError):
    """An environment variable holds a value the server cannot use."""


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

    @property
    def offline(self) -> bool:
        """No key configured: tools talk to the built-in offline upstream in process."""
        return self.api_key is None

    @property
    def tiles_origin(self) -> str:
        """`scheme://host[:port]` of the TomTom API: where the views load tiles from (CSP)."""
        parts = urlsplit(self.api_base_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def upstream_base_url(self) -> str:
        return OFFLINE_BASE_URL if self.offline else self.api_base_url

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
        return replace(settings, **{k: v for k, v in overrides.items() if v is not None})


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
