"""Sealed tokens any replica opens: AES-256-GCM under keys derived from the shared secrets.

A token is the unpadded base64url of a random 12-byte nonce and the AES-GCM sealing of
its plain bytes, under a key derived by HKDF-SHA256 from `TILE_TOKEN_SECRET` and a
`purpose` (the HKDF info), so a tile token and a job handle never open as each other.
Every replica derives the same keys, so a token sealed on one opens on any other with no
shared store; its bearer reads nothing in it, and changing one bit makes it fail to open.
Several secrets rotate: the first seals, all open. The additional data names the
layout of the plain bytes, so a layout retired by a later release still opens for as
long as its tokens last.

A token has one spelling, the one it was issued in: any other (the standard alphabet,
padding, characters a lenient decoder skips) is refused before decrypting, so the same
sealed bytes cannot pass for a new token. The nonce, authenticated with the rest, is a
token's identity (the tile route keeps rates per grant by it). Tile tokens and job
handles are built on this module (docs/front-door.md).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from tomtom_mcp_apps.server.errors import TokenError

__all__ = ["NONCE_BYTES", "TAG_BYTES", "Opened", "Sealer", "derive"]

NONCE_BYTES = 12
TAG_BYTES = 16
_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")


def derive(secret: str, purpose: bytes) -> bytes:
    """The 32-byte AES key `secret` gives for `purpose` (HKDF-SHA256, no salt)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(
        secret.encode("utf-8")
    )


@dataclass(frozen=True)
class Opened:
    """A token's plain bytes, the layout (additional data) they were sealed under, and
    the token's identity (its nonce)."""

    plain: bytes
    layout: bytes
    nonce: bytes


class Sealer:
    """Seals and opens tokens of one `purpose` under the replicas' shared secrets; `what`
    names the token in every refusal ("tile token", "job handle")."""

    def __init__(self, secrets: Sequence[str], purpose: bytes, what: str) -> None:
        if not secrets:
            raise ValueError(f"{what}s need at least one secret")
        self._ciphers = [AESGCM(derive(secret, purpose)) for secret in secrets]
        self._nonce_key = derive(secrets[0], purpose + b"/nonce")
        self.what = what

    def seal(self, plain: bytes, layout: bytes, *, same_each_time: bool = False) -> str:
        """The token of `plain`, sealed under the first secret with `layout` authenticated.
        With `same_each_time` the nonce is derived from what is sealed, so the same plain
        bytes give the same token on any replica (a grant handed out again); a nonce is
        then never used for anything else."""
        if same_each_time:
            nonce = hmac.digest(self._nonce_key, layout + plain, "sha256")[:NONCE_BYTES]
        else:
            nonce = os.urandom(NONCE_BYTES)
        sealed = self._ciphers[0].encrypt(nonce, plain, layout)
        return base64.urlsafe_b64encode(nonce + sealed).rstrip(b"=").decode("ascii")

    def open(self, token: str, layouts: Sequence[bytes], *, max_chars: int) -> Opened:
        """What `token` seals, under any secret and any of `layouts`; `TokenError` saying
        why it cannot be used otherwise (never repeating it)."""
        malformed = TokenError(f"malformed {self.what}")
        if len(token) > max_chars:
            raise malformed
        respelled = TokenError(
            f"malformed {self.what}: not in the spelling it was issued in (unpadded base64url)"
        )
        if not _ALPHABET.fullmatch(token):
            raise respelled
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise malformed from None
        if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != token:
            raise respelled
        if len(raw) < NONCE_BYTES + TAG_BYTES + 1:
            raise malformed
        nonce, sealed = raw[:NONCE_BYTES], raw[NONCE_BYTES:]
        for layout in layouts:
            for cipher in self._ciphers:
                try:
                    return Opened(cipher.decrypt(nonce, sealed, layout), layout, nonce)
                except InvalidTag:
                    continue
        raise TokenError(f"invalid {self.what} (forged, altered or sealed under another secret)")
