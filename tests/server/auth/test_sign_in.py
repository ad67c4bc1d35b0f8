"""Sign-in end to end, with real processes: oidc-provider (a real OpenID provider), two
replicas behind nginx, the offline upstream standing in for TomTom, and Debian's
redis-server holding the users' budgets.

The MCP Python SDK's own client signs in as a host would: its first request gets a 401,
it reads the resource metadata and the provider's metadata, registers itself, gets an
authorization code with PKCE (the browser automated), then a token, then calls tools,
on both protocol eras. Bad tokens are refused at the balancer's door; a user over the
minute budget is refused with the time to retry while another is served, exactly across
both replicas; a rotated signing key is accepted; no token appears in any log, metric,
error or trace.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt
import orjson
import pytest
from mcp_types import CallToolResult

from loadtest.topology import Service, Topology, free_port, run_topology, stop
from tests.processes import redis_server, redis_url
from tests.server.auth.support import (
    MemoryTokens,
    SigningKey,
    claims,
    provider,
    signed_in,
    with_token,
)
from tomtom_mcp_apps.server.auth import User
from tomtom_mcp_apps.server.tomtom._errors import key_forms
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY

pytestmark = pytest.mark.process

BUDGET_PER_MIN = 5
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@dataclass
class Deployment:
    topology: Topology
    provider: Service
    keys: list[SigningKey]
    workdir: Path
    stack: contextlib.ExitStack
    """Where each process started for the module is stopped at its end."""
    tokens: list[str] = field(default_factory=list)
    """Every token a test sent: none may appear in any output."""

    @property
    def url(self) -> str:
        assert self.topology.balancer_url is not None
        return self.topology.balancer_url

    @property
    def issuer(self) -> str:
        return self.provider.url

    def user(self, name: str) -> User:
        return User(self.issuer, name)

    def restart_provider(self, keys: list[SigningKey]) -> None:
        """The provider again, on its port, signing with `keys[0]` (a key rotation)."""
        port = int(self.provider.url.rsplit(":", 1)[1])
        stop([self.provider])
        self.provider = self.stack.enter_context(provider(self.workdir, keys, port=port))
        self.keys = keys


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    with contextlib.ExitStack() as outer, tempfile.TemporaryDirectory() as workdir:
        redis = outer.enter_context(redis_server())
        keys = [SigningKey.new("k1")]
        issuer = outer.enter_context(provider(Path(workdir), keys, port=free_port()))
        env = {
            "OAUTH_ISSUER": issuer.url,
            "OAUTH_SCOPES": "maps",
            "OAUTH_JWKS_MIN_REFETCH_S": "0",
            "USER_QUOTA_PER_MIN": str(BUDGET_PER_MIN),
            "QUOTA_STORE": redis_url(redis),
            "OTEL_TRACES_EXPORTER": "console",
            "OTEL_BSP_SCHEDULE_DELAY": "200",  # spans written within 0.2 s, not 5 s
            "LOG_FORMAT": "json",
            "PYTHONUNBUFFERED": "1",
        }
        topology = outer.enter_context(run_topology(replicas=2, fit_workers=1, env=env))
        yield Deployment(topology, issuer, keys, Path(workdir), outer)


def answer(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return orjson.loads(result.content[0].text)


def tool_calls_by(replica: Service, user: User) -> int:
    return sum(
        1
        for event in replica.log_events()
        if event.get("event") == "tool_call" and event.get("user") == user.id
    )


@pytest.mark.parametrize(("mode", "name"), [("auto", "alice"), ("legacy", "bob")])
async def test_the_sdk_client_signs_in_and_calls_tools_on_both_replicas_behind_nginx(
    deployment: Deployment, mode: str, name: str
) -> None:
    seen: list[str] = []

    async def record(request: Any) -> None:
        seen.append(f"{request.method} {request.url.copy_with(query=None)}")

    storage = MemoryTokens()
    async with signed_in(deployment.url, name, mode=mode, storage=storage, hook=record) as client:
        for _ in range(4):  # round robin: calls on each replica
            result = await client.call_tool("tomtom-geocode", {"query": "Damrak 1, Amsterdam"})
            assert answer(result)["count"] >= 1
    assert storage.tokens is not None
    deployment.tokens.append(storage.tokens.access_token)
    mcp, issuer = deployment.url, deployment.issuer
    flow = [
        f"POST {mcp}",  # no token yet: 401
        f"GET {mcp.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}",
        f"GET {issuer}/.well-known/oauth-authorization-server",
        f"POST {issuer}/reg",
        f"POST {issuer}/token",
        f"POST {mcp}",  # the first request again, with the token
    ]
    assert seen[: len(flow)] == flow
    user = deployment.user(name)
    served = [tool_calls_by(r, user) for r in deployment.topology.replicas]
    assert sum(served) == 4 and min(served) >= 1, served


async def test_the_resource_metadata_names_the_provider_through_the_balancer(
    deployment: Deployment,
) -> None:
    metadata_url = deployment.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    metadata = httpx.get(metadata_url, timeout=10).json()
    assert metadata["resource"] == deployment.url
    assert metadata["authorization_servers"] == [deployment.issuer]
    assert metadata["scopes_supported"] == ["maps"]
    unauthorized = httpx.post(deployment.url, json=INITIALIZE, headers=HEADERS, timeout=10)
    assert unauthorized.status_code == 401
    assert unauthorized.headers["www-authenticate"] == (
        f'Bearer scope="maps", resource_metadata="{metadata_url}"'
    )
    assert httpx.get(deployment.url.replace("/mcp", "/health"), timeout=10).status_code == 200


def bad_tokens(deployment: Deployment, real: str) -> dict[str, tuple[str, int, str]]:
    """Tokens to refuse: (token, status, what the challenge says)."""
    key, issuer, mcp = deployment.keys[0], deployment.issuer, deployment.url
    header, payload, signature = real.split(".")
    body = orjson.loads(jwt.utils.base64url_decode(payload))
    body["sub"] = "mallory"
    forged = jwt.utils.base64url_encode(orjson.dumps(body)).decode()
    none_header = jwt.utils.base64url_encode(b'{"alg":"none","kid":"k1"}').decode()
    return {
        "expired": (key.sign(claims(issuer, mcp, exp=int(time.time()) - 120)), 401, "expired"),
        "other audience": (key.sign(claims(issuer, "https://x.test/mcp")), 401, "another resource"),
        "other issuer": (key.sign(claims("https://evil.test", mcp)), 401, "another authorization"),
        "unknown key": (SigningKey.new("k9").sign(claims(issuer, mcp)), 401, "does not list"),
        "alg none": (f"{none_header}.{payload}.", 401, "algorithm"),
        "tampered payload": (f"{header}.{forged}.{signature}", 401, "signature"),
        "missing scope": (key.sign(claims(issuer, mcp, scope="openid")), 403, "insufficient_scope"),
        "garbage": ("garbage", 401, "not a JWT"),
    }


async def test_bad_tokens_are_refused_at_the_door_and_a_good_one_of_the_same_making_is_not(
    deployment: Deployment,
) -> None:
    storage = MemoryTokens()
    async with signed_in(deployment.url, "carol", storage=storage):
        pass
    assert storage.tokens is not None
    real = storage.tokens.access_token
    for case, (token, status, said) in bad_tokens(deployment, real).items():
        deployment.tokens.append(token)
        headers = {**HEADERS, "authorization": f"Bearer {token}"}
        refused = httpx.post(deployment.url, json=INITIALIZE, headers=headers, timeout=10)
        assert refused.status_code == status, (case, refused.status_code, refused.text)
        challenge = refused.headers["www-authenticate"]
        assert said in challenge, (case, challenge)
        assert token not in refused.text and token not in challenge
    made_here = deployment.keys[0].sign(claims(deployment.issuer, deployment.url, sub="dave"))
    deployment.tokens.append(made_here)
    async with with_token(deployment.url, made_here) as client:
        assert (
            answer(await client.call_tool("tomtom-geocode", {"query": "Dam 1, Amsterdam"}))["count"]
            >= 1
        )


async def within_one_window(run: Callable[[], Awaitable[list[int]]]) -> list[int]:
    """`run`'s statuses, from a run that fell within one minute window: a run that
    straddled a window's end is run once more (it cannot straddle two in a row)."""
    for _ in range(2):
        started = int(time.time() // 60)
        statuses = await run()
        if int(time.time() // 60) == started:
            return statuses
    raise AssertionError("two runs in a row straddled a minute's end")


async def test_a_user_over_the_minute_budget_is_refused_with_the_retry_time_across_replicas(
    deployment: Deployment,
) -> None:
    refusal: list[str] = []

    async def run() -> list[int]:
        name = f"erin-{time.monotonic_ns()}"  # a fresh budget for each run
        outcomes = []
        async with (
            signed_in(deployment.url, name) as erin,
            signed_in(deployment.url, "frank") as frank,
        ):
            for _ in range(BUDGET_PER_MIN + 2):  # alternating between the two replicas
                result = await erin.call_tool("tomtom-geocode", {"query": "Dam 1, Amsterdam"})
                outcomes.append(0 if result.is_error else 1)
                if result.is_error:
                    refusal.append(result.content[0].text)
            served = await frank.call_tool("tomtom-geocode", {"query": "Dam 1, Amsterdam"})
            outcomes.append(0 if served.is_error else 1)
        return outcomes

    outcomes = await within_one_window(run)
    assert outcomes == [1] * BUDGET_PER_MIN + [0, 0] + [1], "exactly the budget, both replicas"
    assert f"You have used your {BUDGET_PER_MIN} TomTom requests per minute" in refusal[-1]
    seconds = int(refusal[-1].split("retry in ", 1)[1].split(" s", 1)[0])
    assert 1 <= seconds <= 60


async def test_a_users_tiles_count_against_their_budget_and_answer_429_with_retry_after(
    deployment: Deployment,
) -> None:
    async def run() -> list[int]:
        name = f"grace-{time.monotonic_ns()}"
        async with signed_in(deployment.url, name) as grace:
            config = (await grace.call_tool("tomtom-get-map-config", {})).meta[MAP_CONFIG_KEY]
        template = config["tiles"]["basemap"]
        statuses = []
        for x in range(BUDGET_PER_MIN + 1):  # through the balancer, on both replicas
            tile = httpx.get(template.format(z=3, x=x, y=2), timeout=10)
            statuses.append(tile.status_code)
            if tile.status_code == 429:
                assert "per minute" in tile.text and 1 <= int(tile.headers["retry-after"]) <= 60
        return statuses

    # The map config itself is worth a request of the budget: one tile fewer.
    assert await within_one_window(run) == [200] * (BUDGET_PER_MIN - 1) + [429, 429]


def traced(replica: Service, span: str, within_s: float = 10.0) -> str:
    """The replica's log once it holds `span` (its exporter writes spans in batches, a
    moment after they end), or as it is after `within_s`."""
    deadline = time.monotonic() + within_s
    while f'"name": "{span}"' not in (text := replica.log.read_text()):
        if time.monotonic() > deadline:
            return text
        time.sleep(0.1)
    return text


async def test_no_token_appears_in_any_log_metric_error_or_trace(deployment: Deployment) -> None:
    assert len(deployment.tokens) >= 8
    outputs: dict[str, str] = {}
    for i, replica in enumerate(deployment.topology.replicas):
        outputs[f"replica {i} log and traces"] = traced(replica, "tools/call tomtom-geocode")
        outputs[f"replica {i} metrics"] = httpx.get(f"{replica.url}/metrics", timeout=5).text
    balancer = deployment.topology.balancer
    assert balancer is not None
    outputs["balancer log"] = balancer.log.read_text()
    assert '"name": "tools/call tomtom-geocode"' in outputs["replica 0 log and traces"]
    assert "tomtom_mcp_sign_in_total" in outputs["replica 0 metrics"]
    found = [
        f"{name} holds a token ({form[:12]}...)"
        for token in deployment.tokens
        for form in key_forms(token) | {token.rsplit(".", 1)[-1]} - {""}
        for name, text in outputs.items()
        if len(form) >= 8 and form in text
    ]
    assert found == []


async def test_a_rotated_signing_key_is_accepted_at_once(deployment: Deployment) -> None:
    rotated = SigningKey.new("k2")
    deployment.restart_provider([rotated, *deployment.keys])
    storage = MemoryTokens()
    async with signed_in(deployment.url, "heidi", storage=storage) as heidi:
        assert (
            answer(await heidi.call_tool("tomtom-geocode", {"query": "Dam 1, Amsterdam"}))["count"]
            >= 1
        )
    assert storage.tokens is not None
    assert jwt.get_unverified_header(storage.tokens.access_token)["kid"] == "k2"
