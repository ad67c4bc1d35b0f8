"""Settings: one typed object read once at start-up from the environment.

Nothing else in the server reads `os.environ`; everything that varies between
deployments is here, with its default and the variable that sets it.
"""

from __future__ import annotations

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
    upstream_connections: int = 200
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


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a number of seconds") from None
    if not value > 0:
        raise ConfigError(f"{name}={value}: must be positive")
    return value


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
