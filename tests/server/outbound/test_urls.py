"""URLs, credentials and forms as the seam writes them: a caller's URL parsed once by the
library that sends it, and what the authorization server receives exactly as before."""

from __future__ import annotations

import httpx
import pytest

from tomtom_mcp_apps.server.errors import InvalidURL
from tomtom_mcp_apps.server.outbound import basic_auth, form, parse_url
from tomtom_mcp_apps.server.outbound._urls import pinned


@pytest.mark.parametrize(
    ("url", "host", "raw_host", "port", "netloc"),
    [
        ("https://data.example.test/x.geojson", "data.example.test", "data.example.test", 443,
         "data.example.test"),
        ("http://Data.Example.TEST:8080/x", "data.example.test", "data.example.test", 8080,
         "data.example.test:8080"),
        ("http://[::1]:9/x", "::1", "::1", 9, "[::1]:9"),
        ("https://ü.example/x", "ü.example", "xn--tda.example", 443, "xn--tda.example"),
    ],
)  # fmt: skip
def test_a_url_names_the_host_checked_and_the_host_header_sent(
    url: str, host: str, raw_host: str, port: int, netloc: str
) -> None:
    parsed = parse_url(url)
    assert (parsed.host, parsed.raw_host, parsed.port, parsed.netloc) == (
        host,
        raw_host,
        port,
        netloc,
    )
    assert not parsed.has_userinfo


def test_a_pinned_url_keeps_all_but_the_host() -> None:
    parsed = parse_url("https://data.example.test:8443/a%20b/x.geojson?q=1")
    assert pinned(parsed, "93.184.216.34") == "https://93.184.216.34:8443/a%20b/x.geojson?q=1"
    assert pinned(parse_url("http://h/x"), "2001:db8::1") == "http://[2001:db8::1]/x"


@pytest.mark.parametrize("url", ["http://a:b@h/x", "http://a@h/x", "http://:pw@h/x"])
def test_credentials_in_a_url_are_seen(url: str) -> None:
    assert parse_url(url).has_userinfo


@pytest.mark.parametrize("url", ["http://h:99999/x", "http://[::1/x", "http://h\\@evil/x"])
def test_a_url_that_is_none_is_refused_with_the_reason(url: str) -> None:
    with pytest.raises(InvalidURL, match=r"\w"):
        parse_url(url)


@pytest.mark.parametrize(("user", "password"), [("tomtom-mcp-apps", "s3cret"), ("a:b", "c d ü")])
def test_basic_credentials_are_written_as_httpx_wrote_them(user: str, password: str) -> None:
    request = httpx.Request("POST", "https://as.example.test/introspect")
    sent = next(httpx.BasicAuth(user, password).auth_flow(request))
    assert basic_auth(user, password) == sent.headers["authorization"]


def test_a_form_is_encoded_as_httpx_encoded_it() -> None:
    fields = {"token": "a+b/c=d é&x", "token_type_hint": "access_token"}
    request = httpx.Request("POST", "https://as.example.test/introspect", data=fields)
    assert form(fields) == (request.read(), request.headers["content-type"])
