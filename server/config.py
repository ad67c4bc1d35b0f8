"""Settings: one typed model read once at start-up from the environment.

Nothing else in the server reads `os.environ`. `Settings(...)` takes field names and reads
no environment (tests build it so); `Settings.from_env()` reads each field's variable (its
alias) and turns a refused value into a `ConfigError` naming the variable, the value and
what would do.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import (
    BeforeValidator,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from tomtom_mcp_apps.server.errors import ConfigError

DEFAULT_API_BASE_URL = "https://api.tomtom.com"
OFFLINE_BASE_URL = "http://offline-upstream.invalid"
"""Base URL of the in-process offline upstream (never resolved: served through ASGI)."""

OfflineMode = Literal["auto", "never", "always"]
OFFLINE_MODES: tuple[OfflineMode, ...] = get_args(OfflineMode)
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
        "snap_to_roads",
        "other",
    }
)
"""Names `TOMTOM_QPS` may set: the families of `server/tomtom/_families.py` (a test keeps
the two equal)."""
SIGNING_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
"""The JWS algorithms `OAUTH_ALGORITHMS` may allow: public-key signatures only (never
`none`, never HMAC, whose secret a resource server would share with the issuer)."""
Introspection = Literal["off", "opaque", "all"]
QuotaStoreDown = Literal["local", "refuse"]
OpenKey = Literal["refuse", "accept"]
DEFAULT_USER_QUOTA_PER_MIN = 300
"""With sign-in on and `USER_QUOTA_PER_MIN` unset: a few view openings (about 80 tiles each)
and their calls in one minute."""
DEFAULT_USER_QUOTA_PER_DAY = 5000
"""With sign-in on and `USER_QUOTA_PER_DAY` unset: about 60 maps opened a day."""
TracesExporter = Literal["console", "none", "otlp"]
TRACES_EXPORTERS: tuple[TracesExporter, ...] = get_args(TracesExporter)
MIB = 1024 * 1024


def _comma_list(value: Any) -> Any:
    """`a, b,,c` -> ("a", "b", "c"): a variable's list is comma-separated, never JSON."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    return value


def _space_list(value: Any) -> Any:
    """`a b  c` (or `a,b c`) -> ("a", "b", "c"): OAuth's scope lists are space-separated."""
    if isinstance(value, str):
        return tuple(item for item in value.replace(",", " ").split() if item)
    return value


_CommaList = Annotated[tuple[str, ...], BeforeValidator(_comma_list)]
_SpaceList = Annotated[tuple[str, ...], BeforeValidator(_space_list)]
_Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
"""A positive, finite number (seconds, or a rate)."""


def _networks(value: Any) -> Any:
    """`10.0.0.0/8, 127.0.0.1` -> the networks (an address alone is its own /32 or /128)."""
    if not isinstance(value, str):
        return value
    networks = []
    for item in _comma_list(value):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ConfigError(
                f"TRUSTED_PROXIES: {item!r} is not an address or a network (CIDR), e.g. "
                "10.0.0.0/8,127.0.0.1"
            ) from None
    return tuple(networks)


_Networks = Annotated[
    tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...], BeforeValidator(_networks)
]


class Settings(BaseSettings):
    """Deployment settings; each field's alias is the variable that sets it."""

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,  # Settings(api_key=...) as well as the variable names
        env_ignore_empty=True,  # VAR= is VAR unset: the default
        enable_decoding=False,  # lists are comma-separated (_comma_list), never JSON
    )

    api_key: str | None = Field(None, validation_alias="TOMTOM_API_KEY")
    api_base_url: str = Field(DEFAULT_API_BASE_URL, validation_alias="TOMTOM_API_BASE_URL")
    budget: int = Field(120_000, ge=10_000, validation_alias="APP_DATA_BUDGET")
    allowed_hosts: _CommaList = Field(
        ("127.0.0.1:*", "localhost:*", "[::1]:*"), validation_alias="ALLOWED_HOSTS"
    )
    allowed_origins: _CommaList = Field((), validation_alias="ALLOWED_ORIGINS")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO", validation_alias="LOG_LEVEL"
    )
    log_json: bool = Field(False, validation_alias="LOG_FORMAT")
    """`LOG_FORMAT=json`; any other format is text."""
    fit_workers: int = Field(2, ge=1, validation_alias="FIT_WORKERS")
    fit_order: Literal["arrival", "least-work"] = Field("least-work", validation_alias="FIT_ORDER")
    """How jobs waiting for the fitting pool are ordered (`server.pool`)."""
    fit_inline: bool = Field(False, validation_alias="FIT_INLINE")
    inline_points: int = Field(12_000, ge=0, validation_alias="FIT_INLINE_POINTS")
    upstream_timeout_s: _Positive = Field(10.0, validation_alias="TOMTOM_TIMEOUT_S")
    """The whole TomTom request, first byte sent to last byte received."""
    upstream_connections: int = Field(200, ge=1, validation_alias="TOMTOM_MAX_CONNECTIONS")
    upstream_max_body_bytes: int = Field(
        32 * MIB, ge=1024, validation_alias="TOMTOM_MAX_BODY_BYTES"
    )
    upstream_max_decoded_bytes: int = Field(
        64 * MIB, ge=1024, validation_alias="TOMTOM_MAX_DECODED_BYTES"
    )
    tomtom_qps: tuple[tuple[str, float], ...] = Field((), validation_alias="TOMTOM_QPS")
    """Per-family rates replacing TomTom's defaults, e.g. (("routing", 2.5),)."""
    rate_wait_s: _Positive = Field(10.0, validation_alias="TOMTOM_RATE_WAIT_S")
    key_quota_per_min: int = Field(0, ge=0, validation_alias="TOMTOM_KEY_QUOTA_PER_MIN")
    call_deadline_s: _Positive = Field(60.0, validation_alias="TOOL_CALL_DEADLINE_S")
    drain_delay_s: float = Field(5.0, ge=0.0, allow_inf_nan=False, validation_alias="DRAIN_DELAY_S")
    drain_timeout_s: _Positive = Field(25.0, validation_alias="DRAIN_TIMEOUT_S")
    traces_exporter: TracesExporter = "none"
    """From the OpenTelemetry variables, by their own rules (`_OpenTelemetry`)."""
    data_viz_max_bytes: int = Field(20 * MIB, ge=1, validation_alias="DATA_VIZ_MAX_BYTES")
    data_viz_timeout_s: _Positive = Field(15.0, validation_alias="DATA_VIZ_TIMEOUT_S")
    data_viz_allow_private: bool = Field(False, validation_alias="DATA_VIZ_ALLOW_PRIVATE")
    # Data-viz pages.
    page_chars: int = Field(500_000, ge=10_000, validation_alias="APP_DATA_PAGE_CHARS")
    """A `tomtom-get-app-data` result (a data-viz page), in characters as serialized: sized
    for what hosts carry to a view, not for a model's context (docs/result.md)."""
    preview: bool = False
    """`serve --preview` only: no variable sets it."""
    offline_mode: OfflineMode = Field("auto", validation_alias="OFFLINE")
    public_url: str | None = Field(None, validation_alias="PUBLIC_URL")
    """The MCP endpoint exactly as users enter it in their host (`PUBLIC_URL`); `serve`
    fills in its own address when unset."""
    ui_domain: str | None = Field(None, validation_alias="UI_DOMAIN")
    """`UI_DOMAIN` as given: None, `claude`, `chatgpt`, or a value sent verbatim."""
    tile_token_secrets: _CommaList = Field((), validation_alias="TILE_TOKEN_SECRET")
    """`TILE_TOKEN_SECRET`, comma-separated: the first seals tokens, every one opens them."""
    tile_token_ttl_s: int = Field(3600, ge=60, le=86_400, validation_alias="TILE_TOKEN_TTL_S")
    tile_rate_per_s: _Positive = Field(20.0, validation_alias="TILE_RATE_PER_S")
    tile_burst: int = Field(200, ge=1, validation_alias="TILE_BURST")
    tile_max_bytes: int = Field(MIB, ge=1024, validation_alias="TILE_MAX_BYTES")
    # Hosts: a view's second request, cache hints.
    view_refetch: bool = Field(False, validation_alias="VIEW_REFETCH")
    """`VIEW_REFETCH=on`: a view whose host dropped `_meta` may have its TomTom request run
    again (`tomtom-refetch-app-data`, billed again; docs/views.md)."""
    view_refetch_per_min: int = Field(10, ge=1, le=600, validation_alias="VIEW_REFETCH_PER_MIN")
    """Refetches one user or client may make per minute on one replica."""
    cache_ttl_s: int = Field(300, ge=0, le=86_400, validation_alias="MCP_CACHE_TTL_S")
    """How long 2026-07-28 clients may keep tool and resource lists and view documents."""

    # The front door (docs/front-door.md): what one client, and all of them, may ask.
    client_rate_per_s: float = Field(
        20.0, ge=0, allow_inf_nan=False, validation_alias="CLIENT_RATE_PER_S"
    )
    """Requests per second per client (0: no limit), in bursts of `client_burst`."""
    client_burst: int = Field(400, ge=1, validation_alias="CLIENT_BURST")
    trusted_proxies: _Networks = Field((), validation_alias="TRUSTED_PROXIES")
    """Proxies whose `X-Forwarded-For` names the client (CIDRs); others' is ignored."""
    max_calls_in_flight: int = Field(128, ge=1, validation_alias="MAX_CALLS_IN_FLIGHT")
    client_max_in_flight: int = Field(32, ge=1, validation_alias="CLIENT_MAX_IN_FLIGHT")
    """One client's share of `max_calls_in_flight` (then 429)."""
    fit_queue_max_bytes: int = Field(256 * MIB, ge=MIB, validation_alias="FIT_QUEUE_MAX_BYTES")
    """Work waiting for the fitting pool, in the bytes it decodes (`server.pool`)."""
    http_header_timeout_s: _Positive = Field(10.0, validation_alias="HTTP_HEADER_TIMEOUT_S")
    http_body_timeout_s: _Positive = Field(30.0, validation_alias="HTTP_BODY_TIMEOUT_S")
    http_idle_timeout_s: int = Field(75, ge=1, validation_alias="HTTP_IDLE_TIMEOUT_S")
    http_max_header_bytes: int = Field(
        64 * 1024, ge=8 * 1024, validation_alias="HTTP_MAX_HEADER_BYTES"
    )
    http_max_body_bytes: int = Field(4 * MIB, ge=64 * 1024, validation_alias="HTTP_MAX_BODY_BYTES")
    # Sign-in (an OAuth 2.1 resource server, `server.auth`) and per-user budgets
    # (`server.quotas`): docs/sign-in.md.
    oauth_issuer: str | None = Field(None, validation_alias="OAUTH_ISSUER")
    """The authorization server's issuer URL: set, every `POST /mcp` needs a bearer token."""
    oauth_audience: str | None = Field(None, validation_alias="OAUTH_AUDIENCE")
    """The `aud` a token must name; `PUBLIC_URL` when unset (`token_audience`)."""
    oauth_scopes: _SpaceList = Field((), validation_alias="OAUTH_SCOPES")
    oauth_algorithms: _CommaList = Field(SIGNING_ALGORITHMS, validation_alias="OAUTH_ALGORITHMS")
    oauth_leeway_s: float = Field(
        30.0, ge=0.0, le=300.0, allow_inf_nan=False, validation_alias="OAUTH_LEEWAY_S"
    )
    """Clock skew allowed on `exp`, `nbf` and `iat`."""
    oauth_timeout_s: _Positive = Field(5.0, validation_alias="OAUTH_TIMEOUT_S")
    """One request to the authorization server (metadata, keys, introspection)."""
    oauth_jwks_cache_s: int = Field(600, ge=10, validation_alias="OAUTH_JWKS_CACHE_S")
    oauth_jwks_refetch_s: float = Field(
        30.0, ge=0.0, allow_inf_nan=False, validation_alias="OAUTH_JWKS_MIN_REFETCH_S"
    )
    """The least time between two fetches of the keys for a token naming an unknown key."""
    oauth_introspection: Introspection = Field("off", validation_alias="OAUTH_INTROSPECTION")
    """RFC 7662 for `opaque` tokens (not JWTs), for `all`, or `off`."""
    oauth_client_id: str | None = Field(None, validation_alias="OAUTH_CLIENT_ID")
    oauth_client_secret: str | None = Field(None, validation_alias="OAUTH_CLIENT_SECRET")
    oauth_introspection_cache_s: int = Field(
        60, ge=0, validation_alias="OAUTH_INTROSPECTION_CACHE_S"
    )
    oauth_trusted_origins: _CommaList = Field((), validation_alias="OAUTH_TRUSTED_ORIGINS")
    """Origins besides the issuer's where its metadata may put `jwks_uri` and
    `introspection_endpoint` (https, or http on loopback)."""
    user_quota_per_min: int | None = Field(None, ge=0, validation_alias="USER_QUOTA_PER_MIN")
    user_quota_per_day: int | None = Field(None, ge=0, validation_alias="USER_QUOTA_PER_DAY")
    """The budgets as set (None: unset); `minute_budget` and `day_budget` are in force."""
    open_key: OpenKey = Field("refuse", validation_alias="OPEN_KEY")
    """`accept`: the operator means to let anyone who reaches this server spend
    `TOMTOM_API_KEY` (no sign-in, a non-loopback bind); `refuse` stops such a server."""
    quota_store: str | None = Field(None, validation_alias="QUOTA_STORE")
    """`redis://...`: budgets exact across replicas; unset: per replica."""
    quota_store_timeout_s: _Positive = Field(0.25, validation_alias="QUOTA_STORE_TIMEOUT_S")
    quota_store_down: QuotaStoreDown = Field("local", validation_alias="QUOTA_STORE_DOWN")
    """While the store is unreachable: `local` budgets per replica, or `refuse` calls."""
    matrix_max_cells: int = Field(2500, ge=1, le=1_000_000, validation_alias="MATRIX_MAX_CELLS")
    """Largest matrix `tomtom-matrix` and `tomtom-plan-routes` ask TomTom for (origins x
    destinations): TomTom's asynchronous limit on the pay-as-you-grow plan."""
    matrix_sync_max_cells: int = Field(200, ge=1, le=2500, validation_alias="MATRIX_SYNC_MAX_CELLS")
    """Largest matrix sent to the synchronous endpoint when its points fit TomTom's 400 km
    box (up to 100 cells always go synchronously); larger ones go as asynchronous jobs."""
    plan_time_limit_s: float = Field(
        10.0, ge=0.5, le=60.0, allow_inf_nan=False, validation_alias="PLAN_TIME_LIMIT_S"
    )
    """The solver's time for one `tomtom-plan-routes` call; a caller may ask for less."""

    @property
    def serves_keyed(self) -> bool:
        """Whether requests with a key reach TomTom (false only with `OFFLINE=always`)."""
        return self.offline_mode != "always"

    @property
    def tiles_enabled(self) -> bool:
        """The tile route serves: keyed callers exist and replicas share a token secret."""
        return self.serves_keyed and bool(self.tile_token_secrets)

    @property
    def sign_in(self) -> bool:
        """Whether `POST /mcp` needs a bearer token (`OAUTH_ISSUER` is set)."""
        return self.oauth_issuer is not None

    @property
    def token_audience(self) -> str | None:
        """The `aud` a token must name: `OAUTH_AUDIENCE`, else `PUBLIC_URL` (RFC 8707)."""
        return self.oauth_audience or self.public_url

    @property
    def minute_budget(self) -> int:
        """The budget per user per minute in force: as set, else with sign-in on its default
        (`DEFAULT_USER_QUOTA_PER_MIN`); 0 is none."""
        return _budget(self.user_quota_per_min, DEFAULT_USER_QUOTA_PER_MIN, self.sign_in)

    @property
    def day_budget(self) -> int:
        """The budget per user per UTC day in force (as `minute_budget`)."""
        return _budget(self.user_quota_per_day, DEFAULT_USER_QUOTA_PER_DAY, self.sign_in)

    @property
    def user_quotas(self) -> bool:
        """Whether signed-in users' TomTom requests are budgeted."""
        return bool(self.minute_budget or self.day_budget)

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
    def from_env(
        cls, env: Mapping[str, str] | None = None, *, tiles: bool = True, **overrides: Any
    ) -> Settings:
        """Read every setting from `env` (default `os.environ`); `overrides` that are not
        None win (CLI flags). A value the server cannot use raises `ConfigError`.
        `tiles=False`: a server with no HTTP listener (stdio) serves no tiles, so it needs
        no `TILE_TOKEN_SECRET` and ignores one."""
        given = {name: value for name, value in overrides.items() if value is not None}
        if not tiles:
            given["tile_token_secrets"] = ()
        try:
            with _reading(os.environ if env is None else env):
                settings = cls(**given)
        except ValidationError as exc:
            raise _readable(exc) from None
        if tiles:
            settings._require_tile_secret()
        return settings

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The arguments first; then, inside `from_env` only, its environment (never a
        `.env` file, nor secrets files): `Settings(...)` alone is its arguments and defaults."""
        env = _ENVIRONMENT.get()
        if env is None:
            return (init_settings,)
        return init_settings, _OpenTelemetry(settings_cls, env), _Variables(settings_cls, env)

    @field_validator("api_base_url")
    @classmethod
    def _http_base_url(cls, url: str) -> str:
        url = url.rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"TOMTOM_API_BASE_URL={url!r}: must start with http:// or https://")
        return url

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator(
        "fit_order", "oauth_introspection", "quota_store_down", "open_key", mode="before"
    )
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @field_validator("log_json", mode="before")
    @classmethod
    def _json_format(cls, value: Any) -> Any:
        return value.lower() == "json" if isinstance(value, str) else value

    @field_validator("tomtom_qps", mode="before")
    @classmethod
    def _family_rates(cls, value: Any) -> Any:
        """`family=qps,family=qps` (families: `API_FAMILIES`)."""
        return _rates(value) if isinstance(value, str) else value

    @field_validator("offline_mode", mode="before")
    @classmethod
    def _offline_mode(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        mode = value.strip().lower() or "auto"
        if mode not in OFFLINE_MODES:
            raise ConfigError(f"OFFLINE={mode!r}: use {', '.join(OFFLINE_MODES)}")
        return mode

    @field_validator(
        "public_url",
        "ui_domain",
        "oauth_issuer",
        "oauth_audience",
        "oauth_client_id",
        "oauth_client_secret",
        "quota_store",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("public_url")
    @classmethod
    def _mcp_endpoint(cls, url: str | None) -> str | None:
        if url is None:
            return None
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
        return url

    @field_validator("ui_domain")
    @classmethod
    def _domain(cls, value: str | None) -> str | None:
        if value is not None and (len(value) > 253 or any(ch.isspace() for ch in value)):
            raise ConfigError(f"UI_DOMAIN={value[:80]!r}: not a domain (no spaces, 253 at most)")
        return value

    @field_validator("oauth_issuer")
    @classmethod
    def _issuer(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url)
        loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
        if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
            raise ConfigError(
                f"OAUTH_ISSUER={url!r}: an issuer URL is https:// (http:// only on loopback), "
                "exactly as the authorization server's metadata names it"
            )
        if parts.query or parts.fragment:
            raise ConfigError(f"OAUTH_ISSUER={url!r}: an issuer URL has no query or fragment")
        return url

    @field_validator("oauth_trusted_origins")
    @classmethod
    def _origins(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        for origin in origins:
            parts = urlsplit(origin)
            loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
            secure = parts.scheme == "https" or (parts.scheme == "http" and loopback)
            if not secure or not parts.hostname or parts.path.strip("/") or parts.query:
                raise ConfigError(
                    f"OAUTH_TRUSTED_ORIGINS: {origin!r} is not an https origin (scheme, host "
                    "and port only, e.g. https://www.googleapis.com; http only on loopback)"
                )
        return origins

    @field_validator("oauth_algorithms")
    @classmethod
    def _asymmetric(cls, algorithms: tuple[str, ...]) -> tuple[str, ...]:
        refused = [alg for alg in algorithms if alg not in SIGNING_ALGORITHMS]
        if refused or not algorithms:
            raise ConfigError(
                f"OAUTH_ALGORITHMS: {', '.join(refused) or 'none given'} refused; allow some of "
                f"{', '.join(SIGNING_ALGORITHMS)} (public-key signatures only)"
            )
        return algorithms

    @field_validator("quota_store")
    @classmethod
    def _redis_url(cls, url: str | None) -> str | None:
        if url is not None and urlsplit(url).scheme not in ("redis", "rediss", "unix"):
            raise ConfigError(
                f"QUOTA_STORE={urlsplit(url).scheme}://...: give a redis://, rediss:// or "
                "unix:// URL of a Redis server shared by every replica"
            )
        return url

    @field_validator("tile_token_secrets")
    @classmethod
    def _long_secrets(cls, secrets: tuple[str, ...]) -> tuple[str, ...]:
        if any(len(secret) < TILE_SECRET_MIN_CHARS for secret in secrets):
            raise ConfigError(
                f"TILE_TOKEN_SECRET: each secret needs at least {TILE_SECRET_MIN_CHARS} "
                "characters; make one with: python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'"
            )
        return secrets

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.drain_timeout_s <= self.drain_delay_s:
            raise ConfigError(
                f"DRAIN_TIMEOUT_S={self.drain_timeout_s:g} must be longer than "
                f"DRAIN_DELAY_S={self.drain_delay_s:g}: calls need time to finish"
            )
        if self.ui_domain in ("claude", "chatgpt") and self.public_url is None:
            raise ConfigError(
                f"UI_DOMAIN={self.ui_domain}: set PUBLIC_URL too; the domain is derived from it"
            )
        self._consistent_sign_in()
        return self

    def _consistent_sign_in(self) -> None:
        """Sign-in's settings that only make sense together."""
        if (self.user_quota_per_min or self.user_quota_per_day) and not self.sign_in:
            raise ConfigError(
                "USER_QUOTA_PER_MIN/USER_QUOTA_PER_DAY need OAUTH_ISSUER: budgets are kept per "
                "signed-in user, and without sign-in there are no users"
            )
        if self.oauth_introspection != "off" and not (
            self.oauth_client_id and self.oauth_client_secret
        ):
            raise ConfigError(
                f"OAUTH_INTROSPECTION={self.oauth_introspection} needs OAUTH_CLIENT_ID and "
                "OAUTH_CLIENT_SECRET: the authorization server answers introspection only to "
                "a client it knows"
            )

    def _require_tile_secret(self) -> None:
        """A server that sends keys to TomTom must seal tile tokens, or its views load no
        tiles: a start-up rule (in-process tests run keyed servers without tiles)."""
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


def _budget(given: int | None, default: int, sign_in: bool) -> int:
    if given is not None:
        return given
    return default if sign_in else 0


def claude_ui_domain(connector_url: str) -> str:
    """Claude's sandbox domain for a connector URL exactly as the user typed it: the first
    32 hex digits of its SHA-256, then `.claudemcpcontent.com` (docs/views.md)."""
    digest = hashlib.sha256(connector_url.encode("utf-8")).hexdigest()
    return digest[:32] + CLAUDE_UI_DOMAIN_SUFFIX


def _rates(raw: str) -> tuple[tuple[str, float], ...]:
    rates: list[tuple[str, float]] = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        family, _, value = item.partition("=")
        family = family.strip().lower()
        if family not in API_FAMILIES:
            raise ConfigError(
                f"TOMTOM_QPS: unknown API family {family!r}; use {', '.join(sorted(API_FAMILIES))}"
            )
        try:
            qps = float(value)
        except ValueError:
            raise ConfigError(f"TOMTOM_QPS: {item!r} is not family=queries-per-second") from None
        if not 0 < qps < float("inf"):
            raise ConfigError(f"TOMTOM_QPS: {family} must have a positive rate, got {value!r}")
        rates.append((family, qps))
    return tuple(rates)


_ENVIRONMENT: ContextVar[Mapping[str, str] | None] = ContextVar("environment", default=None)
"""The environment `Settings.from_env` is reading, for `settings_customise_sources`."""


@contextmanager
def _reading(env: Mapping[str, str]) -> Iterator[None]:
    token = _ENVIRONMENT.set(env)
    try:
        yield
    finally:
        _ENVIRONMENT.reset(token)


class _Variables(EnvSettingsSource):
    """Each field with an alias from the variable of that name in `env` (a mapping:
    `os.environ` at start-up, a dict in tests), and from no other variable."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._env = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {k: v for k, v in self._env.items() if not (self.env_ignore_empty and v == "")}

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        variable = field.validation_alias
        if not isinstance(variable, str):  # set by its own source or argument only
            return None, field_name, False
        return self.env_vars.get(variable), variable, False


class _OpenTelemetry(PydanticBaseSettingsSource):
    """`traces_exporter` from the OpenTelemetry SDK's variables, by the SDK's rules: off
    unless `OTEL_TRACES_EXPORTER` names an exporter or an OTLP endpoint is set;
    `OTEL_SDK_DISABLED=true` turns them off. OTLP goes over http/protobuf only."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self._env = env

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # one field, from several variables: see __call__

    def __call__(self) -> dict[str, Any]:
        env = self._env
        if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return {"traces_exporter": "none"}
        exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
        if not exporter:
            endpoints = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            exporter = "otlp" if any(env.get(e) for e in endpoints) else "none"
        if exporter not in TRACES_EXPORTERS:
            raise ConfigError(
                f"OTEL_TRACES_EXPORTER={exporter!r}: use {', '.join(TRACES_EXPORTERS)}"
            )
        protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
        )
        if exporter == "otlp" and protocol.strip().lower() != "http/protobuf":
            raise ConfigError(
                f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: this server exports OTLP over "
                "http/protobuf only"
            )
        return {"traces_exporter": exporter}


def _readable(exc: ValidationError) -> ConfigError:
    """The first refused value as one sentence: the variable, the value as given, and what
    would do (pydantic's own report names fields, not variables, and links to its docs)."""
    error = exc.errors(include_url=False)[0]
    context = error.get("ctx", {})
    if isinstance(context.get("error"), ConfigError):
        return context["error"]  # a validator here worded it already
    key = str(error["loc"][0]) if error["loc"] else ""
    name = _FIELD_NAMES.get(key, key)
    field = Settings.model_fields.get(name)
    if field is None:  # no such setting: a mistyped argument
        return ConfigError(f"{key}: {error['msg']}")
    variable = field.validation_alias if isinstance(field.validation_alias, str) else name
    raw = error["input"]
    match error["type"]:
        case "int_parsing" | "int_from_float":
            said = f"={raw!r}: expected a whole number"
        case "float_parsing":
            said = f"={raw!r}: expected a number" + (" of seconds" if name.endswith("_s") else "")
        case "finite_number":
            said = f"={raw!r}: expected a finite number"
        case "bool_parsing":
            said = f"={raw!r}: expected 1/0, true/false, yes/no or on/off"
        case "literal_error":
            said = f"={raw!r}: use {_either(get_args(field.annotation))}"
        case "greater_than_equal" | "greater_than" | "less_than_equal" as kind:
            value = TypeAdapter(field.annotation).validate_python(raw)  # -1.0 for "-1"
            said = f"={value}: {_bounded(kind, next(iter(context.values())))}"
        case _:
            said = f"={raw!r}: {error['msg']}"
    return ConfigError(variable + said)


_FIELD_NAMES = {
    field.validation_alias: name
    for name, field in Settings.model_fields.items()
    if isinstance(field.validation_alias, str)
}
"""Field name by variable: the sources key values by variable, the arguments by name."""


def _bounded(kind: str, bound: float) -> str:
    shown = f"{bound:g}" if isinstance(bound, float) else str(bound)
    if kind == "greater_than_equal":
        return f"must be at least {shown}"
    if kind == "greater_than":
        return "must be positive" if bound == 0 else f"must be over {shown}"
    return f"at most {shown}"


def _either(choices: tuple[str, ...]) -> str:
    """("a", "b", "c") -> "a, b or c"."""
    return " or ".join(filter(None, (", ".join(choices[:-1]), *choices[-1:])))
