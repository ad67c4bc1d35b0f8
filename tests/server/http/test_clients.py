"""Who a request counts against: the peer, or X-Forwarded-For as far as trusted proxies wrote it."""

from __future__ import annotations

import ipaddress

import pytest

from tomtom_mcp_apps.server.http import client_of

PROXIES = (ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("127.0.0.1/32"))


def scope(peer: str, *forwarded: str) -> dict:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    return {"type": "http", "client": (peer, 4321), "headers": headers}


def test_an_untrusted_peer_is_the_client_whatever_its_header_says() -> None:
    assert client_of(scope("198.51.100.9", "203.0.113.1"), PROXIES) == "198.51.100.9"
    assert client_of(scope("198.51.100.9", "203.0.113.1"), ()) == "198.51.100.9"


def test_behind_a_trusted_proxy_the_client_is_the_address_it_forwarded() -> None:
    assert client_of(scope("10.1.2.3", "203.0.113.1"), PROXIES) == "203.0.113.1"


def test_a_client_cannot_pose_as_another_by_writing_the_header_itself() -> None:
    # The client wrote "1.2.3.4"; the trusted proxy appended the address it saw.
    assert client_of(scope("10.1.2.3", "1.2.3.4, 203.0.113.1"), PROXIES) == "203.0.113.1"


def test_a_chain_of_trusted_proxies_is_walked_back_to_the_first_untrusted_hop() -> None:
    request = scope("127.0.0.1", "203.0.113.1, 10.9.9.9", "10.0.0.5")
    assert client_of(request, PROXIES) == "203.0.113.1"


@pytest.mark.parametrize("junk", ["unknown", "not-an-ip", "999.1.1.1", "_hidden"])
def test_a_forwarded_entry_no_proxy_would_write_stops_the_walk_at_the_hop_that_passed_it(
    junk: str,
) -> None:
    assert client_of(scope("10.1.2.3", f"203.0.113.1, {junk}"), PROXIES) == "10.1.2.3"


def test_ipv6_clients_count_by_their_64_and_mapped_ipv4_as_ipv4() -> None:
    one = client_of(scope("2001:db8:1:2::1"), ())
    assert one == client_of(scope("2001:db8:1:2:ffff::9"), ()) == "2001:db8:1:2::/64"
    assert client_of(scope("2001:db8:1:3::1"), ()) != one
    assert client_of(scope("::ffff:192.0.2.4"), ()) == "192.0.2.4"


def test_a_request_with_no_peer_is_one_unknown_client() -> None:
    assert client_of({"type": "http", "headers": []}, PROXIES) == "unknown"
