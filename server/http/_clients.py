"""Who is asking: the identity the front door keeps a client's rate under (`client_of`).

`X-Forwarded-For` is believed only as far as proxies in `TRUSTED_PROXIES` wrote it: walked
from the right, the client is the first address that is not a trusted proxy, and an
untrusted peer is itself, whatever its header says. IPv6 clients count by their /64.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from starlette.types import Scope

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_HOPS = 16
"""`X-Forwarded-For` entries looked at, from the right: no deployment has more proxies."""


def client_of(scope: Scope, trusted: Sequence[Network]) -> str:
    """The client a request counts against: its address (by the rule of this module) as text."""
    peer = _address((scope.get("client") or ("", 0))[0])
    if peer is None:
        return "unknown"
    hops = _forwarded_for(scope) if _trusted(peer, trusted) else []
    client = peer
    for hop in reversed(hops[-MAX_HOPS:]):
        address = _address(hop)
        if address is None:
            break  # an entry no proxy would write: the hop that passed it on is the client
        client = address
        if not _trusted(address, trusted):
            break
    return _identity(client)


def _forwarded_for(scope: Scope) -> list[str]:
    values = [v for k, v in scope.get("headers", ()) if k == b"x-forwarded-for"]
    joined = b",".join(values).decode("latin-1")
    return [part.strip() for part in joined.split(",") if part.strip()]


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _trusted(address: Address, trusted: Sequence[Network]) -> bool:
    return any(address in network for network in trusted)


def _identity(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
