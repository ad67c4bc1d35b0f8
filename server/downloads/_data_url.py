"""The guarded download of a data-viz `data_url`, a URL a model chose.

Fetched from inside the deployment's network, so it is a server-side request forgery
risk (cloud metadata, private services, DNS rebinding). The download accepts `http` and
`https` without credentials; resolves the host once and refuses it if any address is
not a public one (unless `DATA_VIZ_ALLOW_PRIVATE`); connects to the checked address,
`Host` and TLS keeping the name, so nothing is resolved twice; follows no redirect;
accepts JSON-like types only; and bounds size and time, the body read as received and
decoded by `server.bodies`' one bounded decoding. The URL is parsed by the library that
sends it (`server.outbound`), so the host checked is the host reached. A data-viz page
asks for its own bytes alone with `Range` (`download_span`), taking only a 206 that names
exactly them (docs/front-door.md, `data_url` downloads).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.bodies import ACCEPT_ENCODING, DATA_URL, RawBody, coding_of
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import BodyError, DataUrlError, InvalidURL, TransportError
from tomtom_mcp_apps.server.pool import Placement

__all__ = ["Part", "address_refusal", "download", "download_span"]

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
_ACCEPT = "application/geo+json, application/json;q=0.9, */*;q=0.1"
_CONTENT_RANGE = re.compile(r"bytes (\d{1,15})-(\d{1,15})/(\d{1,15})")


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
    got = await _guarded(client, url, settings, placement, None)
    assert isinstance(got, bytes)
    return got


@dataclass(frozen=True)
class Part:
    """Bytes `start` to `start + len(body)` of the file at a `data_url`, as asked by `Range`."""

    body: bytes
    start: int


async def download_span(
    client: outbound.Client,
    url: str,
    settings: Settings,
    placement: Placement,
    span: tuple[int, int],
    total: int,
) -> bytes | Part:
    """Bytes `span` (`[from, to)`) of the `total`-byte file at `url`, with every check of
    `download`: a `Part` when the host answers 206 naming exactly those bytes, unencoded;
    the whole body, decoded, when it answers 200 (it ignores `Range`) or another range (then
    asked again without `Range`). A span outside the file or past `DATA_VIZ_MAX_BYTES` is
    refused before anything is sent; a host naming another length, the file changed."""
    low, high = span
    limit = settings.data_viz_max_bytes
    if not 0 <= low < high <= total:
        raise DataUrlError(
            f"the page's bytes {low:,} to {high:,} are not inside the planned file of "
            f"{total:,} bytes: run tomtom-data-viz again."
        )
    if high - low > limit:
        raise DataUrlError(
            f"the page's bytes {low:,} to {high:,} are more than the {limit:,}-byte limit."
        )
    return await _guarded(client, url, settings, placement, (low, high, total))


async def _guarded(
    client: outbound.Client,
    url: str,
    settings: Settings,
    placement: Placement,
    span: tuple[int, int, int] | None,
) -> bytes | Part:
    """`download`, or `download_span` for `span` (from, to, the file's length)."""
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
    pin = str(addresses[0])
    try:
        async with asyncio.timeout(settings.data_viz_timeout_s):
            raw = await _fetch_span(client, parsed, pin, settings, span) if span else None
            if isinstance(raw, Part):
                return raw
            if raw is None:
                raw = await _fetch(client, parsed, pin, settings)
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
    headers = {"accept": _ACCEPT, "accept-encoding": ACCEPT_ENCODING}
    async with client.request("GET", parsed, headers=headers, pin=address) as response:
        return await _whole(response, parsed, settings.data_viz_max_bytes)


async def _fetch_span(
    client: outbound.Client,
    parsed: outbound.Url,
    address: str,
    settings: Settings,
    span: tuple[int, int, int],
) -> Part | RawBody | None:
    """Bytes `span` (from, to, the file's length) asked with `Range`, unencoded (a range of
    an encoded body is not the plan's bytes): a `Part` for a 206 naming exactly them, the
    whole body for a 200, None for another range or coding (ask for the whole)."""
    low, high, total = span
    headers = {"accept": _ACCEPT, "accept-encoding": "identity", "range": f"bytes={low}-{high - 1}"}
    async with client.request("GET", parsed, headers=headers, pin=address) as response:
        if response.status == 416:
            raise DataUrlError(_changed(f"has no bytes {low:,} to {high:,} now"))
        if response.status != 206:
            return await _whole(response, parsed, settings.data_viz_max_bytes)
        _check_type(response)
        named = _content_range(response.header("content-range"))
        if named is not None and named[2] != total:
            raise DataUrlError(_changed(f"is {named[2]:,} bytes now, not {total:,}"))
        coding = response.header("content-encoding").strip().lower()
        if named != (low, high - 1, total) or coding not in ("", "identity"):
            logger.warning(
                "data_url %s answered bytes %r (%s) for %d-%d: asking for the whole file",
                parsed.host,
                response.header("content-range")[:80],
                coding[:40] or "identity",
                low,
                high - 1,
            )
            return None
        body = await response.read(high - low)
    if body is None or len(body) != high - low:
        raise DataUrlError(
            f"data_url answered bytes {low:,} to {high:,} with "
            f"{'more' if body is None else f'{len(body):,}'} bytes, not {high - low:,}."
        )
    logger.info("data_url downloaded bytes %d to %d from %s", low, high, parsed.host)
    return Part(body, low)


async def _whole(response: outbound.Answer, parsed: outbound.Url, limit: int) -> RawBody:
    """A 200's body, checked: no redirect, a data file's type, at most `limit` bytes."""
    if response.status in _REDIRECTS and "location" in response.headers:
        target = response.header("location")
        raise DataUrlError(
            f"data_url answered with a redirect (HTTP {response.status}) to "
            f"{target[:200]!r}; redirects are not followed: pass the final URL."
        )
    if response.status != 200:
        raise DataUrlError(f"data_url answered HTTP {response.status}; expected 200 with GeoJSON.")
    _check_type(response)
    declared = response.header("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise DataUrlError(_too_large(int(declared), limit))
    coding = coding_of(response.header("content-encoding"), DATA_URL)
    body = await response.read(limit)
    if body is None:
        raise DataUrlError(_too_large(None, limit))
    logger.info("data_url downloaded %d bytes from %s", len(body), parsed.host)
    return RawBody(body, coding, limit)


def _check_type(response: outbound.Answer) -> None:
    content_type = response.header("content-type")
    media = content_type.split(";")[0].strip().lower()
    if media and media not in _CONTENT_TYPES and not media.endswith("+json"):
        raise DataUrlError(
            f"data_url content type {media!r} is not a data file: expected GeoJSON or "
            "JSON (application/geo+json, application/json), CSV or text, or GPX."
        )


def _content_range(value: str) -> tuple[int, int, int] | None:
    """(first, last, length) of a `Content-Range: bytes first-last/length`, else None."""
    match = _CONTENT_RANGE.fullmatch(value.strip())
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _changed(how: str) -> str:
    return (
        f"the file at data_url changed since the map's pages were planned (it {how}): run "
        "tomtom-data-viz again for the map of the new data."
    )


def _too_large(size: int | None, limit: int) -> str:
    got = f" ({size:,} bytes)" if size is not None else ""
    return (
        f"data_url is larger than the {limit:,}-byte limit{got}; "
        "use a smaller file or filter it first."
    )
