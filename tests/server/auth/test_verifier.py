"""Bearer tokens as a replica checks them (`server.auth`), against an issuer in process.

The tokens are real JWTs signed with real RSA keys (PyJWT); the issuer publishes its
metadata and keys over an httpx `MockTransport`, which counts what the replica fetched.
Every refusal names its reason; no refusal repeats the token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.server.auth.support import Issuer, SigningKey, claims
from tomtom_mcp_apps.server.auth import build_sign_in
from tomtom_mcp_apps.server.auth._issuer import metadata_urls
from tomtom_mcp_apps.server.auth._verifier import TokenCheck
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import IssuerUnavailable, TokenRefused, TokensRefusedTooOften

ISSUER = "https://as.example.test"
MCP = "https://maps.example.test/mcp"
KEY = SigningKey.new("k1")
STRANGER = SigningKey.new("k1-but-not-published")


def check(issuer: Issuer, **settings: Any) -> TokenCheck:
    sign_in = build_sign_in(
        Settings(oauth_issuer=issuer.url, public_url=MCP, **settings), transport=issuer.transport()
    )
    assert sign_in is not None
    return sign_in.check


@pytest.fixture
def issuer() -> Issuer:
    return Issuer(ISSUER, [KEY])


async def refused(issuer: Issuer, token: str, **settings: Any) -> TokenRefused:
    with pytest.raises(TokenRefused) as caught:
        await check(issuer, **settings).verify_token(token)
    assert token not in str(caught.value)
    return caught.value


async def test_a_token_from_the_issuer_for_this_server_is_accepted_as_its_user(
    issuer: Issuer,
) -> None:
    access = await check(issuer).verify_token(KEY.sign(claims(ISSUER, MCP, sub="alice")))
    assert (access.subject, access.claims, access.scopes) == ("alice", {"iss": ISSUER}, ["maps"])
    assert access.resource == MCP


def unsigned(payload: dict[str, Any], **header: Any) -> str:
    return f"{b64({'alg': 'none', 'typ': 'JWT', **header})}.{b64(payload)}."


def tampered(token: str) -> str:
    header, payload, signature = token.split(".")
    body = orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["sub"] = "mallory"
    forged = base64.urlsafe_b64encode(orjson.dumps(body)).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def hs256(payload: dict[str, Any], secret: bytes) -> str:
    """A JWT signed with HMAC-SHA256 by hand (PyJWT refuses to sign with a key that looks
    asymmetric, which is the point of the attack)."""
    header = {"alg": "HS256", "typ": "JWT", "kid": KEY.kid}
    signing_input = f"{b64(header)}.{b64(payload)}"
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def b64(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(value)).rstrip(b"=").decode()


def hmac_with_public_key() -> str:
    """The classic confusion: HS256 keyed with the issuer's public key, which anyone has."""
    pem = KEY.private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    return hs256(claims(ISSUER, MCP), pem)


REFUSED = {
    "expired": lambda: KEY.sign(claims(ISSUER, MCP, exp=int(time.time()) - 120)),
    "other audience": lambda: KEY.sign(claims(ISSUER, "https://other.example.test/mcp")),
    "other issuer": lambda: KEY.sign(claims("https://evil.example.test", MCP)),
    "unknown key": lambda: STRANGER.sign(claims(ISSUER, MCP)),
    "alg none": lambda: unsigned(claims(ISSUER, MCP), kid=KEY.kid),
    "HS256 with the public key": hmac_with_public_key,
    "tampered payload": lambda: tampered(KEY.sign(claims(ISSUER, MCP))),
    "no subject": lambda: KEY.sign({k: v for k, v in claims(ISSUER, MCP).items() if k != "sub"}),
    "not valid yet": lambda: KEY.sign(claims(ISSUER, MCP, nbf=int(time.time()) + 600)),
    "garbage": lambda: "definitely-not-a-token",
    "three dots of garbage": lambda: "a.b.c",
}
REASONS = {
    "expired": "expired",
    "other audience": "audience",
    "other issuer": "issuer",
    "unknown key": "unknown_key",
    "alg none": "algorithm",
    "HS256 with the public key": "algorithm",
    "tampered payload": "signature",
    "no subject": "claims",
    "not valid yet": "not_yet_valid",
    "garbage": "malformed",
    "three dots of garbage": "malformed",
}


@pytest.mark.parametrize("case", list(REFUSED))
async def test_a_bad_token_is_refused_with_its_reason_and_never_repeated(
    issuer: Issuer, case: str
) -> None:
    refusal = await refused(issuer, REFUSED[case]())
    assert refusal.reason == REASONS[case], (case, str(refusal))


async def test_a_token_expired_within_the_leeway_is_still_accepted(issuer: Issuer) -> None:
    token = KEY.sign(claims(ISSUER, MCP, exp=int(time.time()) - 10))
    assert (await check(issuer, oauth_leeway_s=30).verify_token(token)).subject == "alice"
    assert (await refused(issuer, token, oauth_leeway_s=0)).reason == "expired"


async def test_the_audience_may_be_set_apart_from_the_public_url(issuer: Issuer) -> None:
    token = KEY.sign(claims(ISSUER, "api://tomtom-maps"))
    accepted = await check(issuer, oauth_audience="api://tomtom-maps").verify_token(token)
    assert accepted.subject == "alice"
    assert (await refused(issuer, token)).reason == "audience"


async def test_an_audience_list_naming_this_server_is_accepted_with_or_without_a_slash(
    issuer: Issuer,
) -> None:
    token = KEY.sign(claims(ISSUER, ["https://other.example.test", MCP + "/"]))
    assert (await check(issuer).verify_token(token)).subject == "alice"


async def test_an_algorithm_left_out_of_the_allow_list_is_refused(issuer: Issuer) -> None:
    token = KEY.sign(claims(ISSUER, MCP))
    refusal = await refused(issuer, token, oauth_algorithms=("ES256",))
    assert refusal.reason == "algorithm"


async def test_scp_lists_count_as_scopes(issuer: Issuer) -> None:
    token = KEY.sign({**claims(ISSUER, MCP), "scope": None, "scp": ["maps", "extra"]})
    assert (await check(issuer).verify_token(token)).scopes == ["maps", "extra"]


# --- the issuer's keys ------------------------------------------------------------------------


async def test_a_rotated_key_is_fetched_and_accepted_at_once(issuer: Issuer) -> None:
    verifier = check(issuer, oauth_jwks_refetch_s=0)
    await verifier.verify_token(KEY.sign(claims(ISSUER, MCP)))
    rotated = SigningKey.new("k2")
    issuer.keys = [rotated, KEY]  # the issuer signs with a new key from now on
    accepted = await verifier.verify_token(rotated.sign(claims(ISSUER, MCP, sub="bob")))
    assert accepted.subject == "bob"
    assert issuer.hits["/jwks"] == 2


async def test_a_remembered_token_is_verified_again_once_its_key_is_withdrawn(
    issuer: Issuer,
) -> None:
    verifier = check(issuer, oauth_jwks_refetch_s=0)
    token = KEY.sign(claims(ISSUER, MCP))
    for _ in range(3):  # verified once, then remembered
        assert (await verifier.verify_token(token)).subject == "alice"
    assert issuer.hits["/jwks"] == 1
    replacement = SigningKey.new("k2")
    issuer.keys = [replacement]  # k1 withdrawn: a token under k2 makes the replica look
    await verifier.verify_token(replacement.sign(claims(ISSUER, MCP, sub="bob")))
    with pytest.raises(TokenRefused, match="does not list"):
        await verifier.verify_token(token)


async def test_unknown_key_ids_fetch_the_keys_at_most_once_per_interval(issuer: Issuer) -> None:
    verifier = check(issuer, oauth_jwks_refetch_s=3600)
    await verifier.verify_token(KEY.sign(claims(ISSUER, MCP)))
    for i in range(20):
        made_up = SigningKey(f"made-up-{i}", STRANGER.private)
        with pytest.raises(TokenRefused, match="does not list"):
            await verifier.verify_token(made_up.sign(claims(ISSUER, MCP)))
    assert issuer.hits["/jwks"] == 1


async def test_keys_once_fetched_keep_serving_while_the_issuer_is_down(issuer: Issuer) -> None:
    verifier = check(issuer, oauth_jwks_cache_s=10, oauth_jwks_refetch_s=0)
    await verifier.verify_token(KEY.sign(claims(ISSUER, MCP)))
    issuer.down = True
    with pytest.raises(TokenRefused, match="does not list"):
        await verifier.verify_token(STRANGER.sign(claims(ISSUER, MCP)))
    assert (await verifier.verify_token(KEY.sign(claims(ISSUER, MCP)))).subject == "alice"


async def test_with_no_keys_and_the_issuer_down_no_token_can_be_checked(issuer: Issuer) -> None:
    issuer.down = True
    with pytest.raises(IssuerUnavailable, match="no authorization server metadata"):
        await check(issuer).verify_token(KEY.sign(claims(ISSUER, MCP)))


async def test_metadata_naming_another_issuer_is_not_trusted() -> None:
    impostor = Issuer(ISSUER, [KEY])
    impostor.url = "https://impostor.example.test"  # what its metadata says
    sign_in = build_sign_in(
        Settings(oauth_issuer=ISSUER, public_url=MCP), transport=impostor.transport()
    )
    assert sign_in is not None
    with pytest.raises(IssuerUnavailable, match="must be equal"):
        await sign_in.check.verify_token(KEY.sign(claims(ISSUER, MCP)))


def test_metadata_is_looked_for_where_mcp_clients_look_then_where_keycloak_serves_it() -> None:
    assert metadata_urls("https://kc.example.test/realms/maps") == [
        "https://kc.example.test/.well-known/oauth-authorization-server/realms/maps",
        "https://kc.example.test/.well-known/openid-configuration/realms/maps",
        "https://kc.example.test/realms/maps/.well-known/openid-configuration",
        "https://kc.example.test/realms/maps/.well-known/oauth-authorization-server",
    ]
    assert metadata_urls("https://as.example.test") == [
        "https://as.example.test/.well-known/oauth-authorization-server",
        "https://as.example.test/.well-known/openid-configuration",
    ]


async def test_a_symmetric_key_in_the_key_set_is_never_used(issuer: Issuer) -> None:
    secret = b"a-shared-secret-that-is-long-enough-for-hs256"
    encoded = base64.urlsafe_b64encode(secret).rstrip(b"=").decode()
    issuer.keys = []
    issuer.other_entries = [{"kty": "oct", "kid": "k1", "k": encoded, "alg": "HS256"}]
    token = hs256(claims(ISSUER, MCP), secret)
    assert (await refused(issuer, token)).reason == "algorithm"
    token = KEY.sign(claims(ISSUER, MCP))  # RS256 naming the symmetric key's id
    assert (await refused(issuer, token)).reason == "unknown_key"


# --- introspection ----------------------------------------------------------------------------


def active(**more: Any) -> dict[str, Any]:
    return {"active": True, **claims(ISSUER, MCP), **more}


async def test_an_opaque_token_is_introspected_once_and_its_answer_reused(issuer: Issuer) -> None:
    issuer.introspected["opaque-token-1"] = active(sub="carol")
    verifier = check(
        issuer,
        oauth_introspection="opaque",
        oauth_client_id="rs",
        oauth_client_secret="rs-secret",
    )
    for _ in range(3):
        assert (await verifier.verify_token("opaque-token-1")).subject == "carol"
    assert issuer.hits["/introspect"] == 1
    assert issuer.basic_auth == ["Basic " + base64.b64encode(b"rs:rs-secret").decode()]
    jwt_token = KEY.sign(claims(ISSUER, MCP))
    assert (await verifier.verify_token(jwt_token)).subject == "alice"  # a JWT, checked here
    assert issuer.hits["/introspect"] == 1


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({"active": False}, "inactive"),
        (active(aud="https://other.example.test/mcp"), "audience"),
        (active(iss="https://evil.example.test"), "issuer"),
        (active(exp=int(time.time()) - 600), "expired"),
    ],
)
async def test_an_introspected_token_is_checked_like_a_jwt(
    issuer: Issuer, answer: dict[str, Any], reason: str
) -> None:
    issuer.introspected["opaque-token-2"] = answer
    refusal = await refused(
        issuer,
        "opaque-token-2",
        oauth_introspection="all",
        oauth_client_id="rs",
        oauth_client_secret="rs-secret",
    )
    assert refusal.reason == reason


async def test_with_the_issuer_down_and_no_keys_it_is_asked_once_per_interval(
    issuer: Issuer,
) -> None:
    issuer.down = True
    verifier = check(issuer)
    for _ in range(5):
        with pytest.raises(IssuerUnavailable):
            await verifier.verify_token(KEY.sign(claims(ISSUER, MCP)))
    assert sum(issuer.hits.values()) == 2, "the two metadata locations, once"


INTROSPECTING = {
    "oauth_introspection": "opaque",
    "oauth_client_id": "rs",
    "oauth_client_secret": "rs-secret",
}


async def test_a_refused_opaque_token_is_kept_and_asked_of_the_issuer_once(
    issuer: Issuer,
) -> None:
    verifier = check(issuer, **INTROSPECTING)
    for _ in range(5):
        with pytest.raises(TokenRefused):
            await verifier.verify_token("made-up-token", "192.0.2.1")
    assert issuer.hits["/introspect"] == 1


async def test_a_client_guessing_tokens_costs_the_issuer_a_bounded_number_of_calls(
    issuer: Issuer,
) -> None:
    """40 made-up opaque tokens from one client: the issuer is asked for the first 20
    (REFUSALS_PER_MIN); the rest wait, unsent, and another client is still asked."""
    verifier = check(issuer, **INTROSPECTING)
    waits = 0
    for n in range(40):
        try:
            await verifier.verify_token(f"made-up-{n}", "192.0.2.1")
        except TokensRefusedTooOften as exc:
            waits += 1
            assert exc.retry_after >= 1
        except TokenRefused:
            pass
    assert issuer.hits["/introspect"] == 20 and waits == 20
    issuer.introspected["good-token"] = active(sub="dave")
    assert (await verifier.verify_token("good-token", "192.0.2.2")).subject == "dave"


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("jwks_uri", "https://elsewhere.example.test/jwks"),
        ("jwks_uri", "http://as.example.test/jwks"),
        ("introspection_endpoint", "https://collector.example.test/introspect"),
        ("introspection_endpoint", "http://as.example.test/introspect"),
    ],
)
async def test_issuer_endpoints_off_its_origin_or_not_https_are_never_used(
    issuer: Issuer, name: str, url: str
) -> None:
    """The metadata cannot send the client secret, or this server's trust in keys, to
    another origin or over plain http."""
    issuer.named[name] = url
    verifier = check(issuer, **INTROSPECTING)
    token = "opaque-token" if name == "introspection_endpoint" else KEY.sign(claims(ISSUER, MCP))
    with pytest.raises(IssuerUnavailable) as caught:
        await verifier.verify_token(token)
    assert name in str(caught.value)
    assert set(issuer.hosts) == {"as.example.test"}, "nothing sent anywhere else"
    assert urlsplit(url).path not in issuer.hits, "nor over http"


async def test_an_origin_the_operator_trusts_may_serve_the_keys(issuer: Issuer) -> None:
    issuer.named["jwks_uri"] = "https://keys.example.test/jwks"
    verifier = check(issuer, oauth_trusted_origins=("https://keys.example.test",))
    access = await verifier.verify_token(KEY.sign(claims(ISSUER, MCP)))
    assert access.subject == "alice" and "keys.example.test" in issuer.hosts


@pytest.mark.parametrize(
    ("header", "more"),
    [
        ({}, {"at_hash": "x1", "nonce": "n"}),  # an OpenID Connect ID token, unmarked
        ({}, {"typ": "ID"}),  # Keycloak's ID token
        ({"typ": "id+jwt"}, {}),
        ({"typ": "logout+jwt"}, {}),
    ],
)
async def test_an_id_token_is_refused_as_an_access_token(
    issuer: Issuer, header: dict[str, str], more: dict[str, str]
) -> None:
    token = KEY.sign(claims(ISSUER, MCP, **more), **header)
    assert (await refused(issuer, token)).reason == "token_type"


@pytest.mark.parametrize(
    ("header", "more"),
    [({"typ": "at+jwt"}, {}), ({"typ": "JWT"}, {"typ": "Bearer"}), ({}, {})],
)
async def test_access_tokens_as_issuers_mark_them_are_accepted(
    issuer: Issuer, header: dict[str, str], more: dict[str, str]
) -> None:
    token = KEY.sign(claims(ISSUER, MCP, **more), **header)
    assert (await check(issuer).verify_token(token)).subject == "alice"
