"""URLs as the client library reads and sends them: a caller's URL parsed once, so that the
host a guard checks is the host requests go to, and a request pinned to a checked
address; Basic credentials and form bodies as httpx wrote them."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from yarl import URL

from tomtom_mcp_apps.server.errors import InvalidURL


@dataclass(frozen=True)
class Url:
    """A URL from outside (a `data_url`), parsed by the library that sends it."""

    text: str
    """The URL as it is sent (encoded)."""
    scheme: str
    host: str
    """The host as written (an IDN in Unicode, an IPv6 address without brackets); "" if
    none."""
    raw_host: str
    """The host as sent: IDNA-encoded, for DNS and TLS."""
    port: int
    """The port, the scheme's default when none is written."""
    netloc: str
    """Host and explicit port, as a `Host` header carries them."""
    path: str
    """The path, decoded (for logs)."""
    has_userinfo: bool


def parse_url(text: str) -> Url:
    """`text` parsed; `InvalidURL` with the parser's reason when it is no URL."""
    try:
        url = URL(text)
        host, raw_host, port = url.host or "", url.raw_host or "", url.port
    except (ValueError, TypeError) as exc:
        raise InvalidURL(str(exc)) from None
    bracketed = f"[{raw_host}]" if ":" in raw_host else raw_host
    netloc = bracketed if url.explicit_port is None else f"{bracketed}:{url.explicit_port}"
    return Url(
        text=str(url),
        scheme=url.scheme,
        host=host,
        raw_host=raw_host,
        port=port or 0,
        netloc=netloc,
        path=url.path,
        has_userinfo=url.user is not None or url.password is not None,
    )


def pinned(url: Url, address: str) -> str:
    """`url` with its host replaced by `address` (port, path and query kept)."""
    return str(URL(url.text, encoded=True).with_host(address))


def basic_auth(user: str, password: str) -> str:
    """An `Authorization` value for HTTP Basic: `user:password` in base64, unescaped (as
    httpx's `BasicAuth` writes it)."""
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return f"Basic {token}"


def form(fields: Mapping[str, str]) -> tuple[bytes, str]:
    """A form body and its content type (`application/x-www-form-urlencoded`)."""
    return urlencode(fields).encode("ascii"), "application/x-www-form-urlencoded"
