"""Sealed, short-lived tile tokens: the caller's key travels to the view encrypted.

A token is AES-256-GCM of a `Grant` (key, layers, expiry, signed-in user) under a key
derived by HKDF from `TILE_TOKEN_SECRET`, so any replica opens it and the view reads nothing
in it; of several secrets the first seals, all open. A token has one spelling, its unpadded
base64url, and a grant's identity is its nonce, so a respelled token gets no fresh rate
(docs/front-door.md, Tiles through the server).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import os
import re
import struct
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from tomtom_mcp_apps.server.errors import TokenError
from tomtom_mcp_apps.server.tiles._layers import LAYER_NAMES

_INFO = b"tomtom-mcp-apps/tile-token/v1"
_NONCE_INFO = b"tomtom-mcp-apps/tile-token/nonce"
_AAD = b"tile-token-v2"
_V1_AAD = b"tile-token-v1"  # the layout without a user: such tokens still open, with none
_NONCE = 12
_TAG = 16
_HEADER = struct.Struct(">IB16s")  # expiry (unix seconds), layer bit mask, user id
_V1_HEADER = struct.Struct(">IB")
_NO_USER = bytes(16)
MAX_TOKEN_CHARS = 512
"""Longer `t` values are refused before any decoding (keys are capped well below)."""
_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")


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
        if not secrets:
            raise ValueError("tile tokens need at least one secret")
        self._ciphers = [AESGCM(_derive(secret)) for secret in secrets]
        self._nonce_key = _derive(secrets[0], _NONCE_INFO)
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
        else:
            half = max(1, self.ttl_s // 2)
            expires, who = (now // half + 2) * half, bytes.fromhex(user)
        plain = _HEADER.pack(expires, mask, who) + key.encode("utf-8")
        if user is None:
            nonce = os.urandom(_NONCE)
        else:  # the same plain text, the same nonce: nothing else is ever sealed under it
            nonce = hmac.digest(self._nonce_key, plain, "sha256")[:_NONCE]
        sealed = self._ciphers[0].encrypt(nonce, plain, _AAD)
        return base64.urlsafe_b64encode(nonce + sealed).rstrip(b"=").decode("ascii"), expires

    def open(self, token: str) -> Grant:
        """The grant inside `token`, or TokenError saying why it cannot be used."""
        if not token:
            raise TokenError("no tile token (the t parameter)")
        if len(token) > MAX_TOKEN_CHARS:
            raise TokenError("malformed tile token")
        respelled = TokenError(
            "malformed tile token: not in the spelling it was issued in (unpadded base64url)"
        )
        if not _ALPHABET.fullmatch(token):
            raise respelled
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise TokenError("malformed tile token") from None
        if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != token:
            raise respelled
        if len(raw) < _NONCE + _TAG + _V1_HEADER.size + 1:
            raise TokenError("malformed tile token")
        nonce, sealed = raw[:_NONCE], raw[_NONCE:]
        opened = self._decrypt(nonce, sealed)
        if opened is None:
            raise TokenError("invalid tile token (forged, altered or sealed under another secret)")
        plain, header = opened
        expires, mask, *who = header.unpack_from(plain)
        if expires <= self._clock():
            raise TokenError("tile token expired: the view asks tomtom-get-map-config again")
        layers = frozenset(name for i, name in enumerate(LAYER_NAMES) if mask >> i & 1)
        user = who[0].hex() if who and who[0] != _NO_USER else None
        return Grant(plain[header.size :].decode("utf-8"), layers, expires, user, nonce)

    def _decrypt(self, nonce: bytes, sealed: bytes) -> tuple[bytes, struct.Struct] | None:
        """The plain text and its layout, under any secret, of this layout or the last."""
        for aad, header in ((_AAD, _HEADER), (_V1_AAD, _V1_HEADER)):
            for cipher in self._ciphers:
                try:
                    return cipher.decrypt(nonce, sealed, aad), header
                except InvalidTag:
                    continue
        return None


def _derive(secret: str, info: bytes = _INFO) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(
        secret.encode("utf-8")
    )
