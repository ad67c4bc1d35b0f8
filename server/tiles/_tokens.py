"""Sealed, short-lived tile tokens: the caller's key travels to the view encrypted.

A token seals a `Grant` (key, layers, expiry, signed-in user) with `server.sealing`
(AES-256-GCM under a key derived by HKDF from `TILE_TOKEN_SECRET`), so any replica opens
it and the view reads nothing in it. A token has one spelling and a grant's identity is its
nonce, so a respelled token gets no fresh rate; tokens of the layout without a user still
open (docs/front-door.md, Tiles through the server).
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from tomtom_mcp_apps.server.errors import TokenError
from tomtom_mcp_apps.server.sealing import Sealer, derive
from tomtom_mcp_apps.server.tiles._layers import LAYER_NAMES

_INFO = b"tomtom-mcp-apps/tile-token/v1"
_AAD = b"tile-token-v2"
_V1_AAD = b"tile-token-v1"  # the layout without a user: such tokens still open, with none
_HEADER = struct.Struct(">IB16s")  # expiry (unix seconds), layer bit mask, user id
_V1_HEADER = struct.Struct(">IB")
_NO_USER = bytes(16)
MAX_TOKEN_CHARS = 512
"""Longer `t` values are refused before any decoding (keys are capped well below)."""


@dataclass(frozen=True)
class Grant:
    """What an opened token allows: tiles of `layers`, fetched with `key`, until `expires`,
    counted against `user` (a `User.id`) when one was signed in."""

    key: str
    layers: frozenset[str]
    expires: int
    user: str | None = None
    id: bytes = b""
    """The grant's identity (its token's nonce): what rates are kept by."""


class TileTokens:
    """Seals and opens tile tokens under the replicas' shared secrets."""

    def __init__(
        self,
        secrets: Sequence[str],
        ttl_s: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._sealer = Sealer(secrets, _INFO, "tile token")
        self.ttl_s = ttl_s
        self._clock = clock

    def seal(self, key: str, layers: Iterable[str], user: str | None = None) -> tuple[str, int]:
        """A token for `key`, `layers` and `user` (32 hex digits), and when it expires.

        A signed-in user's token is the same on every replica for a while: its expiry is
        the end of the next half-lifetime on the clock and its nonce a keyed hash of what it
        seals, so asking again within half a lifetime gives back the same grant (and its
        rate), never a fresh one. Anyone else's is new each time."""
        now = int(self._clock())
        mask = sum(1 << LAYER_NAMES.index(name) for name in set(layers))
        if user is None:
            expires, who = now + self.ttl_s, _NO_USER
        else:  # a signed-in user's grant is the same token until its half-lifetime turns
            half = max(1, self.ttl_s // 2)
            expires, who = (now // half + 2) * half, bytes.fromhex(user)
        plain = _HEADER.pack(expires, mask, who) + key.encode("utf-8")
        return self._sealer.seal(plain, _AAD, same_each_time=user is not None), expires

    def open(self, token: str) -> Grant:
        """The grant inside `token`, or TokenError saying why it cannot be used."""
        if not token:
            raise TokenError("no tile token (the t parameter)")
        opened = self._sealer.open(token, (_AAD, _V1_AAD), max_chars=MAX_TOKEN_CHARS)
        header = _HEADER if opened.layout == _AAD else _V1_HEADER
        if len(opened.plain) < header.size + 1:
            raise TokenError("malformed tile token")
        expires, mask, *who = header.unpack_from(opened.plain)
        if expires <= self._clock():
            raise TokenError("tile token expired: the view asks tomtom-get-map-config again")
        layers = frozenset(name for i, name in enumerate(LAYER_NAMES) if mask >> i & 1)
        user = who[0].hex() if who and who[0] != _NO_USER else None
        key = opened.plain[header.size :].decode("utf-8")
        return Grant(key, layers, expires, user, opened.nonce)


def _derive(secret: str) -> bytes:
    """The tile tokens' AES key `secret` gives (the tests forge an older layout with it)."""
    return derive(secret, _INFO)
