"""The authorization server as a resource server sees it: its metadata and signing keys.

Fetched from the issuer and cached per replica, so each replica verifies tokens on its
own (no shared state). The metadata is found where RFC 8414 and OpenID Connect put it
(the order MCP clients try) and must name the configured issuer exactly. The keys (its
JWKS) are kept for `cache_s`; a token naming a key that is not among them fetches them
again, at most once every `refetch_s` (a rotation is picked up at once, a flood of made-up
key ids costs one fetch per interval). While the server cannot be reached, the keys
last fetched keep serving; with none, tokens cannot be checked (`IssuerUnavailable`).

The keys are parsed by PyJWT (`jwt.PyJWK`); no JOSE is written here. Only public keys
for signatures are kept: symmetric (`oct`) keys and keys marked for encryption are
dropped when the set is read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

import orjson
from jwt import PyJWK, PyJWTError

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.bodies import Origin, coding_of, decode
from tomtom_mcp_apps.server.errors import BodyError, IssuerUnavailable, TokenRefused, TransportError

log = logging.getLogger(__name__)

MAX_DOCUMENT_BYTES = 1024 * 1024
"""Metadata, key sets and introspection answers are a few kilobytes; more is not read."""
ISSUER = Origin("The authorization server's answer", "")
SIGNING_KEY_TYPES = frozenset({"RSA", "EC", "OKP"})
NO_KEYS_RETRY_S = 5.0
"""With no keys yet and the last fetch failed, how long tokens are answered 503 at once
before the issuer is asked again (a replica does not hammer an issuer that is down)."""


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be, in the order MCP clients try them: RFC 8414 and
    OpenID Connect with the well-known part inserted before the issuer's path, then
    OpenID Connect's (and Keycloak's) appended after it."""
    parts = urlsplit(issuer)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    urls = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
    ]
    if path:
        urls += [
            f"{origin}{path}/.well-known/openid-configuration",
            f"{origin}{path}/.well-known/oauth-authorization-server",
        ]
    return urls


class AuthorizationServer:
    """One issuer's metadata and keys, fetched over `http` and cached."""

    def __init__(
        self,
        issuer: str,
        http: outbound.Client,
        *,
        cache_s: float,
        refetch_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.issuer = issuer
        self._http = http
        self._cache_s = cache_s
        self._refetch_s = refetch_s
        self._clock = clock
        self._metadata: dict[str, Any] | None = None
        self._keys: dict[str | None, dict[str, Any]] = {}
        self._parsed: dict[tuple[str | None, str], PyJWK] = {}
        self._fetched_at = -float("inf")
        """When the keys were last fetched (successfully)."""
        self._tried_at = -float("inf")
        """When they were last asked for, successfully or not."""
        self._lock = asyncio.Lock()
        self.generation = 0
        """Grows whenever the published keys change: what was verified under the old ones
        is verified again."""

    async def metadata(self) -> dict[str, Any]:
        """The issuer's metadata (RFC 8414 / OpenID Connect Discovery), fetched once."""
        if self._metadata is None:
            async with self._lock:
                if self._metadata is None:
                    self._metadata = await self._discover()
        return self._metadata

    async def key(self, kid: str | None, alg: str) -> PyJWK:
        """The public key `kid` names, for `alg`. `TokenRefused` when the issuer has no such
        key (after one bounded refetch) or it does not fit `alg`."""
        now = self._clock()
        never = self._fetched_at == -float("inf")  # not once fetched
        if never and now - self._tried_at < NO_KEYS_RETRY_S:
            raise IssuerUnavailable(f"the keys of {self.issuer} could not be fetched just now")
        if never or now - self._fetched_at > self._cache_s:
            await self._refresh(now, stale_ok=not never)
        if self._fetched_at == -float("inf"):  # another request's fetch failed meanwhile
            raise IssuerUnavailable(f"the keys of {self.issuer} could not be fetched")
        jwk = self._find(kid)
        if jwk is None and self._clock() - self._tried_at >= self._refetch_s:
            await self._refresh(self._clock(), stale_ok=True)  # a key rotated in?
            jwk = self._find(kid)
        if jwk is None:
            raise TokenRefused(
                "unknown_key",
                "the token is signed with a key the authorization server does not list",
            )
        return self._parsed_key(kid, jwk, alg)

    async def warm(self) -> None:
        """Fetch the metadata and keys now (at start-up), so the first call waits for neither;
        a failure is logged and left to the first token to retry."""
        try:
            await self._refresh(self._clock(), stale_ok=False)
        except IssuerUnavailable as exc:
            log.warning("sign-in: %s", exc, extra={"event": "issuer_unavailable"})

    def _find(self, kid: str | None) -> dict[str, Any] | None:
        if kid is None and len(self._keys) == 1:  # a token without kid, an issuer with one key
            return next(iter(self._keys.values()))
        return self._keys.get(kid)

    def _parsed_key(self, kid: str | None, jwk: dict[str, Any], alg: str) -> PyJWK:
        parsed = self._parsed.get((kid, alg))
        if parsed is not None:
            return parsed
        if jwk.get("alg", alg) != alg:
            raise TokenRefused("algorithm", f"the token's key is for {jwk['alg']}, not {alg}")
        try:
            parsed = PyJWK(jwk, algorithm=alg)
        except PyJWTError:
            raise TokenRefused("algorithm", f"the token's key cannot verify {alg}") from None
        self._parsed[(kid, alg)] = parsed
        return parsed

    async def _refresh(self, now: float, *, stale_ok: bool) -> None:
        """Fetch the key set again (one fetch at a time; waiters share its outcome)."""
        async with self._lock:
            if self._tried_at >= now:  # another request fetched while this one waited
                return
            self._tried_at = self._clock()
            try:
                if self._metadata is None:
                    self._metadata = await self._discover()
                keys = _signing_keys(await self._document(self._jwks_uri(), "keys"))
            except IssuerUnavailable as exc:
                if not stale_ok:
                    raise
                log.warning(
                    "sign-in: %s; the keys fetched before keep serving",
                    exc,
                    extra={"event": "issuer_unavailable"},
                )
                return
            if keys != self._keys:
                self.generation += 1
            if set(keys) != set(self._keys):
                log.info(
                    "sign-in: the authorization server lists %d signing keys",
                    len(keys),
                    extra={"event": "issuer_keys", "keys": len(keys)},
                )
            self._keys, self._parsed = keys, {}
            self._fetched_at = self._clock()

    def _jwks_uri(self) -> str:
        assert self._metadata is not None
        uri = self._metadata.get("jwks_uri")
        if not isinstance(uri, str) or not uri:
            raise IssuerUnavailable(
                f"{self.issuer} publishes no jwks_uri: its JWTs cannot be checked"
            )
        return uri

    async def _discover(self) -> dict[str, Any]:
        for url in metadata_urls(self.issuer):
            try:
                metadata = await self._document(url, "metadata", missing_ok=True)
            except IssuerUnavailable:
                continue
            if metadata is None:
                continue
            named = str(metadata.get("issuer"))[:200]
            if named != self.issuer:
                raise IssuerUnavailable(
                    f"the metadata at {url} names the issuer {named!r}, not "
                    f"OAUTH_ISSUER={self.issuer!r} (they must be equal, RFC 8414)"
                )
            return metadata
        raise IssuerUnavailable(f"no authorization server metadata could be read for {self.issuer}")

    async def _document(self, url: str, what: str, *, missing_ok: bool = False) -> Any:
        """A JSON document of the authorization server, at most `MAX_DOCUMENT_BYTES`."""
        try:
            async with self._http.request(
                "GET", url, headers={"accept": "application/json"}
            ) as response:
                if response.status == 404 and missing_ok:
                    return None
                if response.status != 200:
                    raise IssuerUnavailable(f"{url} answered HTTP {response.status}")
                body = await bounded(response, url)
        except TransportError as exc:
            raise IssuerUnavailable(f"{url} could not be reached ({type(exc).__name__})") from None
        try:
            document = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise IssuerUnavailable(f"the {what} at {url} is not JSON") from None
        if not isinstance(document, dict):
            raise IssuerUnavailable(f"the {what} at {url} is not a JSON object")
        return document


async def bounded(response: outbound.Answer, url: str) -> bytes:
    """An answer's body, at most `MAX_DOCUMENT_BYTES` as received and once decoded."""
    body = await response.read(MAX_DOCUMENT_BYTES)
    if body is None:
        raise IssuerUnavailable(f"{url} sent more than {MAX_DOCUMENT_BYTES} bytes")
    try:
        coding = coding_of(response.header("content-encoding"), ISSUER)
        return decode(body, coding, MAX_DOCUMENT_BYTES, ISSUER)
    except BodyError as exc:  # gzip past the bound, broken, or in a coding not asked for
        raise IssuerUnavailable(f"{url}: {exc}") from None


def _signing_keys(document: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    """A JWKS's public signing keys by `kid`: symmetric keys, keys for encryption and
    entries that are not keys are left out."""
    entries: Iterable[Any] = document.get("keys") if isinstance(document.get("keys"), list) else ()
    keys: dict[str | None, dict[str, Any]] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("kty") not in SIGNING_KEY_TYPES:
            continue
        if entry.get("use", "sig") != "sig" or "d" in entry:  # never a private key
            continue
        kid = entry.get("kid")
        keys[kid if isinstance(kid, str) else None] = entry
    return keys
