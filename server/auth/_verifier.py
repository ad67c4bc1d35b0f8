"""Bearer tokens checked: JWTs against the issuer's keys, opaque ones by introspection.

`TokenCheck` is the SDK's `TokenVerifier` (`mcp.server.auth.provider`): it turns a
token into the SDK's `AccessToken`, or refuses it with `TokenRefused` (the reason
the 401 gives; the SDK's protocol says None, and `server.auth._gate` turns one into
the other). A JWT is verified by PyJWT on this replica alone: signature under the
issuer's key for an allowed, asymmetric algorithm, `iss` equal to the issuer, `aud`
naming this server, `exp`/`nbf`/`iat` within the leeway, `sub` present; a token once
verified is remembered by its hash until it expires (a conversation sends the same
token with every call), and verified again when the issuer's keys change. With
`OAUTH_INTROSPECTION` a token is sent to the issuer's introspection endpoint (RFC
7662) instead: for tokens that are not JWTs (`opaque`) or for every one (`all`); an
active answer is checked for the same issuer, audience and times, and kept for a
short while so that a conversation's calls do not each cost a round trip; a refused one
is kept a short while too, and a client whose tokens the issuer refused too often waits
before its next one is sent (made-up tokens cost the issuer a bounded number of calls).
Where the issuer marks a token's type (RFC 9068's `typ: at+jwt`, Keycloak's `typ`
claim), an ID token is refused as an access token.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import jwt
import orjson
from mcp.server.auth.provider import AccessToken

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.auth._issuer import AuthorizationServer, bounded
from tomtom_mcp_apps.server.errors import (
    IssuerUnavailable,
    TokenRefused,
    TokensRefusedTooOften,
    TransportError,
)
from tomtom_mcp_apps.server.http import RateLimiter

REQUIRED_CLAIMS = ("exp", "iss", "aud", "sub")
REMEMBERED_TOKENS = 10_000
"""Verified tokens each check remembers (by hash), the least recently used forgotten first."""
MAX_TOKEN_CHARS = 16_384
"""Longer bearer tokens are refused unread (real ones are a few kilobytes at most)."""
REFUSED_KEPT_S = 30.0
"""How long an introspection's refusal is kept: the same made-up token sent again costs
the issuer nothing."""
REFUSALS_PER_MIN = 20
"""Opaque tokens of one client the issuer may refuse per minute (in bursts of as many):
then its next opaque token waits, unsent. A user's own token is refused once an hour or
so, when it expires; a client guessing tokens is refused every time."""
ACCESS_TOKEN_TYPES = frozenset({"at+jwt", "application/at+jwt"})
"""The JOSE `typ` of an access token (RFC 9068 §2.1)."""
PLAIN_TYPES = frozenset({"jwt", "application/jwt"})
"""A `typ` that says nothing of the token's use (most issuers' access tokens, and ID tokens)."""
ID_TOKEN_CLAIMS = ("at_hash", "c_hash")
"""Claims only an ID token carries (OpenID Connect Core §3.1.3.6, §3.3.2.11)."""
_PYJWT_REASONS: tuple[tuple[type[jwt.PyJWTError], str, str], ...] = (
    (jwt.ExpiredSignatureError, "expired", "the token has expired"),
    (jwt.ImmatureSignatureError, "not_yet_valid", "the token is not valid yet"),
    (jwt.InvalidAudienceError, "audience", "the token was issued for another resource"),
    (jwt.InvalidIssuerError, "issuer", "the token was issued by another authorization server"),
    (jwt.InvalidSignatureError, "signature", "the token's signature does not verify"),
    (jwt.MissingRequiredClaimError, "claims", "the token lacks a required claim"),
    (jwt.InvalidAlgorithmError, "algorithm", "the token's algorithm is not allowed"),
)


def looks_like_jwt(token: str) -> bool:
    """Three base64url parts: a JWS in compact form (anything else is opaque)."""
    return token.count(".") == 2


def scopes_of(claims: dict[str, Any]) -> list[str]:
    """The token's scopes: RFC 9068's space-separated `scope`, or the `scp` list some
    issuers (Entra ID, Okta) send."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return scope.split()
    scp = claims.get("scp")
    if isinstance(scp, str):
        return scp.split()
    if isinstance(scp, list):
        return [s for s in scp if isinstance(s, str)]
    return []


class JwtCheck:
    """JWT access tokens verified locally against the issuer's keys."""

    def __init__(
        self,
        server: AuthorizationServer,
        *,
        audience: str,
        algorithms: Sequence[str],
        leeway_s: float,
    ) -> None:
        self._server = server
        self._audiences = _spellings(audience)
        self._algorithms = tuple(algorithms)
        self._leeway = leeway_s
        self._verified: OrderedDict[bytes, tuple[int, dict[str, Any]]] = OrderedDict()
        """Token hash -> (the keys' generation, its claims)."""

    def remembered(self, token: str) -> bool:
        """Whether `token` was verified already and still holds: checking it costs nothing."""
        seen = self._verified.get(hashlib.sha256(token.encode()).digest())
        return (
            seen is not None
            and seen[0] == self._server.generation
            and seen[1]["exp"] + self._leeway > time.time()
        )

    async def verify_token(self, token: str) -> AccessToken:
        digest = hashlib.sha256(token.encode()).digest()  # never the token itself
        seen = self._verified.get(digest)
        if seen is not None:
            generation, claims = seen
            if generation == self._server.generation and claims["exp"] + self._leeway > time.time():
                self._verified.move_to_end(digest)
                return _access_token(token, claims, self._audiences[0])
            del self._verified[digest]
        claims = await self._verify(token)
        _keep(self._verified, digest, (self._server.generation, claims), REMEMBERED_TOKENS)
        return _access_token(token, claims, self._audiences[0])

    async def _verify(self, token: str) -> dict[str, Any]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenRefused("malformed", "the token is not a JWT") from None
        alg = header.get("alg")
        if alg not in self._algorithms:
            raise TokenRefused(
                "algorithm", f"the token's algorithm {str(alg)[:20]!r} is not allowed"
            )
        kid = header.get("kid")
        key = await self._server.key(kid if isinstance(kid, str) else None, alg)
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self._audiences,
                issuer=self._server.issuer,
                leeway=self._leeway,
                options={"require": list(REQUIRED_CLAIMS)},
            )
        except jwt.PyJWTError as exc:
            raise _refusal(exc) from None
        _an_access_token(header, claims)
        return {name: claims[name] for name in _KEPT if name in claims}


class IntrospectionCheck:
    """Tokens sent to the issuer's introspection endpoint (RFC 7662), answers kept briefly."""

    def __init__(
        self,
        server: AuthorizationServer,
        http: outbound.Client,
        *,
        client_id: str,
        client_secret: str,
        audience: str,
        leeway_s: float,
        cache_s: float,
        max_cached: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._server = server
        self._http = http
        self._auth = outbound.basic_auth(client_id, client_secret)
        self._audiences = _spellings(audience)
        self._leeway = leeway_s
        self._cache_s = cache_s
        self._max_cached = max_cached
        self._clock = clock
        self._cache: OrderedDict[bytes, tuple[float, dict[str, Any]]] = OrderedDict()
        self._refused: OrderedDict[bytes, tuple[float, TokenRefused]] = OrderedDict()
        """Token hash -> (until when, why the issuer's answer refused it)."""
        self._refusals = RateLimiter(REFUSALS_PER_MIN / 60, REFUSALS_PER_MIN, max_ids=max_cached)
        """Refused opaque tokens per client: each refusal takes one."""

    def remembered(self, token: str) -> bool:
        """Whether an active answer for `token` is kept: checking it costs nothing."""
        cached = self._cache.get(hashlib.sha256(token.encode()).digest())
        return cached is not None and cached[0] > self._clock()

    async def verify_token(self, token: str, client: str | None = None) -> AccessToken:
        """`token`'s `AccessToken` from the issuer's answer (kept briefly, either way);
        `TokensRefusedTooOften` when `client`'s tokens were refused too often of late."""
        digest = hashlib.sha256(token.encode()).digest()  # the cache never holds a token
        now = self._clock()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return _access_token(token, cached[1], self._audiences[0])
        refused = self._refused.get(digest)
        if refused is not None and refused[0] > now:
            raise refused[1]
        if client is not None:
            wait = self._refusals.wait(client)
            if wait is not None:
                raise TokensRefusedTooOften(
                    f"too many refused tokens from this client; retry in {wait} s",
                    retry_after=wait,
                )
        try:
            claims = self._checked(await self._introspect(token), now)
        except TokenRefused as exc:
            _keep(self._refused, digest, (now + REFUSED_KEPT_S, exc), self._max_cached)
            if client is not None:
                self._refusals.take(client)
            raise
        if self._cache_s > 0:
            until = min(now + self._cache_s, float(claims["exp"]))
            _keep(self._cache, digest, (until, claims), self._max_cached)
        return _access_token(token, claims, self._audiences[0])

    async def _introspect(self, token: str) -> dict[str, Any]:
        endpoint = (await self._server.metadata()).get("introspection_endpoint")
        if not isinstance(endpoint, str):
            raise IssuerUnavailable(f"{self._server.issuer} publishes no introspection_endpoint")
        # The client secret goes to the issuer's origin (or one trusted) only.
        endpoint = self._server.endpoint("introspection_endpoint", endpoint)
        body, content_type = outbound.form({"token": token, "token_type_hint": "access_token"})
        headers = {
            "accept": "application/json",
            "authorization": self._auth,
            "content-type": content_type,
        }
        try:
            async with self._http.request("POST", endpoint, headers=headers, body=body) as response:
                if response.status != 200:
                    raise IssuerUnavailable(
                        f"the introspection endpoint answered HTTP {response.status}"
                    )
                content = await bounded(response, "the introspection endpoint")
        except TransportError as exc:
            raise IssuerUnavailable(
                f"the introspection endpoint could not be reached ({type(exc).__name__})"
            ) from None
        try:
            answer = orjson.loads(content)
        except orjson.JSONDecodeError:
            raise IssuerUnavailable("the introspection endpoint's answer is not JSON") from None
        if not isinstance(answer, dict):
            raise IssuerUnavailable("the introspection endpoint's answer is not a JSON object")
        return answer

    def _checked(self, answer: dict[str, Any], now: float) -> dict[str, Any]:
        """The claims of an active token for this resource, or `TokenRefused`."""
        if answer.get("active") is not True:
            raise TokenRefused("inactive", "the authorization server says the token is not active")
        claims = {**answer, "iss": answer.get("iss", self._server.issuer)}
        if claims["iss"] != self._server.issuer:
            raise TokenRefused("issuer", "the token was issued by another authorization server")
        audiences = claims.get("aud")
        named = [audiences] if isinstance(audiences, str) else audiences or []
        if not set(named) & set(self._audiences):
            raise TokenRefused("audience", "the token was issued for another resource")
        if not isinstance(claims.get("sub"), str) or not isinstance(claims.get("exp"), int | float):
            raise TokenRefused("claims", "the token lacks a required claim")
        if claims["exp"] <= now - self._leeway:
            raise TokenRefused("expired", "the token has expired")
        if isinstance(claims.get("nbf"), int | float) and claims["nbf"] > now + self._leeway:
            raise TokenRefused("not_yet_valid", "the token is not valid yet")
        return claims


class TokenCheck:
    """The SDK's `TokenVerifier`: each token to the check that fits it."""

    def __init__(self, jwts: JwtCheck, introspection: IntrospectionCheck | None, mode: str) -> None:
        self._jwts = jwts
        self._introspection = introspection
        self._mode = mode

    def _introspected(self, token: str) -> bool:
        return self._introspection is not None and (
            self._mode == "all" or not looks_like_jwt(token)
        )

    def remembered(self, token: str) -> bool:
        """Whether `token` was verified already and still holds (no work to check it)."""
        if not token or len(token) > MAX_TOKEN_CHARS or not token.isascii():
            return False
        if self._introspection is not None and self._introspected(token):
            return self._introspection.remembered(token)
        return self._jwts.remembered(token)

    async def verify_token(self, token: str, client: str | None = None) -> AccessToken:
        """The token's `AccessToken`; `TokenRefused` saying why not, `IssuerUnavailable`
        when the authorization server is needed and does not answer,
        `TokensRefusedTooOften` when `client` (the front door's) guessed too often."""
        if not token or len(token) > MAX_TOKEN_CHARS or not token.isascii():
            raise TokenRefused("malformed", "the token is empty, too long or not ASCII")
        if self._introspection is not None and self._introspected(token):
            return await self._introspection.verify_token(token, client)
        return await self._jwts.verify_token(token)


_KEPT = ("iss", "sub", "exp", "scope", "scp", "client_id", "azp")
"""The claims an `AccessToken` is made of (all a remembered token keeps)."""


def _keep(cache: OrderedDict[bytes, Any], key: bytes, value: Any, most: int) -> None:
    """`value` kept under `key`, the oldest entries dropped past `most`."""
    cache[key] = value
    while len(cache) > most:
        cache.popitem(last=False)


def _spellings(audience: str) -> list[str]:
    """The audience as configured, and with or without its trailing slash (RFC 8707
    resource identifiers are compared as strings; hosts differ on that slash)."""
    bare = audience.rstrip("/")
    return list(dict.fromkeys([audience, bare, bare + "/"]))


def _an_access_token(header: dict[str, Any], claims: dict[str, Any]) -> None:
    """`TokenRefused` for a JWT its issuer marks as something other than an access token:
    a JOSE `typ` other than RFC 9068's `at+jwt` or a plain `JWT`, Keycloak's `typ` claim
    saying `ID`, or, unmarked, the claims only an ID token carries."""
    typ = str(header.get("typ", "jwt")).lower()
    if typ in ACCESS_TOKEN_TYPES:
        return
    if typ not in PLAIN_TYPES:
        raise TokenRefused("token_type", f"the token is a {typ[:20]!r}, not an access token")
    marked = claims.get("typ")
    if isinstance(marked, str) and marked.lower() in ("id", "id_token"):
        raise TokenRefused("token_type", "the token is an ID token, not an access token")
    if marked is None and any(name in claims for name in ID_TOKEN_CLAIMS):
        raise TokenRefused("token_type", "the token is an ID token, not an access token")


def _refusal(exc: jwt.PyJWTError) -> TokenRefused:
    for kind, reason, message in _PYJWT_REASONS:
        if isinstance(exc, kind):
            return TokenRefused(reason, message)
    return TokenRefused("malformed", "the token cannot be read as a JWT")


def _access_token(token: str, claims: dict[str, Any], audience: str) -> AccessToken:
    client = claims.get("client_id") or claims.get("azp") or ""
    return AccessToken(
        token=token,
        client_id=str(client),
        scopes=scopes_of(claims),
        expires_at=int(claims["exp"]),
        resource=audience,
        subject=str(claims["sub"]),
        claims={"iss": claims["iss"]},
    )
