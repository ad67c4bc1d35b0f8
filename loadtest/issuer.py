"""An authorization server for the hostile suite: the metadata, one signing key and an
introspection endpoint, on 127.0.0.1, counting what it is asked.

    python -m loadtest.issuer --port 8200 --key key.pem --client rs:rs-secret --opaque good

The suite holds the private key (`--key`, PEM) and signs the JWTs it sends itself; the
one opaque token introspected as active is `--opaque`'s, for the subject `opaque-user`.
`GET /_asked` says how many times each endpoint was asked. Not an OAuth server for
anything else: it issues nothing.
"""

from __future__ import annotations

import argparse
import base64
import json
import time
from pathlib import Path
from urllib.parse import parse_qs

from cryptography.hazmat.primitives import serialization
from jwt.algorithms import RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

KID = "hostile-suite"
OPAQUE_SUBJECT = "opaque-user"


def build_issuer(url: str, public_jwk: dict, client: str, opaque: str, audience: str) -> Starlette:
    asked: dict[str, int] = {}

    def count(name: str) -> None:
        asked[name] = asked.get(name, 0) + 1

    async def metadata(_: Request) -> JSONResponse:
        count("metadata")
        return JSONResponse(
            {
                "issuer": url,
                "jwks_uri": f"{url}/jwks",
                "introspection_endpoint": f"{url}/introspect",
                "authorization_endpoint": f"{url}/auth",
                "token_endpoint": f"{url}/token",
            }
        )

    async def jwks(_: Request) -> JSONResponse:
        count("jwks")
        return JSONResponse({"keys": [public_jwk]})

    async def introspect(request: Request) -> Response:
        count("introspect")
        expected = "Basic " + base64.b64encode(client.encode()).decode()
        if request.headers.get("authorization") != expected:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        token = parse_qs((await request.body()).decode()).get("token", [""])[0]
        if token != opaque:
            return JSONResponse({"active": False})
        now = int(time.time())
        return JSONResponse(
            {
                "active": True,
                "iss": url,
                "sub": OPAQUE_SUBJECT,
                "aud": audience,
                "exp": now + 3600,
                "iat": now,
                "client_id": "hostile-suite",
            }
        )

    async def stats(_: Request) -> JSONResponse:
        return JSONResponse(asked)

    return Starlette(
        routes=[
            Route("/.well-known/oauth-authorization-server", metadata),
            Route("/jwks", jwks),
            Route("/introspect", introspect, methods=["POST"]),
            Route("/_asked", stats),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", type=Path, required=True, help="the signing key (PEM)")
    parser.add_argument("--client", required=True, help="id:secret of the resource server")
    parser.add_argument("--opaque", required=True, help="the one active opaque token")
    parser.add_argument("--audience", required=True, help="the resource it is issued for")
    args = parser.parse_args()
    private = serialization.load_pem_private_key(args.key.read_bytes(), password=None)
    jwk = {**json.loads(RSAAlgorithm.to_jwk(private.public_key())), "kid": KID, "alg": "RS256"}
    url = f"http://127.0.0.1:{args.port}"
    import uvicorn

    app = build_issuer(url, jwk, args.client, args.opaque, args.audience)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", proxy_headers=False)


if __name__ == "__main__":
    main()
