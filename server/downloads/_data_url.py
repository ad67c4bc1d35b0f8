"""The guarded download of a data-viz `data_url`.

A hosted server that fetches any URL a model names is a server-side request
forgery risk: the URL may point at the cloud metadata service, a database on
the private network, or a name that resolves to a public address when checked
and to a private one when fetched (DNS rebinding). So the download:

- accepts `http` and `https` only, and no credentials in the URL;
- resolves the host once, refuses it if any address is private, loopback,
  link-local, multicast, reserved, unspecified or otherwise not global
  (IPv4, IPv6, and IPv4 embedded in IPv6), unless configuration allows private
  targets;
- connects to the address it checked (the URL's host is replaced by that
  address; `Host` and TLS SNI keep the name, so virtual hosting and certificate
  checks still work), so nothing is resolved a second time (ADR 0021);
- follows no redirects, bounds the whole download in time, and accepts JSON-ish
  content types only;
- reads the body as received, capped while streaming, and decodes it with the one
  bounded decoding of `server.bodies` (identity or one layer of gzip, capped once
  decoded too; stacked and unknown codings refused), long ones in a thread
  (`server.pool.Placement.decoded`): never httpx's decoding, which inflates every
  layer of a stacked coding whole (ADR 0021's addendum).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Sequence

import httpx

from tomtom_mcp_apps.server.bodies import ACCEPT_ENCODING, DATA_URL, RawBody, coding_of, received
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import BodyError, DataUrlError
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
    client: httpx.AsyncClient, url: str, settings: Settings, placement: Placement
) -> bytes:
    """The body at `url`, decoded, after every check above (long ones inflated where
    `placement` says); raises `DataUrlError` with the reason."""
    parsed = _parse(url)
    host = parsed.host
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    addresses = await _resolve(host, port)
    if not settings.data_viz_allow_private:
        for address in addresses:
            reason = address_refusal(address)
            if reason:
                logger.warning("data_url refused: %s resolves to %s", host, address)
                raise DataUrlError(
                    f"data_url host {host!r} is refused: {reason}. Only public internet "
                    "addresses may be fetched; pass the GeoJSON inline instead."
                )
    pinned = parsed.copy_with(host=str(addresses[0]))
    headers = {
        "host": parsed.netloc.decode("ascii"),
        "accept": "application/geo+json, application/json;q=0.9, */*;q=0.1",
        "accept-encoding": ACCEPT_ENCODING,
    }
    extensions = {"sni_hostname": host} if parsed.scheme == "https" else {}
    try:
        async with asyncio.timeout(settings.data_viz_timeout_s):
            raw = await _fetch(client, pinned, headers, extensions, settings, url)
            return await placement.decoded(raw, DATA_URL)
    except BodyError as exc:
        raise DataUrlError(str(exc)) from None
    except TimeoutError:
        raise DataUrlError(
            f"data_url took longer than {settings.data_viz_timeout_s:g} s to download; "
            "use a faster host or a smaller file."
        ) from None
    except httpx.HTTPError as exc:
        logger.warning("data_url %s failed: %s", host, type(exc).__name__)
        raise DataUrlError(
            f"data_url could not be downloaded ({type(exc).__name__}): check that "
            f"{parsed.scheme}://{parsed.netloc.decode('ascii')} is reachable."
        ) from None


def _parse(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise DataUrlError(f"data_url is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https"):
        raise DataUrlError(
            f"data_url scheme {parsed.scheme!r} is not supported: use an http or https URL."
        )
    if not parsed.host:
        raise DataUrlError("data_url has no host name.")
    if parsed.userinfo:
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
    client: httpx.AsyncClient,
    pinned: httpx.URL,
    headers: dict[str, str],
    extensions: dict[str, str],
    settings: Settings,
    original: str,
) -> RawBody:
    """The body as received, in its one checked coding, at most `DATA_VIZ_MAX_BYTES`."""
    limit = settings.data_viz_max_bytes
    request = client.build_request(
        "GET",
        pinned,
        headers=headers,
        extensions=extensions,
        timeout=settings.data_viz_timeout_s,
    )
    response = await client.send(request, stream=True, follow_redirects=False)
    try:
        if response.is_redirect:
            target = response.headers.get("location", "")
            raise DataUrlError(
                f"data_url answered with a redirect (HTTP {response.status_code}) to "
                f"{target[:200]!r}; redirects are not followed: pass the final URL."
            )
        if response.status_code != 200:
            raise DataUrlError(
                f"data_url answered HTTP {response.status_code}; expected 200 with GeoJSON."
            )
        content_type = response.headers.get("content-type", "")
        media = content_type.split(";")[0].strip().lower()
        if media and media not in _CONTENT_TYPES and not media.endswith("+json"):
            raise DataUrlError(
                f"data_url content type {media!r} is not a data file: expected GeoJSON or "
                "JSON (application/geo+json, application/json), CSV or text, or GPX."
            )
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise DataUrlError(_too_large(int(declared), limit))
        coding = coding_of(response.headers.get("content-encoding", ""), DATA_URL)
        body = await received(response.aiter_raw(), limit)
        if body is None:
            raise DataUrlError(_too_large(None, limit))
    finally:
        await response.aclose()
    logger.info("data_url downloaded %d bytes from %s", len(body), httpx.URL(original).host)
    return RawBody(body, coding, limit)


def _too_large(size: int | None, limit: int) -> str:
    got = f" ({size:,} bytes)" if size is not None else ""
    return (
        f"data_url is larger than the {limit:,}-byte limit{got}; "
        "use a smaller file or filter it first."
    )
