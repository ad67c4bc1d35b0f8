"""The data_url guard: only public addresses, pinned, no redirects, bounded in size and time."""

from __future__ import annotations

import gzip
import ipaddress
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.downloads import _data_url as data_url
from tomtom_mcp_apps.server.downloads import address_refusal, download
from tomtom_mcp_apps.server.errors import DataUrlError
from tomtom_mcp_apps.server.offline._app import _bomb, _stacked_bomb
from tomtom_mcp_apps.server.pool import INLINE

GEOJSON = b'{"type":"FeatureCollection","features":[]}'
BIG = b"[" + b"0," * 6000 + b"0]"  # 12,003 bytes
ALLOW = Settings(data_viz_allow_private=True, data_viz_max_bytes=10_000, data_viz_timeout_s=10)
IMPATIENT = ALLOW.model_copy(update={"data_viz_timeout_s": 0.5})
"""For the one download that must time out; the others get time to spare on a busy machine."""
STRICT = Settings(data_viz_allow_private=False)
STACKED = _stacked_bomb()  # 373 bytes, 4 GiB under three layers of gzip
BOMB = _bomb(8 * 1024 * 1024)  # 8 KB, 8 MiB once inflated


class QuietServer(ThreadingHTTPServer):
    """The guard hangs up on oversized bodies on purpose: a broken pipe here is no error."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Site:
    """A local HTTP server whose paths each misbehave in one way."""

    def __init__(self) -> None:
        self.hosts: list[str] = []
        self.release = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                site.hosts.append(self.headers.get("host", ""))
                route = {
                    "/ok.geojson": lambda: self.reply(200, "application/geo+json", GEOJSON),
                    "/plain.geojson": lambda: self.reply(200, "text/plain", GEOJSON),
                    "/page.html": lambda: self.reply(200, "text/html", b"<html></html>"),
                    "/missing": lambda: self.reply(404, "application/json", b"{}"),
                    "/big": lambda: self.reply(200, "application/json", BIG),
                    "/big-unannounced": self.unannounced,
                    "/redirect": self.redirect,
                    "/stacked": lambda: self.encoded(STACKED, "gzip, gzip, gzip"),
                    "/bomb": lambda: self.encoded(BOMB, "gzip"),
                    "/br": lambda: self.encoded(GEOJSON, "br"),
                    "/gzip": lambda: self.encoded(gzip.compress(GEOJSON), "gzip"),
                    "/slow": self.slow,
                }
                route[self.path]()

            def reply(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def encoded(self, body: bytes, coding: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/geo+json")
                self.send_header("content-encoding", coding)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def unannounced(self) -> None:
                # HTTP/1.0 without content-length: the body ends when the connection closes.
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                for _ in range(20):
                    self.wfile.write(b" " * 1000)

            def redirect(self) -> None:
                self.send_response(302)
                self.send_header("location", "http://169.254.169.254/latest/meta-data")
                self.send_header("content-length", "0")
                self.end_headers()

            def slow(self) -> None:
                site.release.wait(timeout=5)
                self.reply(200, "application/json", GEOJSON)

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Site:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with Site() as running:
        yield running


@pytest.fixture
async def client() -> AsyncIterator[outbound.Client]:
    http = outbound.data_urls(timeout_s=10, user_agent="tomtom-mcp-apps/tests")
    yield http
    await http.aclose()


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "not a public"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::a00:1", "private"),
        ("2002:a00:1::", "private"),
    ],
)
def test_non_public_addresses_are_refused_with_the_reason(address: str, why: str) -> None:
    reason = address_refusal(ipaddress.ip_address(address))
    assert reason is not None and why in reason


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x.json",
        "http://[::1]:9/x.json",
        "http://[::ffff:10.0.0.1]/x.json",
        "http://169.254.169.254/latest/meta-data",
    ],
)
async def test_private_targets_are_refused_before_any_connection(
    client: outbound.Client, url: str
) -> None:
    with pytest.raises(DataUrlError, match="is refused"):
        await download(client, url, STRICT, INLINE)


async def test_a_name_is_refused_when_any_of_its_addresses_is_private(
    client: outbound.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def resolve(host: str, port: int) -> list:
        return [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("10.0.0.5")]

    monkeypatch.setattr(data_url, "_resolve", resolve)
    with pytest.raises(DataUrlError, match=r"'data\.example\.test' is refused: 10\.0\.0\.5"):
        await download(client, "https://data.example.test/x.geojson", STRICT, INLINE)


async def test_the_connection_goes_to_the_checked_address_with_the_original_host_header(
    client: outbound.Client, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name exists nowhere: only the pinned address can have reached the site.
    async def resolve(host: str, port: int) -> list:
        assert host == "data.example.test"
        return [ipaddress.ip_address("127.0.0.1")]

    monkeypatch.setattr(data_url, "_resolve", resolve)
    body = await download(client, f"http://data.example.test:{site.port}/ok.geojson", ALLOW, INLINE)
    assert body == GEOJSON
    assert site.hosts[-1] == f"data.example.test:{site.port}"


async def test_a_gzipped_download_arrives_decoded(client: outbound.Client, site: Site) -> None:
    assert await download(client, f"{site.url}/gzip", ALLOW, INLINE) == GEOJSON


async def test_private_targets_are_fetched_when_configuration_allows_them(
    client: outbound.Client, site: Site
) -> None:
    assert await download(client, f"{site.url}/ok.geojson", ALLOW, INLINE) == GEOJSON
    assert await download(client, f"{site.url}/plain.geojson", ALLOW, INLINE) == GEOJSON


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/redirect", r"redirect \(HTTP 302\).*not followed"),
        ("/page.html", "content type 'text/html' is not a data file"),
        ("/missing", "HTTP 404"),
        ("/big", r"larger than the 10,000-byte limit \(12,003 bytes\)"),
        ("/big-unannounced", "larger than the 10,000-byte limit"),
        ("/slow", r"longer than 0\.5 s"),
        ("/stacked", r"^The data_url's body came with 3 content codings stacked"),
        ("/bomb", r"larger than this server accepts \(10,000 bytes once decompressed\)"),
        ("/br", r"unrequested encoding \(br\)"),
    ],
)
async def test_bad_downloads_get_a_specific_error(
    client: outbound.Client, site: Site, path: str, message: str
) -> None:
    with pytest.raises(DataUrlError, match=message):
        await download(client, site.url + path, IMPATIENT if path == "/slow" else ALLOW, INLINE)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/x.geojson", "scheme 'ftp' is not supported"),
        ("file:///etc/passwd", "scheme 'file' is not supported"),
        ("https://user:pw@example.com/x.geojson", "user name or password"),
        ("https:///x.geojson", "no host"),
    ],
)
async def test_urls_that_are_not_plain_http_are_refused(
    client: outbound.Client, url: str, message: str
) -> None:
    with pytest.raises(DataUrlError, match=message):
        await download(client, url, ALLOW, INLINE)
