"""Sign-in for tests: signing keys, a real OpenID provider, and MCP clients that sign in.

The provider is oidc-provider (npm, OpenID Certified) run by `provider/provider.mjs` on
127.0.0.1 (`provider()`); its signing keys are made here (`SigningKey`), so that tests
can also sign tokens of their own with the provider's key (expired, for another
audience...) or with a key it never published. `signed_in()` is an MCP client that
goes through the SDK's own OAuth flow (`mcp.client.auth.OAuthClientProvider`): a 401,
the resource metadata, the provider's metadata, dynamic registration, the authorization
code with PKCE (the redirect followed by httpx, as a browser would; the provider signs
in the user named by `login_hint` and consents), the token, then the MCP request.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from loadtest.topology import Service, free_port, serving, wait_listening

PROVIDER_DIR = Path(__file__).resolve().parent / "provider"
REDIRECT_URI = "http://127.0.0.1:33418/callback"
"""Where the provider sends the browser back: never listened on; the test reads the code
from the redirect itself."""
SCOPE = "maps"
FLOW_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class SigningKey:
    """An RSA key pair with its key id: published by the provider, or a stranger's."""

    kid: str
    private: rsa.RSAPrivateKey

    @classmethod
    def new(cls, kid: str) -> SigningKey:
        return cls(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    def jwk(self, *, private: bool = False) -> dict[str, Any]:
        key = self.private if private else self.private.public_key()
        return {
            **json.loads(RSAAlgorithm.to_jwk(key)),
            "kid": self.kid,
            "alg": "RS256",
            "use": "sig",
        }

    def sign(self, claims: Mapping[str, Any], **header: Any) -> str:
        return jwt.encode(
            dict(claims), self.private, algorithm="RS256", headers={"kid": self.kid, **header}
        )


def claims(issuer: str, audience: str, *, sub: str = "alice", **more: Any) -> dict[str, Any]:
    """A valid access token's claims for `audience`, from `issuer`, for ten minutes."""
    now = int(time.time())
    return {
        "iss": issuer,
        "sub": sub,
        "aud": audience,
        "iat": now,
        "exp": now + 600,
        "scope": SCOPE,
        "client_id": "test-client",
        **more,
    }


@contextlib.contextmanager
def provider(
    workdir: Path,
    keys: list[SigningKey],
    *,
    port: int | None = None,
    token_format: str = "jwt",
    client_secret: str = "resource-server-secret",
) -> Iterator[Service]:
    """oidc-provider on 127.0.0.1 (the issuer is its URL), signing with `keys[0]` and
    publishing every key of `keys`; its pre-registered client `tomtom-mcp-apps` (with
    `client_secret`) may introspect."""
    port = port or free_port()
    path = workdir / f"provider-keys-{port}-{keys[0].kid}.json"
    path.write_text(json.dumps({"keys": [key.jwk(private=True) for key in keys]}))
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "PROVIDER_PORT": str(port),
        "PROVIDER_KEYS": str(path),
        "PROVIDER_SCOPES": SCOPE,
        "PROVIDER_TOKEN_FORMAT": token_format,
        "PROVIDER_CLIENT_SECRET": client_secret,
    }
    command = ["node", str(PROVIDER_DIR / "provider.mjs")]
    with serving("provider", command, port, env=env, ready=wait_listening) as service:
        yield service


class MemoryTokens:
    """The SDK's `TokenStorage`, in memory: one signed-in client's registration and tokens."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Browser:
    """The user's browser, automated: follows the authorization URL through the provider's
    redirects (keeping its cookies) until it is sent back to the client's redirect URI."""

    def __init__(self, user: str) -> None:
        self.user = user
        self.code: AuthorizationCodeResult | None = None

    async def open(self, authorization_url: str) -> None:
        url = f"{authorization_url}&login_hint={self.user}"
        async with httpx.AsyncClient(timeout=FLOW_TIMEOUT_S) as browser:
            for _ in range(10):
                response = await browser.get(url)
                location = response.headers.get("location")
                assert response.is_redirect and location, (response.status_code, response.text)
                url = str(response.url.join(location))
                if url.startswith(REDIRECT_URI):
                    query = parse_qs(urlsplit(url).query)
                    assert "error" not in query, query
                    self.code = AuthorizationCodeResult(
                        code=query["code"][0], state=query["state"][0], iss=query["iss"][0]
                    )
                    return
        raise AssertionError("the provider never sent the browser back")

    async def callback(self) -> AuthorizationCodeResult:
        assert self.code is not None
        return self.code


def oauth(mcp_url: str, user: str, storage: MemoryTokens | None = None) -> OAuthClientProvider:
    """The SDK's OAuth flow for `user` against the MCP endpoint `mcp_url`."""
    browser = Browser(user)
    return OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="tomtom-mcp-apps tests",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage or MemoryTokens(),
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )


@contextlib.asynccontextmanager
async def signed_in(
    mcp_url: str,
    user: str,
    *,
    mode: str = "auto",
    storage: MemoryTokens | None = None,
    hook: Callable[[Any], Awaitable[None]] | None = None,
) -> AsyncIterator[Client]:
    """An MCP client signed in as `user` through the SDK's OAuth flow (`mode`: `auto` for
    the 2026-07-28 era, `legacy` for 2025-11-25); `hook` sees every request it sends."""
    hooks = {"request": [hook]} if hook is not None else {}
    auth = oauth(mcp_url, user, storage)
    async with httpx2.AsyncClient(auth=auth, timeout=60, event_hooks=hooks) as http:
        transport = streamable_http_client(mcp_url, http_client=http)
        async with Client(transport, mode=mode, cache=None) as client:  # type: ignore[arg-type]
            yield client


@contextlib.asynccontextmanager
async def with_token(mcp_url: str, token: str, *, mode: str = "auto") -> AsyncIterator[Client]:
    """An MCP client presenting `token` as is (no OAuth flow)."""
    headers = {"authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        transport = streamable_http_client(mcp_url, http_client=http)
        async with Client(transport, mode=mode, cache=None) as client:  # type: ignore[arg-type]
            yield client


class Issuer:
    """An authorization server in process, for `httpx.MockTransport`: its metadata, the keys
    it publishes (changed by a test to rotate them), an introspection endpoint answering
    `introspected`, and a count of the requests each path received. `down` makes every
    answer a 503."""

    def __init__(self, url: str, keys: list[SigningKey]) -> None:
        self.url = url
        self.keys = keys
        self.other_entries: list[dict[str, Any]] = []
        """Entries published beside `keys` (a symmetric key, say)."""
        self.introspected: dict[str, dict[str, Any]] = {}
        self.down = False
        self.hits: dict[str, int] = {}
        self.basic_auth: list[str] = []
        self.named: dict[str, str] = {}
        """Endpoints the metadata names elsewhere (`jwks_uri`, `introspection_endpoint`)."""
        self.hosts: list[str] = []
        """The host of every request received, in order."""

    @property
    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "jwks_uri": f"{self.url}/jwks",
            "introspection_endpoint": f"{self.url}/introspect",
            "authorization_endpoint": f"{self.url}/auth",
            "token_endpoint": f"{self.url}/token",
            **self.named,
        }

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.hits[path] = self.hits.get(path, 0) + 1
        self.hosts.append(request.url.host)
        if self.down:
            return httpx.Response(503)
        if path.endswith("/.well-known/oauth-authorization-server") or path.startswith(
            "/.well-known/oauth-authorization-server"
        ):
            return httpx.Response(200, json=self.metadata)
        if path.endswith("/jwks"):
            published = [key.jwk() for key in self.keys] + self.other_entries
            return httpx.Response(200, json={"keys": published})
        if path.endswith("/introspect"):
            self.basic_auth.append(request.headers.get("authorization", ""))
            token = parse_qs(request.content.decode())["token"][0]
            return httpx.Response(200, json=self.introspected.get(token, {"active": False}))
        return httpx.Response(404)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)
