"""The gate in front of `POST /mcp` and the resource metadata, in process (Starlette over
httpx's ASGI transport), with an issuer in process: what MCP clients read in each answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from prometheus_client import generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.server.auth.support import Issuer, SigningKey, claims
from tomtom_mcp_apps.server.auth import SignIn, build_sign_in, current_user
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.ops import metrics

ISSUER = "https://as.example.test"
MCP = "https://maps.example.test/mcp"
METADATA_URL = "https://maps.example.test/.well-known/oauth-protected-resource/mcp"
KEY = SigningKey.new("k1")


async def whoami(request: Request) -> JSONResponse:
    """Stands in for the MCP endpoint: who the request's token says it is."""
    user = current_user()
    return JSONResponse(
        {"user": user.id if user else None, "subject": user.subject if user else None}
    )


def replica(issuer: Issuer, **settings: Any) -> tuple[Starlette, SignIn]:
    sign_in = build_sign_in(
        Settings(oauth_issuer=ISSUER, public_url=MCP, **settings), transport=issuer.transport()
    )
    assert sign_in is not None
    endpoint = sign_in.protect(Route("/mcp", whoami, methods=["POST"]))
    routes = [Route("/mcp", endpoint, methods=["POST"]), *sign_in.routes]
    return Starlette(routes=routes), sign_in


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app, _ = replica(Issuer(ISSUER, [KEY]), oauth_scopes=("maps",))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://maps.example.test") as c:
        yield c


async def bearing(client: httpx.AsyncClient, token: str) -> httpx.Response:
    """`POST /mcp` with `token` as its bearer token."""
    return await client.post("/mcp", json={}, headers={"authorization": f"Bearer {token}"})


def params(challenge: str) -> dict[str, str]:
    """`Bearer a="b", c="d"` -> {"a": "b", "c": "d"} (no commas inside these values)."""
    scheme, _, rest = challenge.partition(" ")
    assert scheme == "Bearer"
    pairs = (item.strip().split("=", 1) for item in rest.split('", '))
    return {k: v.strip('"') for k, v in pairs}


async def test_a_request_without_a_token_gets_401_pointing_at_the_metadata_with_no_error_code(
    client: httpx.AsyncClient,
) -> None:
    answer = await client.post("/mcp", json={})
    assert answer.status_code == 401
    assert params(answer.headers["www-authenticate"]) == {
        "scope": "maps",
        "resource_metadata": METADATA_URL,
    }


async def test_a_bad_token_gets_401_invalid_token_saying_why(client: httpx.AsyncClient) -> None:
    token = KEY.sign(claims(ISSUER, "https://other.example.test/mcp"))
    answer = await bearing(client, token)
    assert answer.status_code == 401
    challenge = params(answer.headers["www-authenticate"])
    assert challenge["error"] == "invalid_token"
    assert challenge["error_description"] == "the token was issued for another resource"
    assert challenge["resource_metadata"] == METADATA_URL
    assert token not in answer.text and token not in str(answer.headers)


async def test_a_token_without_the_scope_gets_403_insufficient_scope_naming_it(
    client: httpx.AsyncClient,
) -> None:
    token = KEY.sign(claims(ISSUER, MCP, scope="openid"))
    answer = await bearing(client, token)
    assert answer.status_code == 403
    challenge = params(answer.headers["www-authenticate"])
    assert (challenge["error"], challenge["scope"]) == ("insufficient_scope", "maps")
    assert challenge["resource_metadata"] == METADATA_URL


async def test_a_good_token_reaches_the_endpoint_with_its_user_known_for_the_request(
    client: httpx.AsyncClient,
) -> None:
    token = KEY.sign(claims(ISSUER, MCP, sub="alice"))
    answer = await bearing(client, token)
    assert answer.status_code == 200
    body = answer.json()
    assert body["subject"] == "alice" and len(body["user"]) == 32


async def test_with_the_issuer_unreachable_and_no_keys_the_answer_is_503_to_retry() -> None:
    issuer = Issuer(ISSUER, [KEY])
    issuer.down = True
    app, _ = replica(issuer)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://maps.example.test") as c:
        token = KEY.sign(claims(ISSUER, MCP))
        answer = await bearing(c, token)
    assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
    assert answer.json()["error"] == "temporarily_unavailable"


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
)
async def test_the_resource_metadata_is_served_at_both_well_known_paths(
    client: httpx.AsyncClient, path: str
) -> None:
    answer = await client.get(path, headers={"origin": "https://claude.ai"})
    assert answer.status_code == 200
    assert answer.json() == {
        "resource": MCP,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["maps"],
        "bearer_methods_supported": ["header"],
        "resource_name": "TomTom maps (tomtom-mcp-apps)",
    }
    assert answer.headers["access-control-allow-origin"] == "*"


async def test_every_outcome_is_counted_with_bounded_labels_and_no_user(
    client: httpx.AsyncClient,
) -> None:
    def count(outcome: str, reason: str = "") -> float:
        labels = {"outcome": outcome, "reason": reason}
        return metrics.REGISTRY.get_sample_value("tomtom_mcp_sign_in_total", labels) or 0

    before = (count("ok"), count("no_token"), count("invalid_token", "expired"))
    await client.post("/mcp", json={})
    expired = KEY.sign(claims(ISSUER, MCP, exp=1))
    await bearing(client, expired)
    good = KEY.sign(claims(ISSUER, MCP, sub="alice"))
    await bearing(client, good)
    after = (count("ok"), count("no_token"), count("invalid_token", "expired"))
    assert [b - a for a, b in zip(before, after, strict=True)] == [1, 1, 1]
    assert b"alice" not in generate_latest(metrics.REGISTRY)
