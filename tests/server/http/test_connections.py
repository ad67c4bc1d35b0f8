"""Connections held open without asking anything, against a real replica (uvloop, httptools):
an idle connection is closed from its first moment, headers must arrive whole in time and
within their size."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from loadtest.topology import Service
from tests.processes import running

pytestmark = pytest.mark.process

WAIT_S = 10.0
"""How long a test waits for the replica to act: far past the 1 s bounds it is given."""


@pytest.fixture(scope="module")
def replica() -> Iterator[Service]:
    env = {
        "HTTP_HEADER_TIMEOUT_S": "1",
        "HTTP_IDLE_TIMEOUT_S": "1",
        "HTTP_MAX_HEADER_BYTES": "16384",
        "FIT_WORKERS": "1",
    }
    with running(["serve"], env) as service:
        yield service


def connect(replica: Service) -> socket.socket:
    port = int(replica.url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
    sock.settimeout(WAIT_S)
    return sock


def refusals(replica: Service, reason: str) -> float:
    page = httpx.get(f"{replica.url}/metrics", timeout=WAIT_S).text
    for family in text_string_to_metric_families(page):
        for sample in family.samples:
            if sample.name == "tomtom_mcp_refusals_total" and sample.labels["reason"] == reason:
                return sample.value
    return 0.0


def answer(sock: socket.socket) -> bytes:
    """Everything the replica sends until it closes the connection."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_connection_that_never_asks_anything_is_closed_after_the_idle_timeout(
    replica: Service,
) -> None:
    started = time.monotonic()
    with connect(replica) as sock:
        assert answer(sock) == b""
    assert 0.9 < time.monotonic() - started < WAIT_S


def test_headers_that_do_not_arrive_whole_in_time_get_408_and_a_closed_connection(
    replica: Service,
) -> None:
    started = time.monotonic()
    with connect(replica) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app")
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), got
    assert 0.9 < time.monotonic() - started < WAIT_S
    assert refusals(replica, "header_timeout") >= 1


def test_headers_over_their_size_get_431_before_the_app_sees_them(replica: Service) -> None:
    with connect(replica) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.sendall(b"X-Pad: " + b"a" * 20_000 + b"\r\n\r\n")
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), got[:100]
    assert refusals(replica, "headers_too_large") >= 1


def test_requests_within_the_bounds_are_served_on_one_kept_alive_connection(
    replica: Service,
) -> None:
    with httpx.Client(base_url=replica.url, timeout=WAIT_S) as client:
        for _ in range(3):
            assert client.get("/health").status_code == 200
