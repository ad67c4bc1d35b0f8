"""Opaque access tokens, checked by introspection (RFC 7662) at a real OpenID provider
(oidc-provider issuing opaque tokens), on a real replica signed in to by the SDK's client.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
import pytest

from loadtest.topology import free_port
from tests.processes import running
from tests.server.auth.support import MemoryTokens, SigningKey, provider, signed_in

pytestmark = pytest.mark.process

SECRET = "introspection-secret-of-the-resource-server"


async def test_an_opaque_token_is_introspected_and_serves_the_call() -> None:
    with (
        tempfile.TemporaryDirectory() as workdir,
        provider(
            Path(workdir), [SigningKey.new("k1")], token_format="opaque", client_secret=SECRET
        ) as issuer,
    ):
        port = free_port()
        mcp = f"http://127.0.0.1:{port}/mcp"
        env = {
            "OAUTH_ISSUER": issuer.url,
            "OAUTH_SCOPES": "maps",
            "OAUTH_INTROSPECTION": "opaque",
            "OAUTH_CLIENT_ID": "tomtom-mcp-apps",
            "OAUTH_CLIENT_SECRET": SECRET,
            "PUBLIC_URL": mcp,
            "FIT_WORKERS": "1",
        }
        with running(["serve"], env, port=port) as replica:
            storage = MemoryTokens()
            async with signed_in(mcp, "ivan", storage=storage) as client:
                result = await client.call_tool("tomtom-geocode", {"query": "Dam 1, Amsterdam"})
            log = replica.log.read_text()
    assert not result.is_error, result.content[0].text
    assert orjson.loads(result.content[0].text)["count"] >= 1
    assert storage.tokens is not None and storage.tokens.access_token.count(".") == 0
    assert storage.tokens.access_token not in log
