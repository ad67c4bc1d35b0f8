"""The guarded download of a data-viz `data_url`, a URL a model chose.

Fetched from inside the deployment's network, so it is a server-side request forgery
risk (cloud metadata, private services, DNS rebinding). The download accepts `http` and
`https` without credentials; resolves the host once and refuses it if any address is
not a public one (unless `DATA_VIZ_ALLOW_PRIVATE`); connects to the checked address,
`Host` and TLS keeping the name, so nothing is resolved twice; follows no redirect;
accepts JSON-like types only; and bounds size and time, the body read as received and
decoded by `server.bodies`' one bounded decoding. The URL is parsed by the library that
sends it (`server.outbound`), so the host checked is the host reached
(docs/front-door.md, `data_url` downloads).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Sequence

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.bodies import ACCEPT_ENCODING, DATA_URL, RawBody, coding_of
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import BodyError, DataUrlError, InvalidURL, TransportError
from tomtom_mcp_apps.server.pool import Placement

__all__ = ["address_refusal", "download"]

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_CONTENT_TYPES = frozenset(
    {
        "application/json",
        "application/geo+json",
        "application/vnd.geo+json",
        "text/json",
        # Raw file hosts (GitHub raw, object stores) serve .geojson as these;
        # the JSON parse that follows decides.
        "text/plain",
        "application/octet-stream",
        # Batch geocoding's address files and snapping's GPX traces (their readers decide).
        "text/csv",
        "application/csv",
        "text/tab-separated-values",
        "application/gpx+xml",
        "application/xml",
        "text/xml",
    }
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def address_refusal(address: IPAddress) -> str | None:
    """Why `address` is not a public internet address, or None when it is."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        reason = address_refusal(embedded)
        return f"{reason} (embedded in {address})" if reason else None
    for attribute, reason in (
        ("is_unspecified", "unspecified"),
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_reserved", "reserved"),
        ("is_private", "private"),
    ):
        if getattr(address, attribute):
            return f"{address} is a {reason} address"
    if not address.is_global:
        return f"{address} is not a public internet address"
    return None


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


async def download(
    client: outbound.Client, url: str, settings: Settings, placement: Placement
) -> bytes:
    """The body at `url`, decoded, after every check above (long ones inflated where
    `placement` says); raises `DataUrlError` with the reason."""
    parsed = _parse(url)
    host = parsed.host
    addresses = await _resolve(parsed.raw_host, parsed.port)
    if not settings.data_viz_allow_private:
        for address in addresses:
            reason = address_refusal(address)
            if reason:
                logger.warning("data_url refused: %s resolves to %s", host, address)
                raise DataUrlError(
                    f"data_url host {host!r} is refused: {reason}. Only public internet "
                    "addresses may be fetched; pass the GeoJSON inline instead."
                )
    try:
        async with asyncio.timeout(settings.data_viz_timeout_s):
            raw = await _fetch(client, parsed, str(addresses[0]), settings)
            return await placement.decoded(raw, DATA_URL)
    except BodyError as exc:
        raise DataUrlError(str(exc)) from None
    except TimeoutError:
        raise DataUrlError(
            f"data_url took longer than {settings.data_viz_timeout_s:g} s to download; "
            "use a faster host or a smaller file."
        ) from None
    except TransportError as exc:
        logger.warning("data_url %s failed: %s", host, type(exc).__name__)
        raise DataUrlError(
            f"data_url could not be downloaded ({type(exc).__name__}): check that "
            f"{parsed.scheme}://{parsed.netloc} is reachable."
        ) from None


def _parse(url: str) -> outbound.Url:
    try:
        parsed = outbound.parse_url(url)
    except InvalidURL as exc:
        raise DataUrlError(f"data_url is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https"):
        raise DataUrlError(
            f"data_url scheme {parsed.scheme!r} is not supported: use an http or https URL."
        )
    if not parsed.host:
        raise DataUrlError("data_url has no host name.")
    if parsed.has_userinfo:
        raise DataUrlError("data_url must not carry a user name or password.")
    return parsed


async def _resolve(host: str, port: int) -> Sequence[IPAddress]:
    """Every address `host` resolves to (an IP literal resolves to itself)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise DataUrlError(f"data_url host {host!r} could not be resolved.") from None
    addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
    if not addresses:
        raise DataUrlError(f"data_url host {host!r} has no address.")
    return addresses


async def _fetch(
    client: outbound.Client, parsed: outbound.Url, address: str, settings: Settings
) -> RawBody:
    """The body as received from the checked `address`, in its one checked coding, at
    most `DATA_VIZ_MAX_BYTES`."""
    limit = settings.data_viz_max_bytes
    headers = {
        "accept": "application/geo+json, application/json;q=0.9, */*;q=0.1",
        "accept-encoding": ACCEPT_ENCODING,
    }
    async with client.request("GET", parsed, headers=headers, pin=address) as response:
        if response.status in _REDIRECTS and "location" in response.headers:
            target = response.header("location")
            raise DataUrlError(
                f"data_url answered with a redirect (HTTP {response.status}) to "
                f"{target[:200]!r}; redirects are not followed: pass the final URL."
            )
        if response.status != 200:
            raise DataUrlError(
                f"data_url answered HTTP {response.status}; expected 200 with GeoJSON."
            )
        content_type = response.header("content-type")
        media = content_type.split(";")[0].strip().lower()
        if media and media not in _CONTENT_TYPES and not media.endswith("+json"):
            raise DataUrlError(
                f"data_url content type {media!r} is not a data file: expected GeoJSON or "
                "JSON (application/geo+json, application/json), CSV or text, or GPX."
            )
        declared = response.header("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise DataUrlError(_too_large(int(declared), limit))
        coding = coding_of(response.header("content-encoding"), DATA_URL)
        body = await response.read(limit)
        if body is None:
            raise DataUrlError(_too_large(None, limit))
    logger.info("data_url downloaded %d bytes from %s", len(body), parsed.host)
    return RawBody(body, coding, limit)


def _too_large(size: int | None, limit: int) -> str:
    got = f" ({size:,} bytes)" if size is not None else ""
    return (
        f"data_url is larger than the {limit:,}-byte limit{got}; "
        "use a smaller file or filter it first."
    )
